// The entry registry: stable id -> operations (a stable_registry, whose
// collisions the one start-up check reports).
#include <algorithm>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <roam/msg/detail/entry.hpp>
#include <roam/msg/detail/stable_registry.hpp>

namespace roam::detail {

namespace {

stable_registry<const entry_ops*>& entries() {
  static stable_registry<const entry_ops*> r("entry");
  return r;
}

}  // namespace

// One table per instantiation (an inline variable), so a second table under
// the same id is a collision even when the printed names agree.
bool register_entry(const entry_ops* ops) {
  return entries().add(ops->id, ops, std::string(ops->class_name) + "/" + std::string(ops->name));
}

const entry_ops* find_entry(std::uint64_t id) noexcept { return entries().find(id); }

std::vector<const entry_ops*> mailbox_entries_of(std::string_view class_name) {
  std::vector<const entry_ops*> found;
  entries().for_each([&](std::uint64_t, const entry_ops* ops, std::string_view) {
    if (ops->describe_waiting && ops->class_name == class_name) found.push_back(ops);
  });
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
