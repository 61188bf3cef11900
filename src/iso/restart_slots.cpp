// Slots after a restart (docs/design/isomalloc.md): a restored migratable
// thread keeps the slot it had, in whichever process restores it, and the
// slices of a run with another PE count overlap the old ones. Before any PE
// resumes, every process learns the slots restored anywhere and its slices
// skip them (the restart exchange of src/ft/restore.cpp).
#include <cstdint>
#include <vector>

#include <roam/iso/detail/region.hpp>
#include <roam/obj/detail/checkpoint_support.hpp>

namespace roam::detail::iso {

namespace {

std::vector<std::uint64_t> collect_restored_slots() {
  const std::vector<std::uint32_t> live = live_slots();
  return {live.begin(), live.end()};
}

void install_restored_slots(const std::vector<std::uint64_t>& everyone) {
  std::vector<std::uint32_t> held;
  held.reserve(everyone.size());
  for (std::uint64_t s : everyone) held.push_back(static_cast<std::uint32_t>(s));
  mark_slots_restored(held);
}

[[maybe_unused]] const bool registered = [] {
  register_restart_exchange({&collect_restored_slots, &install_restored_slots});
  return true;
}();

}  // namespace

}  // namespace roam::detail::iso
