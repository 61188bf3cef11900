#pragma once
// What the checkpoint layer (src/ft/) needs of the object tables: every
// object of a PE packed with what identifies it, the runtime work a cut
// cannot carry (messages parked for objects), and the rebuilding of objects
// from saved state in a fresh run. All of it runs on the PE's own thread.
// docs/design/checkpoint.md.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <roam/msg/buffer.hpp>
#include <roam/msg/pup.hpp>
#include <roam/obj/detail/objects.hpp>
#include <roam/sched/observe.hpp>

namespace roam::detail {

/// Who a saved object is: enough to rebuild it in a run of any size.
struct saved_object {
  object_kind kind = object_kind::none;
  collection_wire collection;  ///< its collection (arrays, groups, nodegroups)
  index_storage index;         ///< an element's index; a group member's PE in v[0]
  std::uint64_t chare_id = 0;  ///< chares
  std::uint32_t home = 0;      ///< chares: the PE their proxies name (birth PE)
  std::uint64_t class_id = 0;  ///< stable hash of the class name
  std::uint32_t pe = 0;        ///< the PE it was on
  std::uint32_t node = 0;      ///< the process it was in (nodegroup members)
  std::uint32_t restarts = 0;  ///< suspended restart-entry tasks, started again after a restart
  std::string name;            ///< "array cell[1,2,3]", for reports
  void pup(pup_er& p) {
    auto k = static_cast<std::uint8_t>(kind);
    p | k | collection;
    for (auto& v : index.v) p | v;
    p | chare_id | home | class_id | pe | node | restarts | name;
    kind = static_cast<object_kind>(k);
  }
};

/// Hands the calling PE's objects one by one to `sink`, with the class ops
/// that pack them (`state_size`, `pack_to`: the sink packs into memory of
/// its own, reused batch after batch). Returns why an object cannot be saved
/// (naming it; a pup that throws in the sink too), or empty; objects handed
/// over before a refusal are to be thrown away.
std::string pack_objects_for_checkpoint(
    const std::function<void(saved_object&& who, const class_ops& cls, void* obj)>& sink);

/// Messages the calling PE's object tables hold back (for objects not here
/// yet, broadcasts waiting for insertions...): a checkpoint at this cut
/// would lose them. Empty when there are none; else says what and for whom.
std::string parked_work_here();

/// A layer's part in a restart (src/ft/restore.cpp), for process-wide state
/// the restored objects bring that every process must know before any runs
/// (the isomalloc slots of restored migratable threads: a new thread must
/// not take one, wherever it starts). Once every PE has rebuilt its objects,
/// `collect` runs on each PE; before any PE resumes, `install` runs on the
/// first PE of every process with what all of them collected. One layer
/// registers it (iso); none: nothing is exchanged.
struct restart_exchange {
  std::vector<std::uint64_t> (*collect)() = nullptr;
  void (*install)(const std::vector<std::uint64_t>& everyone) = nullptr;
};
void register_restart_exchange(restart_exchange x) noexcept;
restart_exchange registered_restart_exchange() noexcept;

/// Every collection descriptor this process knows, in wire form.
std::vector<collection_wire> known_collections();
/// The highest program-wide id (collection, section, detector) this process
/// has given out or seen restored; a restarted program gives out only higher ones.
std::uint32_t highest_program_wide_id() noexcept;
void restore_id_floor(std::uint32_t highest) noexcept;

/// Where a saved object lives in a run of `pes` PEs and `nodes` processes
/// (docs/design/checkpoint.md: elements at their map's home, a chare at its
/// birth PE modulo the PE count, group member p from saved member p (or
/// p mod the saved count), nodegroup member of process n from saved process
/// n (or n mod)). For groups and nodegroups, `source` says which saved member
/// the new member on `pe` / `node` is unpacked from.
std::uint32_t restored_element_pe(const saved_object& o);
std::uint32_t saved_member_for(std::uint32_t new_member, std::uint32_t saved_members) noexcept;

/// Rebuilds an object on the calling PE from its saved state (no restart
/// entry started yet: restart_restored_tasks does that once every PE has
/// rebuilt its objects). Throws (pup_error, logic_error) with a reason; the
/// caller names the object and aborts the restart.
void restore_element(const saved_object& o, std::span<const std::byte> state);
void restore_chare(const saved_object& o, std::span<const std::byte> state);
/// A group member on this PE (o: the saved member it is unpacked from).
void restore_group_member(const saved_object& o, std::span<const std::byte> state);
/// This process's nodegroup member (on its first PE).
void restore_nodegroup_member(const saved_object& o, std::span<const std::byte> state);
/// Every array and group of the checkpoint counts as built on this PE from
/// now on (messages that waited for it run, reductions may flush).
void finish_restored_collections(std::span<const collection_wire> collections);
/// Ids of chares on this PE's creator slot in the checkpoint: new chares get higher ones.
void reserve_chare_ids(std::uint64_t highest_seq) noexcept;
/// Starts the restart entries of the objects this PE rebuilt, as after a packed move.
void restart_restored_tasks();

/// Between the runtimes of a recovery (none running): forgets every
/// collection and section descriptor of the process, so that the restored
/// ones are rebuilt for the new layout (a section's PEs, a nodegroup's member).
void forget_process_objects() noexcept;

}  // namespace roam::detail
