#pragma once
/// How far ahead a PE of the optimistic engine runs, following its rollbacks
/// (engine_options: adaptive_batch, auto_optimism, target_efficiency;
/// docs/design/pdes.md, "Optimism").
#include <algorithm>
#include <cstdint>
#include <limits>

#include <roam/pdes/model.hpp>
#include <roam/pdes/options.hpp>

namespace roam::pdes::detail {

/// Two knobs, turned by the share of a PE's recent events that were undone.
/// Every `every` events (looked at when a GVT arrives) it compares that
/// share with the budget 1 - target_efficiency. Above it, first the slice
/// halves (the other PEs' events get in sooner), down to a quarter of
/// `batch`; then the window beyond GVT narrows by a fifth per look,
/// starting from how far beyond GVT the PE actually ran. Under half the
/// budget the slice doubles back, and the window widens by a fifth if it
/// held the PE back. The window never goes below the lookahead (the
/// conservative scheduler's window, which never rolls back) and the least
/// pending event is always inside it, so it never stops progress.
class optimism_control {
 public:
  static constexpr std::uint64_t every = 4096;

  explicit optimism_control(const engine_options& o)
      : batch_max_(o.batch),
        batch_min_(o.adaptive_batch ? std::max<std::uint32_t>(1, o.batch / 4) : o.batch),
        windowed_(o.mode != synch::conservative && o.auto_optimism && o.max_optimism == infinite_time),
        budget_(1 - o.target_efficiency),
        floor_(o.lookahead > 0 ? o.lookahead : std::numeric_limits<sim_time>::min()),
        batch_(o.batch) {}

  std::uint32_t batch() const noexcept { return batch_; }
  /// How far beyond GVT events may run (infinite: no bound yet).
  sim_time window() const noexcept { return window_; }
  std::uint64_t batch_halvings() const noexcept { return halvings_; }
  std::uint64_t window_narrowings() const noexcept { return narrowings_; }

  /// The window stopped a slice since the last look.
  void held() noexcept { held_ = true; }

  /// A new GVT: `processed` and `rolled_back` are the PE's running totals,
  /// `furthest` the latest timestamp it ran.
  void observe(std::uint64_t processed, std::uint64_t rolled_back, sim_time furthest, sim_time gvt) noexcept {
    const std::uint64_t ran = processed - processed_mark_;
    if (ran < every) return;  // too few to judge (GVT rounds can be a few events apart)
    const double share = static_cast<double>(rolled_back - rolled_back_mark_) / static_cast<double>(ran);
    const bool held = held_;
    held_ = false;
    skip_to(processed, rolled_back);
    if (share > budget_) {
      if (batch_ > batch_min_) {
        batch_ = std::max(batch_min_, batch_ / 2);
        ++halvings_;
      } else if (windowed_) {
        sim_time w = window_ != infinite_time ? window_ : furthest > gvt ? furthest - gvt : floor_;
        window_ = std::max(floor_, 0.8 * w);
        ++narrowings_;
      }
    } else if (share < budget_ / 2) {
      batch_ = std::min(batch_max_, batch_ * 2);
      if (held && window_ != infinite_time) window_ *= 1.2;
    }
  }

  /// Forget the events up to these totals (a balancing or checkpoint step
  /// rolled every LP back to GVT: not a sign of too much optimism).
  void skip_to(std::uint64_t processed, std::uint64_t rolled_back) noexcept {
    processed_mark_ = processed;
    rolled_back_mark_ = rolled_back;
  }

 private:
  std::uint32_t batch_max_, batch_min_;
  bool windowed_;
  double budget_;
  sim_time floor_;
  std::uint32_t batch_;
  sim_time window_ = infinite_time;
  bool held_ = false;
  std::uint64_t processed_mark_ = 0, rolled_back_mark_ = 0;
  std::uint64_t halvings_ = 0, narrowings_ = 0;
};

}  // namespace roam::pdes::detail
