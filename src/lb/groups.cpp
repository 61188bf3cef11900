// Distributed hierarchical steps (docs/design/load-balancing.md): when the
// step's strategy is Hierarchical and there is more than one group of PEs (by
// default a group per process; +LBGroupPEs G), no PE gathers the whole load
// database. The PEs of a group report to its leader (the group's first PE);
// each leader sends global PE 0 one summary of its group; PE 0 decides how
// much load each overloaded group sends to which underloaded one; a donor
// leader offers objects that fit those amounts to the receivers' leaders;
// every leader balances its own PEs (the inner strategy, GreedyRefine by
// default) over what stays and what arrives, tells donors where their
// objects go, and sends each of its PEs its moves. The rest is the plain
// protocol (done, finish).
//
//   PE          -> leader:  group_report(loads)
//   leader      -> PE 0:    group_summary(load, max PE, PEs, objects)
//   PE 0        -> leaders: quota(sends, offers to expect)
//   donor       -> receiver leader: offer(objects)
//   receiver    -> donor:   placed(object -> PE)
//   leader      -> PEs:     moves(out, in)           (as in the central step)
//   leader      -> PE 0:    group_result(max after, moved)   (for +LBDebug)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>

#include <roam/msg/detail/control.hpp>
#include <roam/sched/detail/runtime_state.hpp>

#include "balancer.hpp"

namespace roam::lb::detail {

using roam::detail::post_control;
using roam::detail::report_fatal;

std::uint32_t group_count(const lb_state& s) { return (s.num_pes + s.group_pes - 1) / s.group_pes; }

std::vector<std::vector<group_transfer>> plan_transfers(const std::vector<group_load>& groups, std::uint32_t count,
                                                        std::vector<std::uint32_t>& offers_to) {
  double total = 0;
  std::uint32_t pes = 0;
  for (const group_load& g : groups) total += g.load, pes += g.pes;
  const double per_pe = pes ? total / pes : 0;
  // Between groups only what is worth it: a group within half the refine tolerance of its share keeps its load.
  const double slack = (strategy_options{}.refine_tolerance - 1) / 2;
  std::vector<std::pair<double, std::uint32_t>> donors, receivers;  // (amount, group)
  for (const group_load& g : groups) {
    const double target = per_pe * g.pes;
    if (g.load > target * (1 + slack)) donors.push_back({g.load - target, g.group});
    else if (g.load < target) receivers.push_back({target - g.load, g.group});
  }
  std::sort(donors.rbegin(), donors.rend());
  std::sort(receivers.rbegin(), receivers.rend());
  std::vector<std::vector<group_transfer>> sends(count);
  offers_to.assign(count, 0);
  std::size_t r = 0;
  for (auto& [surplus, dg] : donors) {
    while (surplus > 0 && r < receivers.size()) {
      auto& [deficit, rg] = receivers[r];
      const double amount = std::min(surplus, deficit);
      sends[dg].push_back({rg, amount});
      ++offers_to[rg];
      surplus -= amount;
      deficit -= amount;
      if (deficit <= 0) ++r;
    }
  }
  return sends;
}

std::vector<std::vector<offered_object>> pick_offers(std::vector<offered_object> candidates,
                                                     const std::vector<group_transfer>& sends) {
  // The heaviest objects that fit what each receiver should get, so that few move.
  std::sort(candidates.begin(), candidates.end(),
            [](const offered_object& a, const offered_object& b) { return a.load > b.load; });
  std::vector<bool> taken(candidates.size(), false);
  std::vector<std::vector<offered_object>> out(sends.size());
  for (std::size_t t = 0; t < sends.size(); ++t) {
    double left = sends[t].load;
    for (std::size_t i = 0; i < candidates.size() && left > 0; ++i) {
      if (taken[i] || candidates[i].load > left) continue;
      taken[i] = true;
      left -= candidates[i].load;
      out[t].push_back(candidates[i]);
    }
  }
  return out;
}

namespace {

std::uint32_t first_of_group(const lb_state& s, std::uint32_t g) { return g * s.group_pes; }
std::uint32_t pes_of_group(const lb_state& s, std::uint32_t g) {
  return std::min(s.num_pes, (g + 1) * s.group_pes) - g * s.group_pes;
}
std::uint32_t group_of(const lb_state& s, std::uint32_t pe) { return pe / s.group_pes; }

bool same_step(const group_work& w, std::uint8_t kind, std::uint32_t number) {
  return w.step && w.step->first == static_cast<step_kind>(kind) && w.step->second == number;
}

// A message for a step this leader is not in yet (its first report may come
// after a neighbour leader's offer): start it.
void enter_step(pe_lb& p, std::uint8_t kind, std::uint32_t number) {
  group_work& w = p.group;
  if (same_step(w, kind, number)) return;
  w = group_work{};
  w.step = {static_cast<step_kind>(kind), number};
}

double work_of(const pe_report& r) {
  double l = r.background;
  for (const object_report& o : r.objects) l += o.load;
  return l;
}

void send_moves_if_ready(pe_lb& p);

// The inner strategy over this group's PEs: what stayed here plus what other groups send.
void place_inside(pe_lb& p) {
  lb_state& s = *state();
  group_work& w = p.group;
  const std::uint32_t g = group_of(s, p.pe), base = first_of_group(s, g), n = pes_of_group(s, g);
  problem sub;
  sub.pes.resize(n);
  std::vector<object_identity> ids;
  std::vector<bool> incoming;
  std::vector<std::uint32_t> from_pe;
  std::set<identity_key> given;
  for (const offered_object& o : w.given) given.insert({o.who.id});
  for (const pe_report& r : w.reports) {
    sub.pes[r.pe - base].background = r.background;
    sub.pes[r.pe - base].speed = r.speed;
    for (const object_report& o : r.objects) {
      if (given.contains({o.who.id})) continue;
      sub.objects.push_back({ids.size(), o.load, r.pe - base, o.migratable});
      ids.push_back(o.who.id);
      incoming.push_back(false);
      from_pe.push_back(r.pe);
    }
  }
  // Arrivals start on the group's PEs in turn; the inner strategy moves them as it sees fit.
  std::uint32_t next = 0;
  for (const offered_object& o : w.offers) {
    sub.objects.push_back({ids.size(), o.load, next++ % n, true});
    ids.push_back(o.who.id);
    incoming.push_back(true);
    from_pe.push_back(o.pe);
  }
  sub.step = w.step->second;
  const strategy_info* inner = find_strategy(s.inner);
  assignment a = stay(sub);
  try {
    if (inner && !sub.objects.empty()) a = inner->run(sub, strategy_options{});
  } catch (const std::exception& e) {
    report_fatal("roam: load balancing: the inner strategy " + s.inner + " of group " + std::to_string(g) +
                 " failed: " + e.what());
    return;
  }
  w.out.assign(n, {});
  w.in.assign(n, {});
  std::vector<std::vector<move_order>> placed_for(group_count(s));
  std::uint32_t moved = 0;
  for (std::size_t i = 0; i < sub.objects.size(); ++i) {
    const std::uint32_t to = base + a.pe[i];
    if (incoming[i]) {
      placed_for[group_of(s, from_pe[i])].push_back({{ids[i]}, to});
      w.in[a.pe[i]].push_back({ids[i]});
      ++moved;
    } else if (to != from_pe[i]) {
      w.out[from_pe[i] - base].push_back({{ids[i]}, to});
      w.in[a.pe[i]].push_back({ids[i]});
      ++moved;
    }
  }
  // Every donor hears back, once per offer (an empty list for an empty offer).
  for (std::uint32_t dg : w.donors)
    post_control<&on_placed>(first_of_group(s, dg), 0, static_cast<std::uint8_t>(w.step->first), w.step->second,
                             std::exchange(placed_for[dg], {}));
  if (s.debug) {
    std::vector<double> load(n, 0);
    for (std::uint32_t q = 0; q < n; ++q) load[q] = sub.pes[q].background;
    for (std::size_t i = 0; i < sub.objects.size(); ++i) load[a.pe[i]] += sub.objects[i].load;
    const double max_after = n ? *std::max_element(load.begin(), load.end()) : 0;
    post_control<&on_group_result>(0, 0, static_cast<std::uint8_t>(w.step->first), w.step->second, g, max_after, moved);
  }
  w.placed_inside = true;
  send_moves_if_ready(p);
}

void place_if_ready(pe_lb& p) {
  group_work& w = p.group;
  lb_state& s = *state();
  const std::uint32_t g = group_of(s, p.pe);
  if (w.placed_inside || !w.quota_known || w.reports.size() < pes_of_group(s, g) || w.offer_lists < w.offers_expected)
    return;
  place_inside(p);
}

// Each PE of the group gets its moves once the group is placed and every receiver said where the
// objects this group gave away go.
void send_moves_if_ready(pe_lb& p) {
  group_work& w = p.group;
  lb_state& s = *state();
  if (!w.placed_inside || w.placement_lists < w.placements_expected) return;
  const std::uint32_t base = first_of_group(s, group_of(s, p.pe));
  std::map<identity_key, std::uint32_t> source;
  for (const offered_object& o : w.given) source[{o.who.id}] = o.pe;
  for (const move_order& m : w.placed) {
    auto it = source.find({m.who.id});
    if (it == source.end()) {
      report_fatal("roam: load balancing: a placement for an object group leader pe " + std::to_string(p.pe) +
                   " did not give away (runtime bug)");
      return;
    }
    w.out[it->second - base].push_back(m);
  }
  const auto [kind, number] = *w.step;
  for (std::uint32_t i = 0; i < w.out.size(); ++i)
    post_control<&on_moves>(base + i, 0, static_cast<std::uint8_t>(kind), number, std::move(w.out[i]), std::move(w.in[i]));
  w = group_work{};  // this leader's part of the step is over
}

}  // namespace

void on_group_report(std::uint8_t kind, std::uint32_t number, pe_report r) {
  pe_lb& p = this_pe_lb("load balancing group report");
  lb_state& s = *state();
  enter_step(p, kind, number);
  group_work& w = p.group;
  w.reports.push_back(std::move(r));
  const std::uint32_t g = group_of(s, p.pe);
  if (w.reports.size() < pes_of_group(s, g)) return;
  double load = 0, max_pe = 0;
  std::uint32_t objects = 0;
  for (const pe_report& x : w.reports) {
    const double l = work_of(x);
    load += l;
    max_pe = std::max(max_pe, l);
    objects += static_cast<std::uint32_t>(x.objects.size());
  }
  post_control<&on_group_summary>(0, 0, kind, number, g, load, max_pe, pes_of_group(s, g), objects);
}

void on_group_summary(std::uint8_t kind, std::uint32_t number, std::uint32_t group, double load, double max_pe,
                      std::uint32_t pes, std::uint32_t objects) {
  lb_state& s = *state();
  coordinator& c = *s.coord;
  if (!c.active || !c.grouped || c.active->first != static_cast<step_kind>(kind) || c.active->second != number) {
    report_fatal("roam: pe 0: load balancing: a group summary for a step that is not running (runtime bug)");
    return;
  }
  c.summaries.push_back({group, load, max_pe, pes, objects});
  if (c.summaries.size() == group_count(s)) plan_between_groups(c);
}

void plan_between_groups(coordinator& c) {
  lb_state& s = *state();
  const auto [kind, number] = *c.active;
  const std::uint32_t groups = group_count(s);
  std::vector<group_load> loads;
  double total = 0;
  std::uint32_t pes = 0;
  for (const auto& g : c.summaries) {
    loads.push_back({g.group, g.load, g.pes});
    total += g.load, pes += g.pes;
  }
  const double per_pe = pes ? total / pes : 0;
  std::vector<std::uint32_t> offers_to;
  std::vector<std::vector<group_transfer>> sends = plan_transfers(loads, groups, offers_to);
  if (s.debug) {
    double max_pe = 0;
    for (const auto& g : c.summaries) max_pe = std::max(max_pe, g.max_pe);
    std::fprintf(stderr, "roam lb: step %u (Hierarchical over %u groups of %u PEs, inner %s): max/avg load %.3f before\n",
                 c.steps, groups, s.group_pes, s.inner.c_str(), per_pe > 0 ? max_pe / per_pe : 1.0);
  }
  c.summaries.clear();
  c.group_results.clear();
  ++c.steps;
  ++c.balancings;
  for (std::uint32_t g = 0; g < groups; ++g)
    post_control<&on_quota>(first_of_group(s, g), 0, static_cast<std::uint8_t>(kind), number, std::move(sends[g]),
                            offers_to[g]);
}

void on_quota(std::uint8_t kind, std::uint32_t number, std::vector<group_transfer> sends, std::uint32_t offers_expected) {
  pe_lb& p = this_pe_lb("load balancing quota");
  lb_state& s = *state();
  enter_step(p, kind, number);
  group_work& w = p.group;
  w.quota_known = true;
  w.offers_expected = offers_expected;
  w.sends = std::move(sends);
  std::vector<offered_object> candidates;
  for (const pe_report& r : w.reports)
    for (const object_report& o : r.objects)
      if (o.migratable) candidates.push_back({o.who, o.load, r.pe});
  std::vector<std::vector<offered_object>> offers = pick_offers(std::move(candidates), w.sends);
  for (std::size_t t = 0; t < w.sends.size(); ++t) {
    for (const offered_object& o : offers[t]) w.given.push_back(o);
    // Every receiver hears from every donor it was promised (an empty offer when nothing fits).
    post_control<&on_offer>(first_of_group(s, w.sends[t].to_group), 0, kind, number, group_of(s, p.pe),
                            std::move(offers[t]));
    ++w.placements_expected;
  }
  place_if_ready(p);
}

void on_offer(std::uint8_t kind, std::uint32_t number, std::uint32_t from_group, std::vector<offered_object> objects) {
  pe_lb& p = this_pe_lb("load balancing offer");
  enter_step(p, kind, number);
  group_work& w = p.group;
  for (offered_object& o : objects) w.offers.push_back(o);
  w.donors.push_back(from_group);
  ++w.offer_lists;
  place_if_ready(p);
}

void on_placed(std::uint8_t kind, std::uint32_t number, std::vector<move_order> orders) {
  pe_lb& p = this_pe_lb("load balancing placement");
  group_work& w = p.group;
  if (!same_step(w, kind, number)) {
    report_fatal("roam: load balancing: a placement for a step group leader pe " + std::to_string(p.pe) +
                 " is not in (runtime bug)");
    return;
  }
  for (move_order& m : orders) w.placed.push_back(m);
  ++w.placement_lists;
  send_moves_if_ready(p);
}

void on_group_result(std::uint8_t kind, std::uint32_t number, std::uint32_t group, double max_after, std::uint32_t moved) {
  lb_state& s = *state();
  coordinator& c = *s.coord;
  (void)kind, (void)number, (void)group;
  c.group_results.push_back({max_after, moved});
  if (c.group_results.size() != group_count(s)) return;
  double max_pe = 0;
  std::uint32_t total_moved = 0;
  for (auto [m, n] : c.group_results) max_pe = std::max(max_pe, m), total_moved += n;
  std::fprintf(stderr, "roam lb: step %u (Hierarchical): max PE load after %.6f s, %u objects moved\n", c.steps - 1,
               max_pe, total_moved);
  c.group_results.clear();
}

}  // namespace roam::lb::detail
