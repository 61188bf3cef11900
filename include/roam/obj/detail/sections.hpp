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

/// An array section: a fixed subset of an array's elements. Process-wide and
/// immutable once its proxy exists. Its PEs (those hosting members) form the
/// spanning tree that multicasts and section reductions travel.
struct section_desc {
  std::uint32_t id = 0;
  const collection_desc* array = nullptr;
  std::vector<std::uint32_t> pes;                         ///< PEs hosting members, ascending
  std::vector<std::vector<index_storage>> keys_by_rank;  ///< member indices per PE (by tree rank); a group's: the PE
  std::uint64_t size = 0;
  /// Rank in `pes` of the multicast tree's root: the PE that made the
  /// section when it hosts members (an object multicasting to neighbours
  /// near it starts on its own PE), else the lowest. One root per section
  /// keeps every member seeing the multicasts in one order.
  std::uint32_t root = 0;
  std::vector<std::uint32_t> tree_pes;  ///< `pes` turned so that the root comes first: the tree's members by tree rank
};
/// Builds and registers a section of `array` from member indices (a group's:
/// the PE in v[0]; duplicates ignored), and tells every other process about it.
const section_desc* new_section(const collection_desc* array, std::vector<index_storage> keys);
const section_desc* find_section(std::uint32_t id) noexcept;
/// Pups a section pointer with everything needed to rebuild it in another process.
void pup_section(pup_er& p, const section_desc*& d);

}  // namespace roam::detail
