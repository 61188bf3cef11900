// GreedyRefine: Greedy's balance with far fewer migrations.
//
// 1. Run Greedy to learn the maximum (load over speed) it reaches, M.
// 2. Target T = max(M, refine_tolerance x average): a bound Greedy shows is
//    reachable, loosened by the tolerance Refine uses, which is what buys
//    objects the right to stay.
// 3. Decide who stays: from the PEs' fixed loads, lightest first, an object
//    stays on its PE when that PE is available and stays at or below T with
//    it. An overloaded PE thus sheds its heaviest objects: the fewest that
//    remove its excess. Then place the others, heaviest first, each on the
//    least loaded available PE, as Greedy does. (Deciding all stays first
//    keeps a moved object from taking the room an object at home was
//    counting on, which would push that one out in turn.)
// 4. If some PE ends above T (heavy objects moved late pack worse), try
//    again with the heaviest staying first (more, smaller objects move and
//    fill the gaps better); if that too ends above T, return Greedy's own
//    placement. The result is never worse than max(M, tolerance x average).
//
// Cost: one sort and two to four greedy passes, O(n log n + n log P).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "strategies/builtin.hpp"

namespace roam::lb::detail {

assignment greedy_refine_strategy(const problem& p, const strategy_options& o) {
  validate_problem(p, "GreedyRefine");
  validate_tolerance(o, "GreedyRefine");
  const std::vector<std::uint32_t> order = migratable_heaviest_first(p);

  assignment greedy = stay(p);
  std::vector<double> greedy_load = fixed_loads(p);
  place_greedily(p, order, greedy_load, greedy);
  const double target = std::max(max_normalised(p, greedy_load), o.refine_tolerance * balanced_average(p));

  // Who stays is decided for all before anyone moves: an object placed by the
  // greedy step must not take the room an object at home was counting on.
  const auto attempt = [&](bool lightest_stay_first, assignment& a) {
    a = stay(p);
    std::vector<double> load = fixed_loads(p);
    std::vector<std::uint32_t> moving;
    const auto consider = [&](std::uint32_t obj) {
      const std::uint32_t home = p.objects[obj].pe;
      const double w = p.objects[obj].load;
      if (p.pes[home].available && (load[home] + w) / p.pes[home].speed <= target)
        load[home] += w;
      else
        moving.push_back(obj);
    };
    if (lightest_stay_first) {
      for (auto it = order.rbegin(); it != order.rend(); ++it) consider(*it);
      std::reverse(moving.begin(), moving.end());  // heaviest first again
    } else {
      for (std::uint32_t obj : order) consider(obj);
    }
    place_greedily(p, moving, load, a);
    return max_normalised(p, load) <= target;
  };
  assignment a;
  if (attempt(true, a) || attempt(false, a)) return a;
  return greedy;
}

}  // namespace roam::lb::detail
