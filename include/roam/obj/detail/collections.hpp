#pragma once
// Collections (arrays, groups, nodegroups): the process-wide immutable
// descriptor made before a proxy is returned (src/obj/descriptors.cpp), the
// class, map and element-type registries that rebuild a descriptor from its
// wire form in another process, program-wide ids, bound arrays, and the
// index arithmetic of dense arrays. Ids are unique program-wide without
// coordination: process n of N numbers its k-th collection k * N + n + 1.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <roam/msg/buffer.hpp>
#include <roam/msg/detail/control.hpp>
#include <roam/msg/detail/entry.hpp>
#include <roam/msg/detail/wire.hpp>
#include <roam/obj/detail/element_base.hpp>
#include <roam/obj/detail/migratable.hpp>
#include <roam/obj/send_options.hpp>
#include <roam/sched/observe.hpp>

namespace roam::detail {

/// How to destroy an object of a user class without knowing its type.
struct class_ops {
  std::string_view name;
  void (*destroy)(void*) noexcept;
  std::uint64_t id;  ///< stable hash of the name: the same in every process
  /// The state through T's pup, and back into an existing T (null: T has no
  /// pup). What object walking packs any object with (roam/obj/walk.hpp).
  bytes (*pack)(void* obj) = nullptr;
  void (*unpack_into)(void* obj, std::span<const std::byte> state) = nullptr;
  /// The same state's size, and the state packed into memory of exactly that
  /// size (a checkpoint packs into buffers it reuses).
  std::size_t (*state_size)(void* obj) = nullptr;
  void (*pack_to)(void* obj, std::span<std::byte> out) = nullptr;
  /// A T to unpack a saved state into: T(roam::migrating{}) or T() (null:
  /// neither exists). Runs under a construction context. What a checkpoint
  /// rebuilds group and nodegroup members with.
  void* (*make_blank)() = nullptr;
};
template <class T>
bytes pack_object_state(void* obj) {
  T& t = *static_cast<T*>(obj);
  bytes out = bytes::uninitialized(packed_size(t));
  pack_into(out.mutable_span(), t);
  return out;
}
template <class T>
void unpack_object_state(void* obj, std::span<const std::byte> state) {
  unpack_into(state, *static_cast<T*>(obj));
}
template <class T>
std::size_t object_state_size(void* obj) {
  return packed_size(*static_cast<T*>(obj));
}
template <class T>
void pack_object_state_to(void* obj, std::span<std::byte> out) {
  pack_into(out, *static_cast<T*>(obj));
}
template <class T>
constexpr class_ops make_class_ops() {
  class_ops ops{type_name<T>(), [](void* p) noexcept { delete static_cast<T*>(p); }, stable_hash(type_name<T>())};
  if constexpr (serializable<T>) {
    ops.pack = &pack_object_state<T>;
    ops.unpack_into = &unpack_object_state<T>;
    ops.state_size = &object_state_size<T>;
    ops.pack_to = &pack_object_state_to<T>;
  }
  if constexpr (std::is_constructible_v<T, migrating>) ops.make_blank = []() -> void* { return new T(migrating{}); };
  else if constexpr (std::is_default_constructible_v<T>) ops.make_blank = []() -> void* { return new T(); };
  return ops;
}
template <class T>
inline constexpr class_ops class_ops_for = make_class_ops<T>();
/// Registers a class so that descriptors naming it can be rebuilt from the wire.
bool register_class(const class_ops* cls);
/// Odr-used by every create_* of T, so every process registers T at start-up.
template <class T>
inline const bool class_registered = register_class(&class_ops_for<T>);

enum class collection_kind : std::uint8_t { array, group, nodegroup };

/// Index -> home PE for a dense array with extents `shape` of `dims` dimensions.
using map_fn = std::uint32_t (*)(const index_storage& idx, const index_storage& shape, std::uint8_t dims,
                                 std::uint32_t pes);

/// Registers a map under its name (block, round_robin and every custom_map<&fn> do).
bool register_map(std::string_view name, map_fn fn);

/// What the runtime does with an array element of a type it does not know:
/// find its base, print its index, build one on demand, and move it.
struct element_ops {
  std::uint64_t cls_id = 0;
  element_base* (*base)(void* obj) noexcept = nullptr;
  std::string (*format_index)(const index_storage&) = nullptr;
  /// Demand creation: a default-built T (null: T has no default constructor).
  void* (*make_default)() = nullptr;
  const move_ops* moves = nullptr;
  std::string_view class_name;  ///< for reports
};
/// Registers an element type so descriptors naming it can be rebuilt from the wire.
bool register_element_ops(const element_ops* ops);

/// Immutable after creation, except the nodegroup member, which is set once when it is built.
struct collection_desc {
  std::uint32_t id = 0;
  collection_kind kind = collection_kind::array;
  const class_ops* cls = nullptr;
  std::uint8_t dims = 0;
  index_storage shape;
  std::uint64_t volume = 0;
  map_fn map = nullptr;
  std::string map_name;
  std::atomic<void*> node_member{nullptr};  ///< nodegroup: this process's member
  mutable double node_load = 0;              ///< nodegroup: its measured-load slot (roam/obj/walk.hpp)
  mutable std::mutex exclusive;    ///< nodegroup: held while an exclusive entry runs
  // Arrays:
  bool sparse = false;           ///< created empty: elements exist once inserted
  bool user_index = false;       ///< indexed by a user type (24 bytes compared whole), no extents
  bool demand_creation = false;  ///< a message for a missing element creates it at its home
  std::uint32_t bound_to = 0;    ///< the array this one is bound to (its elements move together), 0: none
  const element_ops* elem = nullptr;
  /// Set once an element of it has moved, been inserted or destroyed in this
  /// process (or news of that arrived): senders then consult location caches.
  mutable std::atomic<bool> dynamic{false};
};

/// A collection descriptor as it travels between processes.
struct collection_wire {
  std::uint32_t id = 0;
  std::uint8_t kind = 0;
  std::uint8_t dims = 0;
  std::uint64_t cls = 0;
  std::uint64_t map = 0;
  std::uint64_t volume = 0;
  index_storage shape;
  std::uint8_t array_flags = 0;  ///< bit 0 sparse, 1 user index, 2 demand creation
  std::uint32_t bound_to = 0;
  void pup(pup_er& p) {
    p | id | kind | dims | cls | map | volume;
    for (auto& v : shape.v) p | v;
    p | array_flags | bound_to;
  }
};
collection_wire to_wire(const collection_desc* d);
/// The descriptor `w` describes: this process's copy, made now if it has none.
/// Throws pup_error when the class or map is unknown here (a different binary).
const collection_desc* ensure_collection(const collection_wire& w);
/// Pups a descriptor pointer as its wire form (what every proxy's pup does).
template <class P>
void pup_collection(P& p, const collection_desc*& d) {
  collection_wire w;
  if (!p.is_unpacking() && d) w = to_wire(d);
  p | w;
  if (p.is_unpacking()) d = w.id ? ensure_collection(w) : nullptr;
}

/// The id of this process's `seq`-th object of some kind (collection, section,
/// completion detector), unique in the whole program: k * N + n + 1 for process n of N.
std::uint32_t program_wide_id(std::uint32_t seq);

/// Records which arrays are bound together (their elements migrate together).
void register_binding(const collection_desc* d);
/// The arrays bound with `d` (including d), known in this process.
std::vector<const collection_desc*> bound_group(const collection_desc* d);

/// Registers a new collection and returns its descriptor (lives until the process ends).
collection_desc* new_collection(collection_kind kind, const class_ops* cls);
/// The descriptor with this id, or nullptr (proxies read from messages).
const collection_desc* find_collection(std::uint32_t id) noexcept;

/// Row-major linear index inside `shape`.
inline std::uint64_t linearize(const index_storage& i, const index_storage& shape, std::uint8_t dims) noexcept {
  std::uint64_t l = 0;
  for (int k = 0; k < dims; ++k) l = l * static_cast<std::uint64_t>(shape.v[k]) + static_cast<std::uint64_t>(i.v[k]);
  return l;
}
/// The index at row-major position `l` inside `shape` (the inverse of linearize).
inline index_storage delinearize(std::uint64_t l, const index_storage& shape, std::uint8_t dims) noexcept {
  index_storage i;
  for (int k = dims - 1; k >= 0; --k) {
    i.v[k] = static_cast<std::int32_t>(l % static_cast<std::uint64_t>(shape.v[k]));
    l /= static_cast<std::uint64_t>(shape.v[k]);
  }
  return i;
}
inline bool inside(const index_storage& i, const index_storage& shape, std::uint8_t dims) noexcept {
  for (int k = 0; k < dims; ++k)
    if (i.v[k] < 0 || i.v[k] >= shape.v[k]) return false;
  return true;
}

}  // namespace roam::detail
