#pragma once
// Array sections: process-wide immutable descriptors (src/obj/sections.cpp).
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
#include <roam/obj/detail/collections.hpp>

namespace roam::detail {

/// Where a section's members are for its multicasts: the PEs of the tree
/// and each one's members. Version 0 places members at their home PEs;
/// after members migrate the root builds later versions from where they
/// are (src/obj/section_regroup.cpp). Immutable, identical in every process.
struct section_layout {
  std::uint32_t version = 0;
  /// The tree's PEs by tree rank, the root first (the root stays in every
  /// version, with members or not, so that senders always reach it).
  std::vector<std::uint32_t> tree_pes;
  std::vector<std::vector<index_storage>> keys;  ///< member indices per tree rank
  /// (PE, tree rank) sorted by PE: a PE's rank.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> rank_of;
  /// The tree rank of `pe`, or ~0u when it is not in this version's tree.
  std::uint32_t rank(std::uint32_t pe) const noexcept;
};

/// An array section: a fixed subset of an array's elements. Process-wide and
/// immutable once its proxy exists, but for the multicast layouts that
/// regrouping appends. Its PEs (those hosting members, placed at their home)
/// form the spanning tree that section reductions travel, and multicasts
/// until the members migrate.
struct section_desc {
  std::uint32_t id = 0;
  const collection_desc* array = nullptr;
  std::vector<std::uint32_t> pes;                         ///< PEs hosting members at their home, ascending
  std::vector<std::vector<index_storage>> keys_by_rank;  ///< member indices per PE (by rank in `pes`); a group's: the PE
  std::uint64_t size = 0;
  /// Rank in `pes` of the multicast tree's root: the PE that made the
  /// section when it hosts members (an object multicasting to neighbours
  /// near it starts on its own PE), else the lowest. One root per section
  /// keeps every member seeing the multicasts in one order.
  std::uint32_t root = 0;
  std::vector<std::uint32_t> tree_pes;  ///< `pes` turned so that the root comes first: the tree's members by tree rank
  std::uint32_t root_pe() const noexcept { return pes.empty() ? 0 : pes[root]; }
  /// Multicast layouts by version (0: the home layout above). Guarded by the
  /// process's section table: read them through find_section_layout.
  std::vector<std::unique_ptr<const section_layout>> layouts;
};
/// Builds and registers a section of `array` from member indices (a group's:
/// the PE in v[0]; duplicates ignored), and tells every other process about it.
const section_desc* new_section(const collection_desc* array, std::vector<index_storage> keys);
const section_desc* find_section(std::uint32_t id) noexcept;
/// Pups a section pointer with everything needed to rebuild it in another process.
void pup_section(pup_er& p, const section_desc*& d);
/// Version `version` of the section's multicast layout, or nullptr while it
/// is not known in this process yet (its announcement is on the way).
const section_layout* find_section_layout(const section_desc* d, std::uint32_t version) noexcept;
/// Registers the next version, built on the section's root PE, in this
/// process (from the root's process, also tells every other one); releases
/// the multicasts that waited for it.
const section_layout* add_section_layout(const section_desc* d, std::vector<std::uint32_t> tree_pes,
                                         std::vector<std::vector<index_storage>> keys, std::uint32_t version,
                                         bool announce);

}  // namespace roam::detail
