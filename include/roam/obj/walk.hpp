#pragma once
// Object walking: what load balancing and checkpointing need from a PE.
// Every object the calling PE hosts can be enumerated with its kind,
// identity, type, migratability and a measured-load slot; packed and
// unpacked in place through its pup; and, if migratable, moved to another
// PE. All of it runs on the PE's own thread (inside an entry, a task or a
// control message of that PE): the tables walked are that PE's alone.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

#include <roam/msg/buffer.hpp>
#include <roam/sched/observe.hpp>

namespace roam {

struct local_object {
  object_identity id;
  std::string_view type_name;  ///< the class: "cell"
  void* obj = nullptr;         ///< the object (its most-derived type is type_name)
  bool migratable = false;     ///< an array element or chare with pup and a migrating constructor
  bool packable = false;       ///< has a pup: pack_local_object and unpack_local_object work
  /// Takes part in load balancing at sync points (its type has resume_from_sync()); `resume_from_sync`
  /// calls it.
  void (*resume_from_sync)(void* obj) = nullptr;
  /// The measured-load slot: the balancer's to fill and read (seconds, say),
  /// kept with the object's record on this PE and reset to 0 when it arrives
  /// elsewhere. Valid until this PE next runs a message.
  double* load = nullptr;
};

namespace detail {
void walk_local_objects(void (*fn)(void* ctx, const local_object&), void* ctx);
}  // namespace detail

/// Calls `fn(const local_object&)` for every object on the calling PE: its
/// singleton chares, then its members of each array and group (collection
/// order, members oldest first), then, on each process's first PE only (so
/// that each is seen once), this process's nodegroup members. `fn` must not
/// create, move or destroy objects (it may record what to do afterwards).
template <class F>
void for_each_local_object(F&& fn) {
  detail::walk_local_objects([](void* ctx, const local_object& o) { (*static_cast<std::remove_reference_t<F>*>(ctx))(o); },
                             const_cast<void*>(static_cast<const void*>(&fn)));
}

/// The object with this identity on the calling PE, if it is here.
std::optional<local_object> find_local_object(const object_identity& id);

/// The object's state through its pup (the same bytes a packed migration
/// carries). Throws std::logic_error for a type without pup.
bytes pack_local_object(const local_object& o);
/// Overwrites the object's state with `state` (from pack_local_object of an
/// object of the same type), through its pup. Throws pup_error for state that
/// does not unpack (nothing is lost: the caller still has the bytes), and
/// std::logic_error for a type without pup.
void unpack_local_object(const local_object& o, std::span<const std::byte> state);

/// Moves the migratable object to PE `pe` (the load balancer's call): after
/// the running entry, if called from one of its own entries; at once
/// otherwise (or once its threaded entries end). False, with nothing done,
/// if it is not here or cannot migrate.
bool migrate_local_object(const object_identity& id, std::uint32_t pe);

}  // namespace roam
