#pragma once
// One-owner extension points (docs/architecture.md, section 3): a lower layer
// calls a function pointer (or a struct of them) that exactly one higher
// layer fills. Every such slot is filled through install_hook, never by a
// plain assignment, so that a second owner is found at start-up instead of
// silently replacing the first.
#include <stdexcept>
#include <string>
#include <type_traits>

namespace roam::detail {

/// Records that `owner` fills `slot` (named `slot_name` in errors). A slot
/// already claimed by another owner throws std::logic_error naming the slot
/// and both owners (at static initialisation: the program stops before
/// main). The same owner may claim again (a layer reinstalling its hooks).
void claim_hook(const void* slot, const char* slot_name, const char* owner);

template <class T>
void install_hook(T& slot, std::type_identity_t<T> value, const char* slot_name, const char* owner) {
  claim_hook(&slot, slot_name, owner);
  slot = value;
}

}  // namespace roam::detail
