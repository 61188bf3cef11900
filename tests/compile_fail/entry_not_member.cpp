// expect: roam: this entry method is not a member of the proxy's class
#include <roam/roam.hpp>

struct a : roam::chare<a> {
  void ping() {}
};
struct b : roam::chare<b> {
  void pong() {}
};
void f(roam::chare_proxy<a> p) { p.send<&b::pong>(); }
