#pragma once
// What the array-element files share (element_*.cpp): location management,
// moves, insertion, numbered broadcasts and running entries. The protocol and
// why it delivers every message exactly once are in docs/design/migration.md;
// in short:
// - every element has a home PE (its map); the home learns every new location
//   (from the PE the element arrived at) and every insertion (before the
//   element is built), so a message that reaches the home can always be sent on;
// - a PE an element left keeps a pointer to where it went, and passes
//   messages on, flagged "via pointer"; since the element itself left first on
//   the same FIFO path, a flagged message that finds no element is buffered
//   until it arrives;
// - senders cache locations, corrected (newest epoch wins) by the PE where a
//   forwarded message finally ran.
#include <cstdint>
#include <string>

#include <roam/obj/detail/objects.hpp>

#include "pe_objects.hpp"

namespace roam::detail {

// Broadcasts kept for elements that arrive having missed some.
inline constexpr std::size_t broadcast_history = 256;
// Pointer-following hops after which a message asks the home instead.
inline constexpr std::uint32_t max_pointer_hops = 3;

inline std::uint32_t hops_of(const message& m) noexcept { return (m.flags & work_hop_mask) >> work_hop_shift; }
inline std::uint32_t my_pe() noexcept { return tls_pe->id(); }
inline std::uint32_t pe_total() noexcept { return tls_pe->runtime().num_pes; }
inline element_base& base_of(const local_collection& lc, void* obj) noexcept { return *lc.desc->elem->base(obj); }
inline std::string describe_element(const collection_desc* d, const index_storage& idx) {
  return describe_target(target_kind::element, d, idx, d->dims, "");
}

/// Runs one entry on an element, which can ask for things meanwhile.
inline void invoke_on(message* m, void* obj, element_base& b) noexcept {
  element_base* outer = tls_running_element;
  task_roots* outer_tasks = tls_task_owner;
  tls_running_element = &b;
  tls_task_owner = &element_access::tasks(b);
  invoke_guarded(m, obj);
  tls_running_element = outer;
  tls_task_owner = outer_tasks;
}
inline void invoke_on(local_collection& lc, message* m, void* obj) noexcept { invoke_on(m, obj, base_of(lc, obj)); }

// element_entries.cpp
/// Runs `m` (if any) on `obj`, then carries out what the element asked for
/// (migrate, destroy) and corrects the sender's cache when the message had
/// to be passed on to get here.
void run_entry(local_collection& lc, message* m, void* obj) noexcept;
/// Takes the element out of this PE's tables (it migrates or dies here).
void unlink(local_collection& lc, const index_storage& idx);
/// Installs a built element here.
void link(local_collection& lc, const index_storage& idx, void* obj);
/// Delivers the messages that waited for the element to arrive here.
void release_waiting(local_collection& lc, const index_storage& idx);
/// Destroys the element here and tells its home.
void destroy_here(local_collection& lc, const index_storage& idx, void* obj);

// element_locations.cpp
/// Passes `m` on to `pe`, keeping its original sender (for cache correction).
void pass_on(message* m, std::uint32_t pe, std::uint32_t how) noexcept;
/// Tells `to` (the home, or a sender with a stale cache) where the element is.
void send_news(const collection_desc* d, const index_storage& idx, std::uint32_t to, location where);
/// The home: sends the messages parked for an element not inserted yet on to `pe`.
void forward_parked(local_collection& lc, const index_storage& idx, std::uint32_t pe);

// element_moves.cpp
/// Migrates the element and its partners in bound arrays.
void migrate_with_partners(local_collection& lc, const index_storage& idx, void* obj, std::uint32_t dest);

// element_insertion.cpp
/// Builds element `idx` here with `make` (null: default), reporting a constructor that throws (null then).
void* build_element(const collection_desc* d, const index_storage& idx, make_fn make, const void* args);
/// Demand creation: builds a default element at its home.
void* create_on_demand(local_collection& lc, const index_storage& idx);

// element_broadcasts.cpp
/// Gives an element that arrived (or was inserted) the broadcasts this PE
/// delivered after the last one it saw.
void replay_broadcasts(local_collection& lc, const index_storage& idx, void* obj);

}  // namespace roam::detail
