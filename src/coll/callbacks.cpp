// Registries by stable id: callback target kinds (for callbacks read from
// messages) and reducers (checked for collisions before any PE starts).
#include <mutex>
#include <unordered_map>

#include <roam/coll/callback.hpp>
#include <roam/coll/reduction.hpp>
#include <roam/sched/detail/startup.hpp>

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

namespace {
struct reducer_registry {
  std::mutex mutex;
  std::unordered_map<std::uint64_t, std::string_view> by_id;
  std::string collisions;
};
reducer_registry& reducers() {
  static reducer_registry r;
  return r;
}
std::string check_reducers() {
  auto& r = reducers();
  std::lock_guard lock(r.mutex);
  return r.collisions.empty() ? std::string{} : "reducer identifier collision(s):" + r.collisions;
}
const bool reducer_check_registered = register_startup_check(&check_reducers);
}  // namespace

namespace {
struct partial_registry {
  std::mutex mutex;
  std::unordered_map<std::uint64_t, partial_factory> by_id;
};
partial_registry& partial_kinds() {
  static partial_registry r;
  return r;
}
}  // namespace

bool register_partial_kind(std::uint64_t id, partial_factory make) {
  auto& r = partial_kinds();
  std::lock_guard lock(r.mutex);
  r.by_id.emplace(id, make);
  return true;
}

partial_factory find_partial_kind(std::uint64_t id) noexcept {
  auto& r = partial_kinds();
  std::lock_guard lock(r.mutex);
  auto it = r.by_id.find(id);
  return it == r.by_id.end() ? nullptr : it->second;
}

bool register_reducer(std::uint64_t id, std::string_view name) {
  (void)reducer_check_registered;
  auto& r = reducers();
  std::lock_guard lock(r.mutex);
  auto [it, fresh] = r.by_id.emplace(id, name);
  if (!fresh && it->second != name) r.collisions += "\n  " + std::string(it->second) + " and " + std::string(name);
  return true;
}

}  // namespace roam::detail
