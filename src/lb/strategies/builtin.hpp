#pragma once
// The built-in strategies (one file each beside this header) and what they
// share: input validation, per-PE loads, a deterministic random source.
// registry.cpp registers them; nothing else calls them directly except
// Hierarchical, which runs its inner strategy through the registry.
#include <roam/lb/strategy.hpp>

#include <cstdint>
#include <string_view>
#include <vector>

namespace roam::lb::detail {

assignment greedy_strategy(const problem& p, const strategy_options& o);
assignment refine_strategy(const problem& p, const strategy_options& o);
assignment greedy_refine_strategy(const problem& p, const strategy_options& o);
assignment rotate_strategy(const problem& p, const strategy_options& o);
assignment random_strategy(const problem& p, const strategy_options& o);
assignment hierarchical_strategy(const problem& p, const strategy_options& o);
#ifdef ROAM_HAVE_METIS
assignment metis_strategy(const problem& p, const strategy_options& o);
#endif

/// Throws std::invalid_argument naming `strategy` when the problem cannot be
/// balanced: no PE, an object on a PE that does not exist, a negative or
/// non-finite load, a non-positive speed, an edge naming a missing object, or
/// migratable objects but no available PE.
void validate_problem(const problem& p, std::string_view strategy);

/// Throws std::invalid_argument unless o.refine_tolerance is finite and at least 1.
void validate_tolerance(const strategy_options& o, std::string_view strategy);

/// The largest load over speed among the PEs (`load` in seconds per PE).
double max_normalised(const problem& p, const std::vector<double>& load);

/// Each PE's fixed work in seconds: background plus its non-migratable objects.
std::vector<double> fixed_loads(const problem& p);

/// The normalised average a balanced placement reaches: all work (fixed and
/// migratable, wherever it is) over the summed speed of the available PEs.
double balanced_average(const problem& p);

/// Indices of the migratable objects, heaviest first (ties: lower index first,
/// so the order is the same on every platform).
std::vector<std::uint32_t> migratable_heaviest_first(const problem& p);

/// Greedy (LPT) placement of `order`'s objects onto the available PEs, each
/// to the PE whose load over speed is least, starting from `pe_load_raw`
/// (seconds per PE, updated). Writes `a.pe[i]` for each placed object.
void place_greedily(const problem& p, const std::vector<std::uint32_t>& order,
                    std::vector<double>& pe_load_raw, assignment& a);

/// splitmix64: a tiny, portable generator, so that a seed gives the same
/// numbers with every standard library (std distributions do not).
class split_mix {
 public:
  explicit split_mix(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n) (n > 0), without modulo bias: draws below 2^64 mod n are redrawn.
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t reject_below = (0 - n) % n;
    for (;;) {
      const std::uint64_t r = next();
      if (r >= reject_below) return r % n;
    }
  }
  /// Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

}  // namespace roam::lb::detail
