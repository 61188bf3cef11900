// Hierarchical: balance between groups of PEs, then inside each group.
//
// Groups: strategy_options::group_pes consecutive PEs each, or when that is 0
// the PEs' pe_load::group values (any numbers; PEs sharing one form a group).
//
// Between groups, each group is one super-PE whose speed is the summed speed
// of its available PEs; its target is the total work times its share of that
// speed. A group more than `slack` above its target (slack: half of
// refine_tolerance - 1, of the target) is a donor; donors, worst first (groups
// with no available PE before all: they must hand over every migratable
// object), give objects to the group with the most room below its target plus
// slack, taking the lightest object that brings the donor back within its
// slack, else the heaviest that fits the receiver, as Refine does between PEs.
// Only donor groups' objects are ever sorted.
//
// Inside each group, the inner strategy (strategy_options::inner, by default
// GreedyRefine) runs on a sub-problem with only that group's PEs and objects;
// objects that arrived from other groups start spread round-robin over the
// group's available PEs (the inner strategy places them). A sub-problem is
// built, solved and dropped one group at a time, so beyond one linear pass
// over all objects the memory in use is one group's.
//
// Cost: O(n + P + E) to bucket, O(k log k) per donor group of k objects,
// O(log G) per move between G groups, plus the inner strategy per group.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "strategies/builtin.hpp"

namespace roam::lb::detail {

namespace {

constexpr std::uint32_t leaving = UINT32_MAX;  // a.pe[i] of an object given to another group, until placed

/// The PEs grouped: group_of[q] is dense (0..count), PEs of group g are
/// members[first[g] .. first[g+1]), ascending.
struct pe_groups {
  std::vector<std::uint32_t> group_of;
  std::vector<std::uint32_t> first;
  std::vector<std::uint32_t> members;
  std::size_t count() const { return first.size() - 1; }
};

pe_groups make_groups(const problem& p, std::uint32_t group_pes) {
  const std::size_t pes = p.pes.size();
  pe_groups g;
  g.group_of.resize(pes);
  if (group_pes > 0) {
    for (std::size_t q = 0; q < pes; ++q) g.group_of[q] = static_cast<std::uint32_t>(q / group_pes);
  } else {
    std::vector<std::uint32_t> ids;
    ids.reserve(pes);
    for (const pe_load& pe : p.pes) ids.push_back(pe.group);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    for (std::size_t q = 0; q < pes; ++q)
      g.group_of[q] = static_cast<std::uint32_t>(std::lower_bound(ids.begin(), ids.end(), p.pes[q].group) - ids.begin());
  }
  const std::uint32_t count = pes == 0 ? 0 : *std::max_element(g.group_of.begin(), g.group_of.end()) + 1;
  g.first.assign(count + 1, 0);
  for (std::uint32_t grp : g.group_of) ++g.first[grp + 1];
  for (std::size_t i = 0; i < count; ++i) g.first[i + 1] += g.first[i];
  g.members.resize(pes);
  std::vector<std::uint32_t> fill(g.first.begin(), g.first.end() - 1);
  for (std::size_t q = 0; q < pes; ++q) g.members[fill[g.group_of[q]]++] = static_cast<std::uint32_t>(q);
  return g;
}

}  // namespace

assignment hierarchical_strategy(const problem& p, const strategy_options& o) {
  validate_problem(p, "Hierarchical");
  validate_tolerance(o, "Hierarchical");
  if (o.inner == "Hierarchical")
    throw std::invalid_argument("Hierarchical: the inner strategy cannot be Hierarchical itself");
  const strategy_info* inner = find_strategy(o.inner);
  if (inner == nullptr) {
    std::string known;
    for (const std::string& name : strategy_names()) known += (known.empty() ? "" : ", ") + name;
    throw std::invalid_argument("Hierarchical: no strategy named '" + o.inner + "' for inside groups (known: " +
                                known + ")");
  }

  const pe_groups groups = make_groups(p, o.group_pes);
  const std::size_t group_count = groups.count();
  const std::size_t n = p.objects.size();
  assignment a = stay(p);

  // Per group: work (seconds), summed available speed, target and slack.
  std::vector<double> work(group_count, 0), speed(group_count, 0);
  for (std::size_t q = 0; q < p.pes.size(); ++q) {
    work[groups.group_of[q]] += p.pes[q].background;
    if (p.pes[q].available) speed[groups.group_of[q]] += p.pes[q].speed;
  }
  for (const object_load& obj : p.objects) work[groups.group_of[obj.pe]] += obj.load;
  double total_work = 0, total_speed = 0;
  for (std::size_t g = 0; g < group_count; ++g) {
    total_work += work[g];
    total_speed += speed[g];
  }
  const double slack_share = (o.refine_tolerance - 1.0) / 2.0;
  std::vector<double> target(group_count), slack(group_count);
  for (std::size_t g = 0; g < group_count; ++g) {
    target[g] = total_speed > 0 ? total_work * speed[g] / total_speed : 0;
    slack[g] = slack_share * target[g];
  }

  // Migratable objects bucketed by group (one linear pass).
  std::vector<std::uint32_t> first(group_count + 1, 0);
  for (const object_load& obj : p.objects)
    if (obj.migratable) ++first[groups.group_of[obj.pe] + 1];
  for (std::size_t g = 0; g < group_count; ++g) first[g + 1] += first[g];
  std::vector<std::uint32_t> bucket(first[group_count]);
  {
    std::vector<std::uint32_t> fill(first.begin(), first.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
      if (p.objects[i].migratable) bucket[fill[groups.group_of[p.objects[i].pe]]++] = static_cast<std::uint32_t>(i);
  }

  std::vector<std::uint32_t> donors;
  for (std::size_t g = 0; g < group_count; ++g)
    if (first[g + 1] > first[g] && (speed[g] == 0 || work[g] > target[g] + slack[g]))
      donors.push_back(static_cast<std::uint32_t>(g));
  std::sort(donors.begin(), donors.end(), [&](std::uint32_t x, std::uint32_t y) {
    if ((speed[x] == 0) != (speed[y] == 0)) return speed[x] == 0;
    const double ex = work[x] - target[x], ey = work[y] - target[y];
    return ex != ey ? ex > ey : x < y;
  });

  // Groups able to receive, by room below target + slack: the last has the most.
  std::set<std::pair<double, std::uint32_t>> by_room;
  for (std::size_t g = 0; g < group_count; ++g)
    if (speed[g] > 0) by_room.emplace(target[g] + slack[g] - work[g], static_cast<std::uint32_t>(g));
  const auto change_work = [&](std::uint32_t g, double delta) {
    if (speed[g] > 0) by_room.erase({target[g] + slack[g] - work[g], g});
    work[g] += delta;
    if (speed[g] > 0) by_room.emplace(target[g] + slack[g] - work[g], g);
  };

  std::vector<std::vector<std::uint32_t>> arrivals(group_count);
  using candidate = std::pair<double, std::uint32_t>;  // (load, object), ascending
  std::set<candidate> objects;
  for (std::uint32_t d : donors) {
    const bool must_empty = speed[d] == 0;
    objects.clear();
    for (std::uint32_t k = first[d]; k < first[d + 1]; ++k) objects.emplace(p.objects[bucket[k]].load, bucket[k]);
    while (!objects.empty()) {
      const double excess = work[d] - target[d];
      if (!must_empty && excess <= slack[d]) break;
      const auto receiver = std::prev(by_room.end());
      const std::uint32_t r = receiver->second;
      const double room = receiver->first;
      if (r == d || (!must_empty && room <= 0)) break;
      const auto fits = objects.upper_bound(candidate{room, UINT32_MAX});
      std::set<candidate>::iterator pick;
      if (must_empty) {
        pick = fits != objects.begin() ? std::prev(fits) : objects.begin();
      } else {
        if (fits == objects.begin()) break;
        const double enough = excess - slack[d];  // what brings the donor within its slack
        const auto clears = objects.lower_bound(candidate{enough, 0});
        pick = enough <= room && clears != fits ? clears : std::prev(fits);
        if (pick->first <= 0) break;
      }
      const auto [w, obj] = *pick;
      objects.erase(pick);
      change_work(d, -w);
      change_work(r, w);
      a.pe[obj] = leaving;
      arrivals[r].push_back(obj);
    }
  }
  objects.clear();

  // Edges inside one group, for an inner strategy that reads them: bucketed by group.
  std::vector<std::uint32_t> final_group, edge_first, edge_bucket;
  if (inner->needs_comm && !p.edges.empty()) {
    final_group.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      if (a.pe[i] != leaving) final_group[i] = groups.group_of[p.objects[i].pe];
    for (std::size_t g = 0; g < group_count; ++g)
      for (std::uint32_t obj : arrivals[g]) final_group[obj] = static_cast<std::uint32_t>(g);
    edge_first.assign(group_count + 1, 0);
    for (const comm_edge& e : p.edges)
      if (final_group[e.from] == final_group[e.to]) ++edge_first[final_group[e.from] + 1];
    for (std::size_t g = 0; g < group_count; ++g) edge_first[g + 1] += edge_first[g];
    edge_bucket.resize(edge_first[group_count]);
    std::vector<std::uint32_t> fill(edge_first.begin(), edge_first.end() - 1);
    for (std::size_t e = 0; e < p.edges.size(); ++e)
      if (final_group[p.edges[e].from] == final_group[p.edges[e].to])
        edge_bucket[fill[final_group[p.edges[e].from]]++] = static_cast<std::uint32_t>(e);
  }

  // Objects (migratable or not) by their current group, for building sub-problems.
  std::vector<std::uint32_t> resident_first(group_count + 1, 0);
  for (const object_load& obj : p.objects) ++resident_first[groups.group_of[obj.pe] + 1];
  for (std::size_t g = 0; g < group_count; ++g) resident_first[g + 1] += resident_first[g];
  std::vector<std::uint32_t> residents(n);
  {
    std::vector<std::uint32_t> fill(resident_first.begin(), resident_first.end() - 1);
    for (std::size_t i = 0; i < n; ++i) residents[fill[groups.group_of[p.objects[i].pe]]++] = static_cast<std::uint32_t>(i);
  }

  std::vector<std::uint32_t> local_pe(p.pes.size());
  std::vector<std::uint32_t> local_object;  // sub-problem object -> object
  std::vector<std::uint32_t> local_index;   // object -> sub-problem object (only for edges)
  if (!edge_bucket.empty()) local_index.resize(n);
  problem sub;
  for (std::size_t g = 0; g < group_count; ++g) {
    sub.pes.clear();
    sub.objects.clear();
    sub.edges.clear();
    local_object.clear();
    std::vector<std::uint32_t> available;  // local indices
    for (std::uint32_t k = groups.first[g]; k < groups.first[g + 1]; ++k) {
      const std::uint32_t q = groups.members[k];
      local_pe[q] = static_cast<std::uint32_t>(sub.pes.size());
      if (p.pes[q].available) available.push_back(local_pe[q]);
      sub.pes.push_back(p.pes[q]);
    }
    for (std::uint32_t k = resident_first[g]; k < resident_first[g + 1]; ++k) {
      const std::uint32_t obj = residents[k];
      // Gone to another group: marked leaving, or already placed there by that group's inner strategy.
      if (a.pe[obj] == leaving || groups.group_of[a.pe[obj]] != g) continue;
      object_load local = p.objects[obj];
      local.pe = local_pe[local.pe];
      local_object.push_back(obj);
      sub.objects.push_back(local);
    }
    for (std::size_t k = 0; k < arrivals[g].size(); ++k) {
      object_load local = p.objects[arrivals[g][k]];
      local.pe = available[k % available.size()];
      local_object.push_back(arrivals[g][k]);
      sub.objects.push_back(local);
    }
    if (sub.objects.empty()) continue;
    if (!edge_bucket.empty()) {
      for (std::size_t k = 0; k < local_object.size(); ++k) local_index[local_object[k]] = static_cast<std::uint32_t>(k);
      for (std::uint32_t k = edge_first[g]; k < edge_first[g + 1]; ++k) {
        comm_edge e = p.edges[edge_bucket[k]];
        e.from = local_index[e.from];
        e.to = local_index[e.to];
        sub.edges.push_back(e);
      }
    }
    sub.step = p.step;
    sub.seed = p.seed ^ (0x9e3779b97f4a7c15ull * (g + 1));
    const assignment placed = inner->run(sub, o);
    if (placed.pe.size() != sub.objects.size())
      throw std::invalid_argument("Hierarchical: inner strategy " + inner->name + " placed " +
                                  std::to_string(placed.pe.size()) + " objects of " +
                                  std::to_string(sub.objects.size()) + " in group " + std::to_string(g));
    for (std::size_t k = 0; k < placed.pe.size(); ++k) {
      if (placed.pe[k] >= sub.pes.size())
        throw std::invalid_argument("Hierarchical: inner strategy " + inner->name + " put an object on PE " +
                                    std::to_string(placed.pe[k]) + " of a group of " +
                                    std::to_string(sub.pes.size()));
      a.pe[local_object[k]] = groups.members[groups.first[g] + placed.pe[k]];
    }
  }
  return a;
}

}  // namespace roam::lb::detail
