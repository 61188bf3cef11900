#pragma once
// How long an idle PE spins before it sleeps, learned from the gaps it sees.
//
// A sleeping PE costs its sender a futex wake (a system call, ~2-5 µs here)
// and itself the wake-up latency (tens of µs on this VM) on the critical path.
// Fine-grained programs (a Jacobi sweep, a reduction per iteration) leave a PE
// idle for 10-200 µs between messages, again and again: with a fixed 50 µs
// spin they pay a wake every time. Programs that are really idle must not
// burn a core. So the spin budget follows the recent short gaps: it grows to
// twice the longest of them (up to +idlespinmax) while work keeps coming back
// within that bound, and halves after every gap longer than it, down to
// +idlespin. "Longest", decaying by 1/8 per episode, not "average": a PE
// typically idles a few times for nothing between two real waits (a Jacobi
// block between its ghosts, then for the reduction), and an average of those
// would drop the budget under the real wait.
// A PE that sees only long gaps therefore spins at most +idlespin per episode
// after a few of them; one in a steady fine-grained rhythm never sleeps.
#include <algorithm>
#include <chrono>
#include <cstdint>

namespace roam::detail {

class idle_policy {
 public:
  using ns = std::chrono::nanoseconds;

  idle_policy() = default;
  idle_policy(ns min_spin, ns max_spin, bool adaptive) noexcept
      : min_(min_spin), max_(std::max(min_spin, max_spin)), budget_(min_spin), adaptive_(adaptive) {}

  /// How long to spin in the next idle episode.
  ns budget() const noexcept { return budget_; }

  /// An idle episode ended after `gap` (spinning, or sleeping then woken).
  void episode(ns gap) noexcept {
    if (!adaptive_) return;
    if (gap <= max_) {
      // Work came back soon enough that spinning through the gap pays.
      peak_ = std::max(gap, peak_ - peak_ / 8);
      budget_ = std::clamp(peak_ * 2, min_, max_);
    } else {
      budget_ = std::max(min_, budget_ / 2);
      peak_ = budget_ / 2;
    }
  }

 private:
  ns min_{std::chrono::microseconds(50)};
  ns max_{std::chrono::microseconds(50)};
  ns budget_{std::chrono::microseconds(50)};
  ns peak_{0};  ///< the longest recent short gap, decaying by 1/8 per episode
  bool adaptive_ = false;
};

/// What a PE's idle moments cost (+idlestats prints them at exit).
struct idle_stats {
  std::uint64_t episodes = 0;       ///< times the PE found no work
  std::uint64_t slept = 0;          ///< of which it went to sleep
  std::uint64_t woken = 0;          ///< sleeps ended by a sender's wake (latency measured)
  std::uint64_t wakes_sent = 0;     ///< futex wakes this PE issued to sleeping PEs
  std::chrono::nanoseconds spinning{0}, asleep{0};
  std::chrono::nanoseconds wake_latency_total{0}, wake_latency_max{0};
};

}  // namespace roam::detail
