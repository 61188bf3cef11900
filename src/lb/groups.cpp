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
//
// With more groups than the fan-out (+LBGroupFanout, 64) a level is added:
// summaries go leader -> super-leader -> PE 0; PE 0's quotas go to
// super-leaders (with the global average), which plan between their groups,
// collect what leaves the super-group (cross_up), send one bundle to each
// receiving super-leader (cross_bundle), which hands the arrivals to its
// groups (one offer each).
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
                                                        std::vector<std::uint32_t>& offers_to, double given_per_pe,
                                                        std::vector<std::pair<double, std::uint32_t>>* donors_left,
                                                        std::vector<std::pair<double, std::uint32_t>>* receivers_left) {
  double total = 0;
  std::uint32_t pes = 0;
  for (const group_load& g : groups) total += g.load, pes += g.pes;
  const double per_pe = given_per_pe >= 0 ? given_per_pe : pes ? total / pes : 0;
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
  if (donors_left)
    for (auto [amount, g] : donors)
      if (amount > 0) donors_left->push_back({amount, g});
  if (receivers_left)
    for (std::size_t i = r; i < receivers.size(); ++i)
      if (receivers[i].first > 0) receivers_left->push_back(receivers[i]);
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
// Three levels (groups of groups) once there are more groups than the fan-out.
bool three_levels(const lb_state& s) { return s.fanout > 0 && group_count(s) > s.fanout; }
std::uint32_t super_of(const lb_state& s, std::uint32_t group) { return group / s.fanout; }
std::uint32_t super_leader(const lb_state& s, std::uint32_t super) { return first_of_group(s, super * s.fanout); }
std::uint32_t groups_of_super(const lb_state& s, std::uint32_t super) {
  return std::min(group_count(s), (super + 1) * s.fanout) - super * s.fanout;
}
// What PE 0 plans among: super-groups with three levels, groups with two.
std::uint32_t top_units(const lb_state& s) {
  return three_levels(s) ? (group_count(s) + s.fanout - 1) / s.fanout : group_count(s);
}
std::uint32_t unit_leader(const lb_state& s, std::uint32_t unit) {
  return three_levels(s) ? super_leader(s, unit) : first_of_group(s, unit);
}

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
  // Each donor group hears where its objects went (it counts them, not the messages).
  for (std::uint32_t dg = 0; dg < placed_for.size(); ++dg)
    if (!placed_for[dg].empty())
      post_control<&on_placed>(first_of_group(s, dg), 0, static_cast<std::uint8_t>(w.step->first), w.step->second,
                               std::move(placed_for[dg]));
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
  if (w.placed_inside || !w.quota_known || w.reports.size() < pes_of_group(s, g) ||
      w.offer_lists < w.offers_expected + w.forwarded_expected)
    return;
  place_inside(p);
}

// Each PE of the group gets its moves once the group is placed and every receiver said where the
// objects this group gave away go.
void send_moves_if_ready(pe_lb& p) {
  group_work& w = p.group;
  lb_state& s = *state();
  if (!w.placed_inside || w.placed.size() < w.given.size()) return;
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
  if (three_levels(s))
    post_control<&on_leaf_summary>(super_leader(s, super_of(s, g)), 0, kind, number, g, load, max_pe,
                                   pes_of_group(s, g), objects);
  else
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
  if (c.summaries.size() == top_units(s)) plan_between_groups(c);
}

void plan_between_groups(coordinator& c) {
  lb_state& s = *state();
  const auto [kind, number] = *c.active;
  const std::uint32_t groups = top_units(s);
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
    std::fprintf(stderr,
                 "roam lb: step %u (Hierarchical over %u groups of %u PEs%s, inner %s): max/avg load %.3f before\n",
                 c.steps, group_count(s), s.group_pes, three_levels(s) ? ", in super-groups" : "", s.inner.c_str(),
                 per_pe > 0 ? max_pe / per_pe : 1.0);
  }
  c.summaries.clear();
  c.group_results.clear();
  ++c.steps;
  ++c.balancings;
  for (std::uint32_t u = 0; u < groups; ++u) {
    if (three_levels(s))
      post_control<&on_super_quota>(unit_leader(s, u), 0, static_cast<std::uint8_t>(kind), number, per_pe,
                                    std::move(sends[u]), offers_to[u]);
    else
      post_control<&on_quota>(unit_leader(s, u), 0, static_cast<std::uint8_t>(kind), number, std::move(sends[u]),
                              std::vector<group_transfer>{}, offers_to[u], std::uint32_t{0});
  }
}

void on_quota(std::uint8_t kind, std::uint32_t number, std::vector<group_transfer> sends,
              std::vector<group_transfer> cross_sends, std::uint32_t offers_expected, std::uint32_t forwarded_expected) {
  pe_lb& p = this_pe_lb("load balancing quota");
  lb_state& s = *state();
  enter_step(p, kind, number);
  group_work& w = p.group;
  w.quota_known = true;
  w.offers_expected = offers_expected;
  w.forwarded_expected = forwarded_expected;
  w.sends = std::move(sends);
  w.cross_sends = std::move(cross_sends);
  std::vector<offered_object> candidates;
  for (const pe_report& r : w.reports)
    for (const object_report& o : r.objects)
      if (o.migratable) candidates.push_back({o.who, o.load, r.pe});
  // Transfers to groups of our super-group first, then those to other super-groups, from what is left.
  std::vector<group_transfer> all = w.sends;
  all.insert(all.end(), w.cross_sends.begin(), w.cross_sends.end());
  std::vector<std::vector<offered_object>> offers = pick_offers(std::move(candidates), all);
  for (std::size_t t = 0; t < all.size(); ++t) {
    for (const offered_object& o : offers[t]) w.given.push_back(o);
    // Every receiver hears from every donor it was promised (an empty offer when nothing fits).
    if (t < w.sends.size())
      post_control<&on_offer>(first_of_group(s, all[t].to_group), 0, kind, number, std::move(offers[t]));
    else
      post_control<&on_cross_up>(super_leader(s, super_of(s, group_of(s, p.pe))), 0, kind, number, all[t].to_group,
                                 std::move(offers[t]));
  }
  place_if_ready(p);
}

void on_offer(std::uint8_t kind, std::uint32_t number, std::vector<offered_object> objects) {
  pe_lb& p = this_pe_lb("load balancing offer");
  enter_step(p, kind, number);
  group_work& w = p.group;
  for (offered_object& o : objects) w.offers.push_back(o);
  ++w.offer_lists;
  place_if_ready(p);
}

// ---- three levels: super-group leaders ----------------------------------------------

namespace {

void enter_super_step(pe_lb& p, std::uint8_t kind, std::uint32_t number) {
  super_work& u = p.super;
  if (u.step && u.step->first == static_cast<step_kind>(kind) && u.step->second == number) return;
  u = super_work{};
  u.step = {static_cast<step_kind>(kind), number};
}

// Our groups each get exactly one message with what other super-groups sent them (maybe nothing).
void forward_if_ready(pe_lb& p) {
  super_work& u = p.super;
  lb_state& s = *state();
  if (u.forwarded || !u.quota_known || u.cross_in_received < u.cross_in_expected) return;
  u.forwarded = true;
  const std::uint32_t sup = super_of(s, group_of(s, p.pe)), first = sup * s.fanout, n = groups_of_super(s, sup);
  std::vector<std::vector<offered_object>> to(n);
  std::sort(u.cross_in.begin(), u.cross_in.end(),
            [](const offered_object& a, const offered_object& b) { return a.load > b.load; });
  std::vector<std::pair<double, std::uint32_t>> room = u.room;
  if (room.empty())
    for (std::uint32_t i = 0; i < n; ++i) room.push_back({0, first + i});
  for (const offered_object& o : u.cross_in) {
    auto most = std::max_element(room.begin(), room.end());  // the group with the most room left
    to[most->second - first].push_back(o);
    most->first -= o.load;
  }
  const auto [kind, number] = *u.step;
  for (std::uint32_t i = 0; i < n; ++i)
    post_control<&on_offer>(first_of_group(s, first + i), 0, static_cast<std::uint8_t>(kind), number, std::move(to[i]));
}

void send_bundles_if_ready(pe_lb& p) {
  super_work& u = p.super;
  lb_state& s = *state();
  if (!u.quota_known || u.leaf_cross_received < u.leaf_cross_expected) return;
  const auto [kind, number] = *u.step;
  for (const group_transfer& t : u.cross_out)
    post_control<&on_cross_bundle>(super_leader(s, t.to_group), 0, static_cast<std::uint8_t>(kind), number,
                                   std::exchange(u.outgoing[t.to_group], {}));
  u.cross_out.clear();
}

}  // namespace

void on_leaf_summary(std::uint8_t kind, std::uint32_t number, std::uint32_t group, double load, double max_pe,
                     std::uint32_t pes, std::uint32_t objects) {
  pe_lb& p = this_pe_lb("load balancing group summary");
  lb_state& s = *state();
  enter_super_step(p, kind, number);
  super_work& u = p.super;
  u.leaves.push_back({group, load, pes});
  u.max_pe = std::max(u.max_pe, max_pe);
  u.objects += objects;
  const std::uint32_t sup = super_of(s, group);
  if (u.leaves.size() < groups_of_super(s, sup)) return;
  double total = 0;
  std::uint32_t all_pes = 0;
  for (const group_load& g : u.leaves) total += g.load, all_pes += g.pes;
  post_control<&on_group_summary>(0, 0, kind, number, sup, total, u.max_pe, all_pes, u.objects);
}

void on_super_quota(std::uint8_t kind, std::uint32_t number, double per_pe, std::vector<group_transfer> cross_out,
                    std::uint32_t cross_in_expected) {
  pe_lb& p = this_pe_lb("load balancing super-group quota");
  lb_state& s = *state();
  enter_super_step(p, kind, number);
  super_work& u = p.super;
  u.quota_known = true;
  u.cross_out = std::move(cross_out);
  u.cross_in_expected = cross_in_expected;
  // Between our groups, against the global average: what one group has too much another lacks; what
  // is left over goes to, or comes from, other super-groups.
  std::vector<std::uint32_t> offers_to;
  std::vector<std::pair<double, std::uint32_t>> donors_left;
  const std::uint32_t groups = group_count(s);
  std::vector<std::vector<group_transfer>> sends =
      plan_transfers(u.leaves, groups, offers_to, per_pe, &donors_left, &u.room);
  std::vector<std::vector<group_transfer>> cross(groups);
  std::size_t d = 0;
  for (const group_transfer& t : u.cross_out) {
    double left = t.load;
    while (left > 0 && d < donors_left.size()) {
      const double amount = std::min(left, donors_left[d].first);
      cross[donors_left[d].second].push_back({t.to_group, amount});
      ++u.leaf_cross_expected;
      left -= amount;
      donors_left[d].first -= amount;
      if (donors_left[d].first <= 0) ++d;
    }
  }
  const std::uint32_t sup = super_of(s, group_of(s, p.pe)), first = sup * s.fanout, n = groups_of_super(s, sup);
  for (std::uint32_t i = 0; i < n; ++i)
    post_control<&on_quota>(first_of_group(s, first + i), 0, kind, number, std::move(sends[first + i]),
                            std::move(cross[first + i]), offers_to[first + i], std::uint32_t{1});
  send_bundles_if_ready(p);
  forward_if_ready(p);
}

void on_cross_up(std::uint8_t kind, std::uint32_t number, std::uint32_t to_super, std::vector<offered_object> objects) {
  pe_lb& p = this_pe_lb("load balancing cross offer");
  enter_super_step(p, kind, number);
  super_work& u = p.super;
  auto& out = u.outgoing[to_super];
  out.insert(out.end(), objects.begin(), objects.end());
  ++u.leaf_cross_received;
  send_bundles_if_ready(p);
}

void on_cross_bundle(std::uint8_t kind, std::uint32_t number, std::vector<offered_object> objects) {
  pe_lb& p = this_pe_lb("load balancing cross bundle");
  enter_super_step(p, kind, number);
  super_work& u = p.super;
  u.cross_in.insert(u.cross_in.end(), objects.begin(), objects.end());
  ++u.cross_in_received;
  forward_if_ready(p);
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
