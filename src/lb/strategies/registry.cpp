// The strategy registry, evaluate and stay.
//
// The registry is a function-local static that registers the built-ins when
// it is first built: whoever asks first (a static initialiser registering a
// user strategy, the runtime parsing +balancer, roam-lb) finds them there,
// whatever the order of static initialisation and whether or not the linker
// kept some other object file. std::map nodes never move, so the pointers
// find_strategy hands out stay valid while strategies are added.
#include <algorithm>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "strategies/builtin.hpp"

namespace roam::lb {

namespace {

struct registry {
  std::mutex mutex;
  std::map<std::string, strategy_info, std::less<>> by_name;

  registry() {
    using namespace detail;
    const auto add = [this](const char* name, const char* description, strategy_fn run, bool needs_comm) {
      by_name.emplace(name, strategy_info{name, description, run, needs_comm});
    };
    add("Greedy", "heaviest object first to the least loaded PE (LPT); ignores the current placement",
        greedy_strategy, false);
    add("Refine", "moves as few objects as it can off PEs above refine_tolerance x average", refine_strategy,
        false);
    add("GreedyRefine", "Greedy's balance, but an object stays where it is when its PE has room",
        greedy_refine_strategy, false);
    add("Rotate", "every migratable object to a later PE (testing migration)", rotate_strategy, false);
    add("Random", "every migratable object to a PE drawn from the problem's seed (testing migration)",
        random_strategy, false);
    add("Hierarchical", "balances between PE groups, then inside each group with the inner strategy",
        hierarchical_strategy, false);
#ifdef ROAM_HAVE_METIS
    add("Metis", "partitions the communication graph with METIS, parts mapped to keep objects in place",
        metis_strategy, true);
#endif
  }
};

registry& the_registry() {
  static registry r;
  return r;
}

}  // namespace

bool register_strategy(strategy_info s) {
  if (s.name.empty()) throw std::invalid_argument("register_strategy: the strategy has no name");
  if (s.run == nullptr) throw std::invalid_argument("register_strategy: strategy '" + s.name + "' has no function");
  registry& r = the_registry();
  const std::lock_guard<std::mutex> hold(r.mutex);
  std::string name = s.name;
  return r.by_name.emplace(std::move(name), std::move(s)).second;
}

const strategy_info* find_strategy(std::string_view name) {
  registry& r = the_registry();
  const std::lock_guard<std::mutex> hold(r.mutex);
  const auto it = r.by_name.find(name);
  return it == r.by_name.end() ? nullptr : &it->second;
}

std::vector<std::string> strategy_names() {
  registry& r = the_registry();
  const std::lock_guard<std::mutex> hold(r.mutex);
  std::vector<std::string> names;
  names.reserve(r.by_name.size());
  for (const auto& [name, info] : r.by_name) names.push_back(name);
  return names;
}

balance_stats evaluate(const problem& p, const assignment& a) {
  if (a.pe.size() != p.objects.size())
    throw std::invalid_argument("evaluate: the assignment places " + std::to_string(a.pe.size()) +
                                " objects but the problem has " + std::to_string(p.objects.size()));
  std::vector<double> load(p.pes.size());
  for (std::size_t i = 0; i < p.pes.size(); ++i) load[i] = p.pes[i].background;
  balance_stats s;
  for (std::size_t i = 0; i < p.objects.size(); ++i) {
    if (a.pe[i] >= p.pes.size())
      throw std::invalid_argument("evaluate: the assignment puts object " + std::to_string(i) + " on PE " +
                                  std::to_string(a.pe[i]) + " but the problem has " +
                                  std::to_string(p.pes.size()) + " PEs");
    load[a.pe[i]] += p.objects[i].load;
    if (a.pe[i] != p.objects[i].pe) ++s.migrations;
  }
  for (std::size_t i = 0; i < p.pes.size(); ++i) {
    // A PE of no speed that holds work never finishes it; one that holds none costs nothing.
    const double time = p.pes[i].speed > 0 ? load[i] / p.pes[i].speed
                        : load[i] > 0      ? std::numeric_limits<double>::infinity()
                                           : 0.0;
    s.max_load = std::max(s.max_load, time);
  }
  s.avg_load = detail::balanced_average(p);
  s.max_over_avg = s.avg_load > 0 ? s.max_load / s.avg_load : 1.0;
  return s;
}

assignment stay(const problem& p) {
  assignment a;
  a.pe.reserve(p.objects.size());
  for (const object_load& o : p.objects) a.pe.push_back(o.pe);
  return a;
}

}  // namespace roam::lb
