// claim_hook (include/roam/sched/detail/hook_slot.hpp): which layer owns each
// one-owner extension point.
#include <roam/sched/detail/hook_slot.hpp>

#include <cstring>
#include <mutex>
#include <unordered_map>

namespace roam::detail {

namespace {

struct claims {
  std::mutex mutex;
  std::unordered_map<const void*, const char*> owner_of;
};
claims& all_claims() {
  static claims c;
  return c;
}

}  // namespace

void claim_hook(const void* slot, const char* slot_name, const char* owner) {
  claims& c = all_claims();
  std::lock_guard lock(c.mutex);
  auto [it, fresh] = c.owner_of.try_emplace(slot, owner);
  if (!fresh && std::strcmp(it->second, owner) != 0)
    throw std::logic_error(std::string("roam: the extension point ") + slot_name + " is filled by " + it->second +
                           "; " + owner + " tried to fill it too (one owner only: docs/architecture.md, section 3)");
}

}  // namespace roam::detail
