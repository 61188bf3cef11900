// The entry registry: stable id -> operations, filled during static
// initialisation, checked for hash collisions before any PE starts.
#include <algorithm>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <roam/msg/detail/entry.hpp>
#include <roam/sched/detail/startup.hpp>

namespace roam::detail {

namespace {

struct registry {
  std::mutex mutex;
  std::unordered_map<std::uint64_t, const entry_ops*> by_id;
  std::vector<std::string> collisions;
};

registry& the_registry() {
  static registry r;
  return r;
}

std::string check_collisions() {
  auto& r = the_registry();
  std::lock_guard lock(r.mutex);
  if (r.collisions.empty()) return {};
  std::string text = "entry-method identifier collision(s); rename one of each pair:";
  for (const auto& c : r.collisions) text += "\n  " + c;
  return text;
}

const bool collision_check_registered = register_startup_check(&check_collisions);

}  // namespace

bool register_entry(const entry_ops* ops) {
  (void)collision_check_registered;
  auto& r = the_registry();
  std::lock_guard lock(r.mutex);
  auto [it, inserted] = r.by_id.emplace(ops->id, ops);
  // One table per instantiation (an inline variable), so a second table under
  // the same id is a collision even when the printed names agree.
  if (!inserted && it->second != ops) {
    r.collisions.push_back(std::string(it->second->class_name) + "/" + std::string(it->second->name) + " and " +
                           std::string(ops->class_name) + "/" + std::string(ops->name));
  }
  return true;
}

const entry_ops* find_entry(std::uint64_t id) noexcept {
  auto& r = the_registry();
  std::lock_guard lock(r.mutex);
  auto it = r.by_id.find(id);
  return it == r.by_id.end() ? nullptr : it->second;
}

std::vector<const entry_ops*> mailbox_entries_of(std::string_view class_name) {
  std::vector<const entry_ops*> found;
  {
    auto& r = the_registry();
    std::lock_guard lock(r.mutex);
    for (const auto& [id, ops] : r.by_id)
      if (ops->describe_waiting && ops->class_name == class_name) found.push_back(ops);
  }
  // In declaration-independent but stable order, so reports compare across runs.
  std::sort(found.begin(), found.end(), [](const entry_ops* a, const entry_ops* b) { return a->name < b->name; });
  return found;
}

std::string describe_delivery(const delivery_context& ctx) {
  if (g_describe_delivery) return g_describe_delivery(ctx);
  std::string s = "collection " + std::to_string(ctx.collection);
  if (ctx.ops) s += " entry " + std::string(ctx.ops->name);
  return s;
}

}  // namespace roam::detail
