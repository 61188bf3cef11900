#pragma once
// Load balancing strategies: pure functions from a measured problem (objects
// with their loads and PEs, the PEs' background loads and speeds, optionally
// the communication graph) to an assignment (each object's PE after the
// step). The runtime (src/lb/) builds the problem from its load database and
// carries out the assignment by migrating objects; `roam-lb` replays dumped
// problems offline through the same functions. Strategies are registered by
// name; users register their own with register_strategy.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace roam::lb {

/// One object of a balancing step.
struct object_load {
  std::uint64_t key = 0;      ///< the runtime's name for it (opaque to strategies)
  double load = 0;            ///< seconds it ran in the period measured
  std::uint32_t pe = 0;       ///< where it is now
  bool migratable = true;     ///< false: it stays where it is (its load still counts there)
};

/// One PE of a balancing step.
struct pe_load {
  double background = 0;      ///< seconds of work no migratable object accounts for
  double idle = 0;            ///< seconds idle in the period (informative)
  double speed = 1.0;         ///< relative speed: a load L takes L / speed here
  bool available = true;      ///< may receive objects
  std::uint32_t group = 0;    ///< its group for hierarchical strategies (by default its process)
};

/// Communication between two objects (indices into problem::objects), summed over the period.
struct comm_edge {
  std::uint32_t from = 0;
  std::uint32_t to = 0;
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;
};

struct problem {
  std::vector<pe_load> pes;
  std::vector<object_load> objects;
  std::vector<comm_edge> edges;  ///< empty unless the strategy needs communication
  std::uint32_t step = 0;        ///< the balancing step (0 first): Rotate moves by it
  std::uint64_t seed = 1;        ///< randomised strategies draw from it only: same problem, same answer
};

/// Each object's PE after the step: `pe[i]` for `problem::objects[i]`.
struct assignment {
  std::vector<std::uint32_t> pe;
};

/// Settings a strategy may read (from +balancer NAME:key=value,... or roam-lb).
struct strategy_options {
  /// Hierarchical: PEs per group (0: the problem's pe_load::group), and what balances inside groups.
  std::uint32_t group_pes = 0;
  std::string inner = "GreedyRefine";
  /// Refine: a PE above this many times the average sheds objects.
  double refine_tolerance = 1.02;
};

using strategy_fn = assignment (*)(const problem&, const strategy_options&);

struct strategy_info {
  std::string name;           ///< as given to +balancer ("Greedy")
  std::string description;    ///< one line, for +help and roam-lb --list
  strategy_fn run = nullptr;
  bool needs_comm = false;    ///< the runtime collects the communication graph only for these
};

/// Registers a strategy (false: the name is taken). Call before roam::run, e.g. from a static initialiser.
bool register_strategy(strategy_info s);
/// The strategy of this name (case-sensitive), or null.
const strategy_info* find_strategy(std::string_view name);
/// Every registered name, sorted.
std::vector<std::string> strategy_names();

/// What an assignment gives: per-PE load is background plus its objects' loads, over speed.
struct balance_stats {
  double max_load = 0;
  double avg_load = 0;
  double max_over_avg = 0;    ///< 1: perfect (1 when there is no load)
  std::size_t migrations = 0; ///< objects whose PE changed
};
balance_stats evaluate(const problem& p, const assignment& a);
/// The problem as it stands (nobody moves).
assignment stay(const problem& p);

}  // namespace roam::lb
