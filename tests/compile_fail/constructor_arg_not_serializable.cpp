// expect: roam: constructor arguments travel in a message, so they must be serializable
#include <roam/roam.hpp>

struct handle {
  void* p;
};
struct c : roam::chare<c> {
  explicit c(handle) {}
};
void f() { (void)roam::create_chare<c>(handle{nullptr}); }
