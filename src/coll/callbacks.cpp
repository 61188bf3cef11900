// Registries by stable id in the collectives layer: callback target kinds
// (for callbacks read from messages), reducers and reduction partial kinds
// (for partial results read from messages). Collisions: the one start-up
// check of stable_registry.
#include <string>

#include <roam/coll/callback.hpp>
#include <roam/coll/reduction.hpp>
#include <roam/msg/detail/stable_registry.hpp>

namespace roam::detail {

namespace {
stable_registry<const callback_ops*>& callback_kinds() {
  static stable_registry<const callback_ops*> r("callback kind");
  return r;
}
stable_registry<std::string_view>& reducers() {
  static stable_registry<std::string_view> r("reducer");
  return r;
}
stable_registry<partial_factory>& partial_kinds() {
  static stable_registry<partial_factory> r("reduction partial kind");
  return r;
}
}  // namespace

bool register_callback_ops(const callback_ops* ops) { return callback_kinds().add(ops->id, ops, ops->name); }

const callback_ops* find_callback_ops(std::uint64_t id) noexcept { return callback_kinds().find(id); }

bool register_partial_kind(std::uint64_t id, partial_factory make, std::string_view name) {
  return partial_kinds().add(id, make, name);
}

partial_factory find_partial_kind(std::uint64_t id) noexcept { return partial_kinds().find(id); }

// Compared by name: the same reducer type registered from several translation units is one.
bool register_reducer(std::uint64_t id, std::string_view name) { return reducers().add(id, name, name); }

}  // namespace roam::detail
