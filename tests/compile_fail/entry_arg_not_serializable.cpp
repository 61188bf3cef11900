// expect: roam: entry method parameter type is not serializable
#include <roam/roam.hpp>

struct opaque {
  int* p;
};
struct c : roam::chare<c> {
  void take(opaque) {}
};
void f(roam::chare_proxy<c> p) { p.send<&c::take>(opaque{}); }
