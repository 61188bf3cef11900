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

/// One reduction of an array being combined on this PE (see reductions.cpp:
/// arrays count contributions, because their elements move, appear and die).
struct array_slot {
  std::unique_ptr<partial_base> value;
  std::uint64_t count = 0;     ///< contributions folded in (this PE and its subtree)
  std::int64_t delta = 0;      ///< elements born minus died with this first/next number (same scope)
  std::uint32_t children = 0;  ///< tree children that flushed it
  bool started = false;        ///< this PE knows the reduction exists
};
/// The root's view of one array reduction.
struct array_root_slot {
  std::unique_ptr<partial_base> value;
  std::uint64_t count = 0;
  std::int64_t delta = 0;
  bool flushed = false;  ///< the whole tree passed it up
};
/// The local elements of one array by their next reduction number, as the
/// flush asks for it: how many owe reduction `seq`, i.e. have a next number at
/// or below it. Every contribution moves one element up by one and every
/// contribution checks whether the PE may flush, so both are O(1) in the
/// common case (a window of counts starting at the lowest number asked
/// about); numbers beyond the window (elements far ahead) are kept in a map,
/// and elements below it (migrants that arrived late) only as a total, since
/// they all owe every reduction from the window's start on.
class next_numbers {
 public:
  /// `n` elements whose next number is `next` arrived (n > 0) or left (n < 0).
  void add(std::uint32_t next, std::int64_t n) {
    if (next < base_) {
      behind_ += n;
    } else if (next - base_ < window) {
      counts_[next % window] += n;
    } else {
      auto& v = far_[next];
      v += n;
      if (v == 0) far_.erase(next);
    }
  }
  /// An element contributed to reduction `from`: its next number is from + 1.
  void step(std::uint32_t from) {
    if (from >= base_ && from + 1 - base_ < window) [[likely]] {
      --counts_[from % window];
      ++counts_[(from + 1) % window];
      return;
    }
    add(from, -1);
    add(from + 1, 1);
  }
  /// Elements that still owe reduction `seq`. `seq` never goes below an
  /// earlier call's: numbers under it are from then on only counted in total.
  std::int64_t owing(std::uint32_t seq) {
    while (base_ < seq) advance();
    return behind_ + counts_[seq % window];
  }

 private:
  static constexpr std::uint32_t window = 32;
  void advance() {
    std::int64_t& first = counts_[base_ % window];
    behind_ += first;
    first = 0;
    ++base_;
    // The number that just entered the window at its end.
    if (!far_.empty() && far_.begin()->first == base_ + window - 1) {
      counts_[far_.begin()->first % window] = far_.begin()->second;
      far_.erase(far_.begin());
    }
  }
  std::uint32_t base_ = 0;  ///< the window's first number
  std::int64_t behind_ = 0;  ///< elements whose next number is below base_
  std::int64_t counts_[window] = {};  ///< by next number modulo window, for base_ .. base_ + window - 1
  std::map<std::uint32_t, std::int64_t> far_;  ///< from base_ + window on
};

/// This PE's part in the reductions of one array (tree over all PEs).
struct array_reductions {
  std::string name;
  std::uint32_t parent = 0;
  std::vector<std::uint32_t> children;
  bool root = false;
  bool constructed = false;            ///< the array's initial members are built here
  std::uint32_t next_flush = 0;        ///< the lowest reduction this PE has not passed up
  next_numbers here;                   ///< local elements by their next reduction number
  std::map<std::uint32_t, array_slot> slots;
  // Root only:
  std::int64_t population = 0;         ///< elements that take part in reduction next_result, before its own delta
  std::uint32_t next_result = 0;
  std::map<std::uint32_t, array_root_slot> at_root;
};

/// A counting wave in progress on this PE (waves.cpp).
struct wave_state {
  std::uint32_t pending_children = 0;
  std::uint64_t a = 0, b = 0;
};

/// Decides "nothing moved" from two consecutive waves: both report a == b
/// with the same totals.
struct two_wave_check {
  bool have_previous = false;
  std::uint64_t previous_a = 0, previous_b = 0;
  /// Records a wave; true when it confirms the previous one.
  bool settled(std::uint64_t a, std::uint64_t b) {
    bool ok = a == b && have_previous && previous_a == a && previous_b == b;
    have_previous = !ok;
    previous_a = a;
    previous_b = b;
    return ok;
  }
};

/// Quiescence detection, on PE 0.
struct quiescence_state {
  std::vector<callback<void>> waiting;
  bool wave_active = false;
  two_wave_check check;
};

/// A completion detector: counters on every PE, the decision on PE 0.
struct completion_counts {
  std::uint64_t produced = 0, consumed = 0;
};
struct completion_root {
  bool started = false;
  std::uint64_t producers = 0, done = 0;
  callback<void> finished;
  bool wave_active = false;
  two_wave_check check;
};

/// Reductions are keyed by what they reduce over: a collection, or a section.
enum class reduction_scope : std::uint64_t { collection = 0, section = 1 };
constexpr std::uint64_t reduction_key(reduction_scope s, std::uint32_t id) noexcept {
  return (static_cast<std::uint64_t>(s) << 32) | id;
}

struct coll_state {
  std::unordered_map<std::uint64_t, collection_reductions> reductions;
  std::unordered_map<std::uint32_t, array_reductions> arrays;  ///< by array id
  std::uint32_t last_array_id = 0;          ///< the array state_of found last (array_reductions.cpp)
  array_reductions* last_array = nullptr;
  /// Section reductions are numbered per (section, member): the member's count so far.
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::uint32_t> section_counts;
  quiescence_state qd;
  std::unordered_map<std::uint64_t, wave_state> waves;              ///< by wave tag
  std::unordered_map<std::uint32_t, completion_counts> completion;  ///< by detector id
  std::unordered_map<std::uint32_t, completion_root> completion_roots;  ///< PE 0 only
};

coll_state& local_coll_state() noexcept;

}  // namespace roam::detail
