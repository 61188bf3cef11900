// Greedy: longest processing time first. Every migratable object is placed
// anew, heaviest first, on the available PE whose load over speed is least,
// after each PE's background and non-migratable objects are counted. Ignores
// where objects are now, so it migrates almost everything; its balance is
// what GreedyRefine and Hierarchical are measured against.
#include "strategies/builtin.hpp"

namespace roam::lb::detail {

assignment greedy_strategy(const problem& p, const strategy_options&) {
  validate_problem(p, "Greedy");
  assignment a = stay(p);
  std::vector<double> load = fixed_loads(p);
  place_greedily(p, migratable_heaviest_first(p), load, a);
  return a;
}

}  // namespace roam::lb::detail
