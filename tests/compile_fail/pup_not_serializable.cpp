// expect: roam: type is not serializable
// Packing a type that has no pup function, no free pup and no
// bitwise_serializable opt-in must be a compile error with a readable message.
#include <roam/msg/pup.hpp>

namespace {
struct no_pup {
  int value = 0;
  int* owner = nullptr;
};
}  // namespace

int main() {
  const no_pup v{};
  return static_cast<int>(roam::pack(v).size());
}
