#pragma once
// +MetaLB: whether a sync step balances, and with which strategy, decided on
// global PE 0 from the measured loads of each step (the program calls
// at_sync every step or every few; each one is a chance to balance).
//
// When: an unbalanced step costs its PEs the excess of the most loaded PE
// over the average, beyond what balancing could remove (the imbalance left
// right after the last balancing step, which indivisible objects make
// unavoidable, and never less than 2% of the average: noise). Those excesses add up from step to step; a linear fit of
// them over the steps since the last balancing predicts the next one. The
// step balances once the excess paid so far plus the predicted next one
// outweighs what balancing costs: the measured cost of the last balancing
// step (strategy time plus the time until every object had arrived). Like
// renting skis until renting would have paid for buying them, this never
// pays more than twice the best schedule in hindsight, balances at once when
// the initial imbalance is large, and seldom when loads drift slowly.
//
// Which: GreedyRefine when the imbalance is large (max/avg above 1.5),
// Refine when it is small, the communication-aware Metis when the
// communication graph is measured and heavy; or the +balancer list's next.
#include <cstdint>
#include <string>
#include <vector>

#include <roam/lb/strategy.hpp>

namespace roam::lb::detail {

class meta_balancer {
 public:
  struct decision {
    bool balance = false;
    std::string strategy;  ///< when balance
    double excess = 0;     ///< seconds this step lost to imbalance beyond the floor
    double paid = 0;       ///< excess accumulated since the last balancing, this step's included
    double predicted = 0;  ///< the next step's predicted excess
    double cost = 0;       ///< what balancing is believed to cost, seconds
  };

  /// At a sync step with its measured problem; `fixed` is the strategy +balancer names (empty: choose).
  decision decide(const problem& p, const std::string& fixed);
  /// The balancing decided took `strategy_seconds` and left `after_max_minus_avg` seconds of imbalance.
  void balanced(double strategy_seconds, double after_max_minus_avg);
  /// The moves of that balancing all arrived `seconds` after they were sent.
  void migrated(double seconds);

 private:
  std::vector<double> excess_since_;  ///< per step since the last balancing
  double paid_ = 0;
  double floor_ = 0;                  ///< imbalance balancing cannot remove
  double cost_ = 0;                   ///< strategy plus migration, of the last balancing
  bool balanced_once_ = false;
};

}  // namespace roam::lb::detail
