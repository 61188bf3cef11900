// What every strategy shares: checking its input and the loads it starts from.
#include <algorithm>
#include <cmath>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>

#include "strategies/builtin.hpp"

namespace roam::lb::detail {

namespace {

[[noreturn]] void refuse(std::string_view strategy, const std::string& what) {
  throw std::invalid_argument(std::string(strategy) + ": " + what);
}

}  // namespace

void validate_problem(const problem& p, std::string_view strategy) {
  const std::size_t pes = p.pes.size();
  if (pes == 0) refuse(strategy, "the problem has no PE");
  if (pes > UINT32_MAX) refuse(strategy, "the problem has " + std::to_string(pes) + " PEs, more than 2^32-1");
  bool any_available = false;
  for (std::size_t i = 0; i < pes; ++i) {
    const pe_load& pe = p.pes[i];
    if (!std::isfinite(pe.background) || pe.background < 0)
      refuse(strategy, "PE " + std::to_string(i) + " has background load " + std::to_string(pe.background) +
                           " (must be finite and >= 0)");
    if (!std::isfinite(pe.speed) || pe.speed <= 0)
      refuse(strategy, "PE " + std::to_string(i) + " has speed " + std::to_string(pe.speed) +
                           " (must be finite and > 0)");
    any_available = any_available || pe.available;
  }
  bool any_migratable = false;
  for (std::size_t i = 0; i < p.objects.size(); ++i) {
    const object_load& o = p.objects[i];
    if (o.pe >= pes)
      refuse(strategy, "object " + std::to_string(i) + " (key " + std::to_string(o.key) + ") is on PE " +
                           std::to_string(o.pe) + " but the problem has " + std::to_string(pes) + " PEs");
    if (!std::isfinite(o.load) || o.load < 0)
      refuse(strategy, "object " + std::to_string(i) + " (key " + std::to_string(o.key) + ") has load " +
                           std::to_string(o.load) + " (must be finite and >= 0)");
    any_migratable = any_migratable || o.migratable;
  }
  for (std::size_t i = 0; i < p.edges.size(); ++i) {
    const comm_edge& e = p.edges[i];
    if (e.from >= p.objects.size() || e.to >= p.objects.size())
      refuse(strategy, "edge " + std::to_string(i) + " joins objects " + std::to_string(e.from) + " and " +
                           std::to_string(e.to) + " but the problem has " + std::to_string(p.objects.size()) +
                           " objects");
  }
  if (any_migratable && !any_available) refuse(strategy, "no PE is available to receive objects");
}

std::vector<double> fixed_loads(const problem& p) {
  std::vector<double> load(p.pes.size());
  for (std::size_t i = 0; i < p.pes.size(); ++i) load[i] = p.pes[i].background;
  for (const object_load& o : p.objects)
    if (!o.migratable) load[o.pe] += o.load;
  return load;
}

void validate_tolerance(const strategy_options& o, std::string_view strategy) {
  if (!std::isfinite(o.refine_tolerance) || o.refine_tolerance < 1.0)
    throw std::invalid_argument(std::string(strategy) + ": refine_tolerance is " + std::to_string(o.refine_tolerance) +
                                " (must be finite and >= 1)");
}

double max_normalised(const problem& p, const std::vector<double>& load) {
  double max = 0;
  for (std::size_t q = 0; q < p.pes.size(); ++q) max = std::max(max, load[q] / p.pes[q].speed);
  return max;
}

double balanced_average(const problem& p) {
  double work = 0, available_speed = 0, all_speed = 0;
  for (const pe_load& pe : p.pes) {
    work += pe.background;
    all_speed += pe.speed;
    if (pe.available) available_speed += pe.speed;
  }
  for (const object_load& o : p.objects) work += o.load;
  const double speed = available_speed > 0 ? available_speed : all_speed;
  return speed > 0 ? work / speed : 0;
}

std::vector<std::uint32_t> migratable_heaviest_first(const problem& p) {
  std::vector<std::uint32_t> order;
  order.reserve(p.objects.size());
  for (std::size_t i = 0; i < p.objects.size(); ++i)
    if (p.objects[i].migratable) order.push_back(static_cast<std::uint32_t>(i));
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const double la = p.objects[a].load, lb = p.objects[b].load;
    return la != lb ? la > lb : a < b;
  });
  return order;
}

void place_greedily(const problem& p, const std::vector<std::uint32_t>& order, std::vector<double>& pe_load_raw,
                    assignment& a) {
  // A min-heap of (load / speed, PE) over the available PEs; the lower PE wins a tie.
  using entry = std::pair<double, std::uint32_t>;
  std::vector<entry> heap;
  heap.reserve(p.pes.size());
  for (std::size_t i = 0; i < p.pes.size(); ++i)
    if (p.pes[i].available) heap.emplace_back(pe_load_raw[i] / p.pes[i].speed, static_cast<std::uint32_t>(i));
  std::priority_queue<entry, std::vector<entry>, std::greater<>> least(std::greater<>{}, std::move(heap));
  for (std::uint32_t obj : order) {
    const std::uint32_t pe = least.top().second;
    least.pop();
    pe_load_raw[pe] += p.objects[obj].load;
    a.pe[obj] = pe;
    least.emplace(pe_load_raw[pe] / p.pes[pe].speed, pe);
  }
}

}  // namespace roam::lb::detail
