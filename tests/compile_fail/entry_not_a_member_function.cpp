// expect: roam: an entry method is named by a pointer to a public member function
#include <roam/roam.hpp>

struct a : roam::chare<a> {
  int field = 0;
};
void f(roam::chare_proxy<a> p) { p.send<&a::field>(); }
