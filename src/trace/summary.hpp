#pragma once
// +summary: aggregates only, kept per PE while the run goes (per entry method
// count, total and longest time; per PE busy, idle, messages and bytes;
// utilization over time in bins) and reported at exit as a table, and as JSON
// with +summary=FILE.
#include <cstdint>
#include <string>
#include <vector>

#include <roam/sched/detail/runtime_state.hpp>
#include <roam/sched/observe.hpp>

namespace roam::trace::detail {

struct entry_stats {
  std::uint64_t id = 0;  ///< entry id; 0: coroutine task resumptions
  std::uint64_t count = 0;
  std::uint64_t total = 0;  ///< ticks, inclusive of nested entries
  std::uint64_t longest = 0;
};

/// One PE's aggregates; written only by that PE's thread.
struct alignas(64) pe_summary {
  std::vector<entry_stats> table = std::vector<entry_stats>(64);  ///< open addressing by id (id 0 in slot 0)
  std::size_t used = 0;
  /// The last entry not nested in another ended without a clock reading
  /// (this observer does not need end times): it lasted until the PE's next
  /// timed event (the next entry's begin, idle, or the PE's stop).
  bool pending = false;
  struct ended_entry {
    std::uint64_t id;  ///< not a pointer: a nested entry counted meanwhile may grow the table
    std::uint64_t begin;
  } ended{};
  std::uint64_t busy = 0, idle = 0, idle_since = 0;
  std::uint64_t first = 0, stopped = 0;  ///< the PE's first entry begin, and when it stopped
  std::uint64_t sent = 0, sent_bytes = 0, received = 0, received_bytes = 0;
  std::vector<std::uint64_t> bins;  ///< busy ticks per bin
  std::uint64_t bin_ticks = 0;
  // Fast paths: the entry last counted, and the bin last filled.
  entry_stats* last_stats = nullptr;
  std::uint64_t last_bin_begin = 1, last_bin_end = 0;  ///< ticks [begin, end) of bins[last_bin]
  std::size_t last_bin = 0;

  entry_stats& stats(std::uint64_t id) noexcept {
    if (last_stats && last_stats->id == id) [[likely]]
      return *last_stats;
    return *(last_stats = &lookup(id));
  }
  entry_stats& lookup(std::uint64_t id) noexcept;
  void close_pending(std::uint64_t origin, std::uint64_t now) noexcept;
  void add_time(std::uint64_t origin, entry_stats& s, std::uint64_t begin, std::uint64_t end, bool top) noexcept;
  void add_busy(std::uint64_t origin, std::uint64_t from, std::uint64_t to) noexcept;
};

class summary_observer final : public runtime_observer {
 public:
  explicit summary_observer(const roam::detail::runtime_state& rt);
  /// One clock reading per entry: the begin (shared with its message's receipt); under
  /// +deterministic, where every PE shares one thread, the end too. No begin calls: the
  /// end event carries the begin's reading.
  std::uint32_t needs() const noexcept override { return needs_; }
  void pe_stopped(std::uint32_t pe, std::uint64_t ticks) noexcept override;
  void entry_end(const entry_event& e) noexcept override;
  void message_sent(const message_event& e) noexcept override;
  void message_received(const message_event& e) noexcept override;
  void idle_begin(std::uint32_t pe, std::uint64_t ticks) noexcept override;
  void idle_end(std::uint32_t pe, std::uint64_t ticks) noexcept override;

  /// Prints the table (and writes the JSON file); every PE has stopped.
  void report(const roam::detail::runtime_state& rt);

 private:
  pe_summary* of(std::uint32_t pe) noexcept {
    const std::uint32_t i = pe - first_pe_;
    return i < pes_.size() ? &pes_[i] : nullptr;
  }
  std::uint32_t needs_;
  std::uint32_t first_pe_;
  std::uint64_t origin_;
  std::vector<pe_summary> pes_;
};

}  // namespace roam::trace::detail
