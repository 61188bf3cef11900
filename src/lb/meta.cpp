// +MetaLB (meta.hpp).
#include "meta.hpp"

#include <algorithm>

namespace roam::lb::detail {

namespace {

// The next value of `ys` (one per step) by a least-squares line; never below 0.
double predict_next(const std::vector<double>& ys) {
  const std::size_t n = ys.size();
  if (n == 0) return 0;
  if (n == 1) return std::max(0.0, ys[0]);
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(i);
    sx += x;
    sy += ys[i];
    sxx += x * x;
    sxy += x * ys[i];
  }
  const double dn = static_cast<double>(n);
  const double denom = dn * sxx - sx * sx;
  const double slope = denom != 0 ? (dn * sxy - sx * sy) / denom : 0;
  const double intercept = (sy - slope * sx) / dn;
  return std::max(0.0, intercept + slope * dn);
}

bool has_comm(const problem& p) { return !p.edges.empty(); }

}  // namespace

meta_balancer::decision meta_balancer::decide(const problem& p, const std::string& fixed) {
  decision d;
  const balance_stats now = evaluate(p, stay(p));
  const double imbalance = now.max_load - now.avg_load;
  // Within 2% of the average is measurement noise and indivisibility, not worth a step.
  d.excess = std::max(0.0, imbalance - std::max(floor_, 0.02 * now.avg_load));
  excess_since_.push_back(d.excess);
  paid_ += d.excess;
  d.paid = paid_;
  d.predicted = predict_next(excess_since_);
  d.cost = cost_;
  // Before any balancing its cost is unknown: balance at the first step that shows any excess
  // (a large initial imbalance is corrected at once; the cost measured then guides the rest).
  d.balance = balanced_once_ ? paid_ + d.predicted >= cost_ : d.excess > 0;
  if (!d.balance) return d;
  if (!fixed.empty()) {
    d.strategy = fixed;
  } else if (has_comm(p)) {
    d.strategy = "Metis";
  } else {
    d.strategy = now.max_over_avg > 1.5 ? "GreedyRefine" : "Refine";
  }
  return d;
}

void meta_balancer::balanced(double strategy_seconds, double after_max_minus_avg) {
  balanced_once_ = true;
  excess_since_.clear();
  paid_ = 0;
  floor_ = std::max(0.0, after_max_minus_avg);
  cost_ = strategy_seconds;  // migration time is added when known (migrated)
}

void meta_balancer::migrated(double seconds) { cost_ += std::max(0.0, seconds); }

}  // namespace roam::lb::detail
