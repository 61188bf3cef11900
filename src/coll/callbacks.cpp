// Registry of callback target kinds, by stable id, for callbacks read from messages.
#include <mutex>
#include <unordered_map>

#include <roam/coll/callback.hpp>

namespace roam::detail {

namespace {
struct callback_registry {
  std::mutex mutex;
  std::unordered_map<std::uint64_t, const callback_ops*> by_id;
};
callback_registry& registry() {
  static callback_registry r;
  return r;
}
}  // namespace

bool register_callback_ops(const callback_ops* ops) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  r.by_id.emplace(ops->id, ops);
  return true;
}

const callback_ops* find_callback_ops(std::uint64_t id) noexcept {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.by_id.find(id);
  return it == r.by_id.end() ? nullptr : it->second;
}

}  // namespace roam::detail
