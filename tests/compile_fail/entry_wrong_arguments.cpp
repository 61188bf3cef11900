// expect: roam: wrong number of arguments for this entry method
#include <roam/roam.hpp>

struct a : roam::chare<a> {
  void take(int, double) {}
};
void f(roam::chare_proxy<a> p) { p.send<&a::take>(1); }
