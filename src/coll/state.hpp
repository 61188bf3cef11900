#pragma once
// Per-PE state of the collectives layer, kept in the scheduler's
// `collectives` slot; only its own PE's thread touches it.
#include <cstdint>
#include <map>
#include <string>
#include <memory>
#include <unordered_map>
#include <vector>

#include <roam/coll/callback.hpp>
#include <roam/coll/reduction.hpp>

namespace roam::detail {

/// One reduction being combined on this PE.
struct reduction_slot {
  std::uint32_t local = 0;     ///< contributions of this PE's members
  std::uint32_t children = 0;  ///< partials received from tree children
  std::unique_ptr<partial_base> value;
};

/// This PE's part in the reductions of one collection or one section.
struct collection_reductions {
  std::string name;                    ///< for error reports: "array cell", "section 3 of array cell"
  std::vector<std::uint32_t> members;  ///< PEs hosting members, in tree-rank order
  std::uint32_t rank = 0;
  std::uint32_t parent = 0;
  std::uint32_t child_count = 0;
  std::uint32_t local_expected = 0;  ///< members on this PE
  std::uint32_t next_result = 0;     ///< root: the reduction number delivered next
  std::map<std::uint32_t, reduction_slot> slots;
  std::map<std::uint32_t, std::unique_ptr<partial_base>> finished;  ///< root: complete, waiting for earlier ones
};

/// Quiescence detection: waves of count sums over the PE tree.
struct quiescence_state {
  // root (PE 0)
  std::vector<callback<void>> waiting;
  bool wave_active = false;
  bool have_previous = false;
  std::uint64_t previous_created = 0, previous_processed = 0;
  // every PE, during a wave
  std::uint32_t pending_children = 0;
  std::uint64_t sum_created = 0, sum_processed = 0;
};

/// Reductions are keyed by what they reduce over: a collection, or a section.
enum class reduction_scope : std::uint64_t { collection = 0, section = 1 };
constexpr std::uint64_t reduction_key(reduction_scope s, std::uint32_t id) noexcept {
  return (static_cast<std::uint64_t>(s) << 32) | id;
}

struct coll_state {
  std::unordered_map<std::uint64_t, collection_reductions> reductions;
  /// Section reductions are numbered per (section, member): the member's count so far.
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::uint32_t> section_counts;
  quiescence_state qd;
};

coll_state& local_coll_state() noexcept;

}  // namespace roam::detail
