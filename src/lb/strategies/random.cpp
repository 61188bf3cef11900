// Random: a strategy for testing migration. Each migratable object, in index
// order, goes to an available PE drawn uniformly from a splitmix64 generator
// seeded with problem::seed and problem::step: the same problem gives the
// same answer on every platform, and successive steps differ.
#include "strategies/builtin.hpp"

namespace roam::lb::detail {

assignment random_strategy(const problem& p, const strategy_options&) {
  validate_problem(p, "Random");
  assignment a = stay(p);
  std::vector<std::uint32_t> available;
  for (std::size_t q = 0; q < p.pes.size(); ++q)
    if (p.pes[q].available) available.push_back(static_cast<std::uint32_t>(q));
  split_mix draw(p.seed ^ (static_cast<std::uint64_t>(p.step) * 0xd1342543de82ef95ull));
  for (std::size_t i = 0; i < p.objects.size(); ++i)
    if (p.objects[i].migratable) a.pe[i] = available[draw.below(available.size())];
  return a;
}

}  // namespace roam::lb::detail
