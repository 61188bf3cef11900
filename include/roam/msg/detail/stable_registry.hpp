#pragma once
// One registry for everything the runtime finds by a stable 64-bit id (a
// hash of a compiler-printed name, the same in every process of one binary):
// entries, classes, element and chare types, maps, callback kinds, reduction
// partial kinds, reducers. Filled during static initialisation (or before
// roam::run). Two different things under one id are a collision: each
// registry keeps the first and records the pair, and one start-up check
// (src/msg/stable_registry.cpp) reports every collision of every registry,
// naming the registry, the id and both names, before any PE runs user code.
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace roam::detail {

class registry_base {
 public:
  /// `kind` names the registry in reports ("entry", "class", ...); the
  /// registry joins the list the start-up check walks.
  explicit registry_base(std::string_view kind);
  registry_base(const registry_base&) = delete;
  registry_base& operator=(const registry_base&) = delete;

  std::string_view kind() const noexcept { return kind_; }
  /// One line per collision so far: "<kind> id 0x...: 'first' and 'second'".
  std::vector<std::string> collisions() const;
  /// Every id registered so far (any order).
  virtual std::vector<std::uint64_t> ids() const = 0;

 protected:
  /// Leaves the list (registries are function-local statics; tests make short-lived ones).
  ~registry_base();
  /// The caller holds mutex_.
  void record_collision(std::uint64_t id, std::string_view first, std::string_view second);
  mutable std::mutex mutex_;

 private:
  std::string_view kind_;
  std::vector<std::string> collisions_;
};

/// V is compared with ==: pass something unique per registered thing (the
/// address of an inline variable or function, or a name), so that the same
/// thing registered from several translation units is not a collision.
template <class V>
class stable_registry final : public registry_base {
 public:
  using registry_base::registry_base;

  /// Registers `value`, called `name` in reports, under `id`. Returns true
  /// (so it can initialise a static flag); a collision keeps the first.
  bool add(std::uint64_t id, V value, std::string_view name) {
    std::lock_guard lock(mutex_);
    auto [it, fresh] = map_.try_emplace(id, slot{value, std::string(name)});
    if (!fresh && !(it->second.value == value)) record_collision(id, it->second.name, name);
    return true;
  }
  /// The value under `id`, or V{} when there is none.
  V find(std::uint64_t id) const {
    std::lock_guard lock(mutex_);
    auto it = map_.find(id);
    return it == map_.end() ? V{} : it->second.value;
  }
  /// The value and its name under `id`; false when there is none.
  bool find(std::uint64_t id, V& value, std::string& name) const {
    std::lock_guard lock(mutex_);
    auto it = map_.find(id);
    if (it == map_.end()) return false;
    value = it->second.value;
    name = it->second.name;
    return true;
  }
  std::vector<std::uint64_t> ids() const override {
    std::lock_guard lock(mutex_);
    std::vector<std::uint64_t> out;
    out.reserve(map_.size());
    for (const auto& [id, s] : map_) out.push_back(id);
    return out;
  }
  /// Calls fn(id, value, name) for every entry, under the registry's lock.
  template <class F>
  void for_each(F&& fn) const {
    std::lock_guard lock(mutex_);
    for (const auto& [id, s] : map_) fn(id, s.value, std::string_view(s.name));
  }

 private:
  struct slot {
    V value;
    std::string name;
  };
  std::unordered_map<std::uint64_t, slot> map_;
};

/// Every collision of every registry, one per line after a heading; empty
/// when there is none (what the start-up check reports).
std::string registry_collision_report();

/// A hash of every id of every registry (entries, classes, maps, callback
/// kinds, reducers...): the same for every run of one binary, different for a
/// program whose entry table differs. What a checkpoint is checked against.
std::uint64_t program_registry_hash();

}  // namespace roam::detail
