// The balancing step protocol (docs/design/load-balancing.md), in control
// messages between the PEs and the coordinator on global PE 0:
//
//   a PE's first at_sync of a step      -> wake(step)             to PE 0
//   balance_now() on any PE             -> request_any(pe)        to PE 0
//   PE 0 starts one step at a time      -> poll(kind, n)          to every PE
//   a PE is ready (sync: all its objects
//   called at_sync; any: at once)       -> report(kind, n, loads) to PE 0
//   PE 0 runs the strategy              -> moves(kind, n, out, in) to every PE
//   a PE has sent its objects off and
//   seen every object sent to it arrive -> done(kind, n)          to PE 0
//   PE 0 heard every PE                 -> finish(kind, n, served) to every PE:
//                                          resume_from_sync, balance_now callbacks
//
// Nothing assumes that two messages between the same PEs arrive in order:
// a poll for a sync step a PE has not reached yet waits for it.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>

#include <roam/lb/lb.hpp>
#include <roam/msg/detail/control.hpp>
#include <roam/obj/walk.hpp>
#include <roam/sched/clock.hpp>
#include <roam/sched/detail/pe_state.hpp>
#include <roam/sched/detail/runtime_state.hpp>

#include "balancer.hpp"
#include "meta.hpp"

namespace roam::lb::detail {

std::string describe_object(const object_identity& id, std::string_view type) {
  std::string s;
  switch (id.kind) {
    case object_kind::chare:
      return "chare " + std::string(type) + " #" + std::to_string(id.chare_id);
    case object_kind::array_element: {
      s = "array " + std::string(type) + "[";
      for (std::uint8_t k = 0; k < std::max<std::uint8_t>(id.dims, 1); ++k)
        s += (k ? "," : "") + std::to_string(id.index[k]);
      return s + "]";
    }
    default:
      return std::string(type);
  }
}

namespace {

using roam::detail::post_control;
using roam::detail::report_fatal;

// The object at `obj` on this PE, named for an error message.
std::string describe_local(const void* obj, std::string_view type) {
  std::string out = std::string(type);
  for_each_local_object([&](const local_object& o) {
    if (o.obj == obj) out = describe_object(o.id, o.type_name);
  });
  return out;
}


void try_report_sync(pe_lb& p);
void check_done(pe_lb& p);

// ---- on each PE ---------------------------------------------------------

void send_report(pe_lb& p, step_kind kind, std::uint32_t number, bool grouped) {
  lb_state& s = *state();
  pe_report r;
  r.pe = p.pe;
  const pe_meter& m = p.meter;
  const std::uint64_t now = clock_ticks();
  const double tick = 1.0 / s.ticks_per_second;
  r.period = static_cast<double>(now - m.period_start) * tick;
  r.idle = static_cast<double>(m.idle_ticks) * tick;
  double counted = 0;
  for_each_local_object([&](const local_object& o) {
    // At a sync point only the objects that synchronise may move; at any time every migratable one.
    const bool takes_part = kind == step_kind::sync ? o.resume_from_sync != nullptr : o.migratable;
    if (!takes_part) return;
    object_report x;
    x.who.id = o.id;
    // Waiting at a sync point: it stays (its PE counts it among the synchronised).
    x.migratable = o.migratable && !(kind == step_kind::any && (p.sync.synced.contains(o.obj) ||
                                                               p.sync.synced_elsewhere.contains({o.id})));
    if (auto it = m.set_ticks.find(o.obj); it != m.set_ticks.end()) x.load = static_cast<double>(it->second) * tick;
    else if (auto jt = m.ticks.find(o.obj); jt != m.ticks.end()) x.load = static_cast<double>(jt->second) * tick;
    counted += x.load;
    r.objects.push_back(x);
  });
  // The PE's speed: the share of the core its thread got while it wanted one (on a CPU, against
  // runnable but waiting: other processes took the rest; Linux schedstat). Below 5% lost it is noise.
  const double busy = r.period - r.idle;
  const run_times run_now = thread_run_times();
  if (m.run_start.on_cpu >= 0 && run_now.on_cpu >= m.run_start.on_cpu && run_now.waiting >= m.run_start.waiting) {
    const double ran = static_cast<double>(run_now.on_cpu - m.run_start.on_cpu);
    const double waited = static_cast<double>(run_now.waiting - m.run_start.waiting);
    if (ran > 1e6 && waited / (ran + waited) > 0.05) r.speed = std::clamp(ran / (ran + waited), 0.05, 1.0);
  }
  // Under +LBCpuTime loads are CPU seconds: the background is what remains of the busy time the
  // thread really had, in the same unit.
  r.background = std::max(0.0, (s.cpu_time ? busy * r.speed : busy) - counted);
  if (s.comm)
    for_each_local_object([&](const local_object& o) {
      auto it = m.sent.find(o.obj);
      if (it == m.sent.end()) return;
      for (const auto& [to, t] : it->second) r.edges.push_back({{o.id}, {to.id}, t.messages, t.bytes});
    });
  p.sync.current = {kind, number};
  p.sync.moves_known = false;
  p.sync.done_sent = false;
  p.sync.incoming.clear();
  p.sync.arrived.clear();
  if (grouped) {
    const std::uint32_t leader = p.pe / s.group_pes * s.group_pes;
    post_control<&on_group_report>(leader, 0, static_cast<std::uint8_t>(kind), number, std::move(r));
  } else {
    post_control<&on_report>(0, 0, static_cast<std::uint8_t>(kind), number, std::move(r));
  }
}

void try_report_sync(pe_lb& p) {
  pe_sync& y = p.sync;
  if (y.reported || !y.polled || *y.polled != y.sync_step) return;
  if (!y.departed.empty()) return;  // an object that left unsynced has not called at_sync where it went
  if (y.synced.size() + y.synced_elsewhere.size() < y.participants && !y.membership_changed) return;
  y.membership_changed = false;
  // Perhaps everyone: count again (objects may have been created, or arrived, since).
  std::size_t n = 0;
  bool all = true;
  for_each_local_object([&](const local_object& o) {
    if (!o.resume_from_sync) return;
    ++n;
    if (!y.synced.contains(o.obj) && !y.synced_elsewhere.contains({o.id})) all = false;
  });
  y.participants = n;
  if (!all) return;
  y.reported = true;
  send_report(p, step_kind::sync, y.sync_step, y.grouped);
}

void check_done(pe_lb& p) {
  pe_sync& y = p.sync;
  if (!y.moves_known || y.done_sent || !y.current) return;
  for (const identity_key& k : y.incoming)
    if (!y.arrived.contains(k)) return;
  y.done_sent = true;
  post_control<&on_done>(0, 0, static_cast<std::uint8_t>(y.current->first), y.current->second);
}

}  // namespace

void on_poll(std::uint8_t kind, std::uint32_t number, bool grouped) {
  pe_lb& p = this_pe_lb("load balancing poll");
  if (static_cast<step_kind>(kind) == step_kind::any) {
    send_report(p, step_kind::any, number, grouped);
    return;
  }
  p.sync.polled = number;
  p.sync.grouped = grouped;  // a step this PE has not reached yet waits for it (try_report_sync)
  try_report_sync(p);
}

void on_moves(std::uint8_t kind, std::uint32_t number, std::vector<move_order> out, std::vector<wire_identity> in) {
  pe_lb& p = this_pe_lb("load balancing moves");
  pe_sync& y = p.sync;
  if (!y.current || y.current->first != static_cast<step_kind>(kind) || y.current->second != number) {
    report_fatal("roam: load balancing: moves for a step this PE did not report (runtime bug)");
    return;
  }
  for (const wire_identity& w : in) y.incoming.insert({w.id});
  y.moves_known = true;
  for (const move_order& m : out)
    if (!migrate_local_object(m.who.id, m.to)) {
      report_fatal("roam: load balancing could not move " + describe_object(m.who.id, "object") + " to pe " +
                   std::to_string(m.to) + " (it is not here any more, or cannot migrate)");
      return;
    }
  check_done(p);
}

void on_finish(std::uint8_t kind_byte, std::uint32_t number, std::vector<std::uint32_t> served, bool balanced) {
  pe_lb& p = this_pe_lb("load balancing finish");
  pe_sync& y = p.sync;
  const auto kind = static_cast<step_kind>(kind_byte);
  std::vector<std::pair<void (*)(void*), void*>> resume;
  std::vector<std::pair<void*, std::string_view>> early;
  if (kind == step_kind::sync) {
    // The objects of this step only: one that arrived already resumed by a
    // PE that finished first (and may have called at_sync for the next step
    // here) is not resumed again.
    for_each_local_object([&](const local_object& o) {
      if (o.resume_from_sync && (y.synced.contains(o.obj) || y.synced_elsewhere.contains({o.id})))
        resume.emplace_back(o.resume_from_sync, o.obj);
    });
    y.sync_step = number + 1;
    y.synced.clear();
    y.synced_elsewhere.clear();
    y.woke = false;
    y.reported = false;
    // Objects that came from a PE already in this step called at_sync for it.
    std::erase_if(y.ahead, [&](const auto& a) { return a.second <= y.sync_step; });
    early.swap(y.early);
  }
  y.current.reset();
  y.moves_known = false;
  y.done_sent = false;
  y.incoming.clear();
  y.arrived.clear();
  restart_period(p);
  if (balanced) ++p.steps_done;
  roam::detail::report_phase(phase_kind::load_balance, 0, number);
  // The balance_now() callbacks this step serves (collected before running any: one may call balance_now).
  std::vector<std::function<void()>> callbacks;
  for (std::uint32_t pe : served)
    if (pe == p.pe && !y.balance_now_done.empty()) {
      callbacks.push_back(std::move(y.balance_now_done.front()));
      y.balance_now_done.pop_front();
    }
  for (auto& [obj, type_name] : early) at_sync(obj, type_name);  // they are in this step now
  for (auto& [fn, obj] : resume) fn(obj);
  for (auto& cb : callbacks)
    if (cb) cb();
  try_report_sync(p);  // a poll for the next step may have come first
}

void note_arrival(pe_lb& p, const object_identity& who) {
  if (!p.sync.current) return;  // not within a step: nothing waits for it
  p.sync.arrived.insert({who});
  check_done(p);
}

void forget_early(pe_sync& y, const void* obj);

void note_leaving(pe_lb& p, const object_event& e) {
  pe_sync& y = p.sync;
  forget_early(y, e.obj);
  const bool was_synced = y.synced.erase(e.obj) > 0 || y.synced_elsewhere.erase({e.object}) > 0;
  if (e.peer == ~0u) return;
  if (was_synced) {
    post_control<&on_synced_elsewhere>(e.peer, 0, y.sync_step, wire_identity{e.object});
    return;
  }
  // Not synced yet: on its way it is counted on no PE, and a step could end
  // without it (its at_sync would then join the next step, and whoever
  // waits for its resume would wait a step more: ranks of Adaptive MPI
  // moving by hand as others balance hung so). The PE that waits for it —
  // this one, or the one it owed its at_sync to — hears from the
  // destination when it calls at_sync there.
  // The step it is in goes with it: the PE it goes to may not have begun it
  // yet (this PE finished the last step and resumed it first).
  std::uint32_t step = y.sync_step;
  if (auto it = y.ahead.find({e.object}); it != y.ahead.end()) {
    step = std::max(step, it->second);
    y.ahead.erase(it);
  }
  if (auto it = y.owed.find({e.object}); it != y.owed.end()) {
    post_control<&on_expect_sync>(e.peer, 0, wire_identity{e.object}, it->second, step);
    y.owed.erase(it);
    return;
  }
  if (!e.syncs) return;
  y.departed.insert({e.object});
  post_control<&on_expect_sync>(e.peer, 0, wire_identity{e.object}, p.pe, step);
}

namespace {
// The identity of the local object at `obj` (found by a walk: only while
// some PE waits for an object's at_sync here).
std::optional<object_identity> identity_here(const void* obj) {
  std::optional<object_identity> id;
  for_each_local_object([&](const local_object& o) {
    if (o.obj == obj) id = o.id;
  });
  return id;
}
}  // namespace

void on_expect_sync(wire_identity who, std::uint32_t waiting_pe, std::uint32_t step) {
  pe_lb& p = this_pe_lb("load balancing");
  pe_sync& y = p.sync;
  if (step > y.sync_step) y.ahead[{who.id}] = step;  // its at_sync waits for this PE to begin that step
  // Arrived and synced already: say so at once; else when it calls at_sync.
  bool synced_here = false;
  for_each_local_object([&](const local_object& o) {
    if (o.id == who.id && y.synced.contains(o.obj)) synced_here = true;
  });
  if (synced_here || y.synced_elsewhere.contains({who.id})) post_control<&on_synced_away>(waiting_pe, 0, who);
  else y.owed[{who.id}] = waiting_pe;
}

void on_synced_away(wire_identity who) {
  pe_lb& p = this_pe_lb("load balancing");
  if (p.sync.departed.erase({who.id}) > 0) try_report_sync(p);
}

void forget_early(pe_sync& y, const void* obj) {
  std::erase_if(y.early, [obj](const auto& x) { return x.first == obj; });
}

void note_died(pe_lb& p, const object_event& e) {
  // Its address may be reused by the next object born here.
  p.sync.synced.erase(e.obj);
  forget_early(p.sync, e.obj);
  // A PE waiting for its at_sync waits no more.
  if (auto it = p.sync.owed.find({e.object}); it != p.sync.owed.end()) {
    post_control<&on_synced_away>(it->second, 0, wire_identity{e.object});
    p.sync.owed.erase(it);
  }
  // Perhaps it was the last one this PE waited for (it was asked for its
  // report and has not sent it): look again once the destruction is over
  // (not from inside it).
  const pe_sync& y = p.sync;
  if (y.polled && *y.polled == y.sync_step && !y.reported)
    roam::detail::post_control_uncounted<&on_membership_recheck>(p.pe);
}

void on_membership_recheck() { try_report_sync(this_pe_lb("load balancing")); }

void on_synced_elsewhere(std::uint32_t sync_step, wire_identity who) {
  pe_lb& p = this_pe_lb("load balancing");
  if (sync_step != p.sync.sync_step) return;  // that step is over
  p.sync.synced_elsewhere.insert({who.id});
  try_report_sync(p);
}

void at_sync(void* obj, std::string_view type_name) {
  pe_lb& p = this_pe_lb("at_sync");
  pe_sync& y = p.sync;
  if (!y.ahead.empty())  // an object already in a later step than this PE (pe_sync::early)
    if (const auto id = identity_here(obj))
      if (auto it = y.ahead.find({*id}); it != y.ahead.end() && it->second > y.sync_step) {
        y.early.emplace_back(obj, type_name);
        return;
      }
  if (!y.synced.insert(obj).second) {
    report_fatal("roam: " + describe_local(obj, type_name) + ": at_sync() called twice in balancing step " +
                 std::to_string(y.sync_step) + " (wait for resume_from_sync before the next at_sync)");
    return;
  }
  if (!y.owed.empty())
    if (const auto id = identity_here(obj))
      if (auto it = y.owed.find({*id}); it != y.owed.end()) {
        post_control<&on_synced_away>(it->second, 0, wire_identity{*id});
        y.owed.erase(it);
      }
  if (!y.woke) {
    y.woke = true;
    post_control<&on_wake>(0, 0, y.sync_step);
  }
  try_report_sync(p);
}

// ---- on global PE 0 ---------------------------------------------------------

namespace {

coordinator& coord(const char* what) {
  lb_state* s = state();
  if (!s || !s->coord) {
    report_fatal(std::string("roam: load balancing ") + what + " reached a PE that does not coordinate (runtime bug)");
    std::abort();
  }
  return *s->coord;
}

// The +balancer list's strategy for the n-th balancing (the last one from then on); empty: none given.
std::string listed_strategy(const lb_state& s, std::uint32_t n) {
  if (s.strategies.empty()) return {};
  return s.strategies[std::min<std::size_t>(n, s.strategies.size() - 1)];
}

void maybe_start(coordinator& c) {
  lb_state& s = *state();
  if (c.active) return;
  step_kind kind;
  std::uint32_t number;
  if (c.sync_wanted && *c.sync_wanted == c.next_sync) {
    kind = step_kind::sync;
    number = c.next_sync;
    c.sync_wanted.reset();
    c.serving.clear();
  } else if (!c.any_requesters.empty()) {
    kind = step_kind::any;
    number = c.any_steps++;
    c.serving = std::move(c.any_requesters);
    c.any_requesters.clear();
  } else {
    return;
  }
  c.active = {kind, number};
  if (kind == step_kind::sync) arm_sync_probe(c);
  c.reports.clear();
  c.summaries.clear();
  c.done = 0;
  // Hierarchical over several groups runs distributed (groups.cpp): no PE gathers every report.
  c.grouped = s.measuring && !s.meta && group_count(s) > 1 && listed_strategy(s, c.balancings) == "Hierarchical";
  c.step_balanced = c.grouped;  // run_step decides otherwise (a grouped step always runs Hierarchical)
  for (std::uint32_t pe = 0; pe < s.num_pes; ++pe)
    post_control<&on_poll>(pe, 0, static_cast<std::uint8_t>(kind), number, c.grouped);
}


// What balances this step: the list's next strategy, or under +MetaLB what it decides (null: nobody
// moves). +MetaLB decides at sync steps only: balance_now() and +LBPeriod always balance.
const strategy_info* choose_strategy(lb_state& s, coordinator& c, step_kind kind, const problem& pb) {
  if (!s.measuring) return nullptr;
  const std::string listed = listed_strategy(s, c.balancings);
  if (!s.meta) return find_strategy(listed);
  if (kind == step_kind::any) return find_strategy(listed.empty() ? "GreedyRefine" : listed);
  const meta_balancer::decision d = c.meta.decide(pb, listed);
  if (!d.balance) return nullptr;
  const strategy_info* st = find_strategy(d.strategy);
  if (!st) st = find_strategy("GreedyRefine");  // Metis not built
  if (s.debug)
    std::fprintf(stderr, "roam lb: MetaLB at step %u: imbalance paid %.6f s + next %.6f s >= balancing cost %.6f s: %s\n",
                 c.steps, d.paid, d.predicted, d.cost, st->name.c_str());
  return st;
}

void run_step(coordinator& c) {
  lb_state& s = *state();
  const auto [kind, number] = *c.active;
  problem pb;
  pb.pes.resize(s.num_pes);
  pb.step = c.steps;
  pb.seed = 0x9e3779b97f4a7c15ull ^ c.steps;
  std::vector<object_identity> ids;
  std::map<identity_key, std::uint32_t> index_of;
  const std::uint32_t ppn = static_cast<std::uint32_t>(s.pes.size());
  for (pe_report& r : c.reports) {
    pe_load& l = pb.pes[r.pe];
    l.background = r.background;
    l.idle = r.idle;
    l.speed = r.speed;
    l.group = ppn ? r.pe / ppn : 0;
    for (const object_report& o : r.objects) {
      if (s.comm) index_of.emplace(identity_key{o.who.id}, static_cast<std::uint32_t>(ids.size()));
      pb.objects.push_back({ids.size(), o.load, r.pe, o.migratable});
      ids.push_back(o.who.id);
    }
  }
  // Edges between objects of the step only (messages to groups, or to objects not taking part, do not pull).
  for (const pe_report& r : c.reports)
    for (const edge_report& e : r.edges) {
      auto from = index_of.find({e.from.id}), to = index_of.find({e.to.id});
      if (from != index_of.end() && to != index_of.end() && from->second != to->second)
        pb.edges.push_back({from->second, to->second, e.messages, e.bytes});
    }
  assignment a = stay(pb);
  const strategy_info* st = choose_strategy(s, c, kind, pb);
  c.step_balanced = st != nullptr;
  const auto t0 = std::chrono::steady_clock::now();
  if (st) {
    try {
      a = st->run(pb, strategy_options{});
    } catch (const std::exception& e) {
      report_fatal("roam: pe 0: load balancing strategy " + st->name + " failed: " + e.what());
      return;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (a.pe.size() != pb.objects.size()) {
    report_fatal("roam: pe 0: load balancing strategy " + (st ? st->name : std::string("(none)")) + " placed " +
                 std::to_string(a.pe.size()) + " objects of " + std::to_string(pb.objects.size()));
    return;
  }
  std::vector<std::vector<move_order>> out(s.num_pes);
  std::vector<std::vector<wire_identity>> in(s.num_pes);
  for (std::size_t i = 0; i < pb.objects.size(); ++i) {
    const std::uint32_t from = pb.objects[i].pe, to = a.pe[i];
    if (to == from) continue;
    if (to >= s.num_pes || !pb.objects[i].migratable) {
      report_fatal("roam: pe 0: load balancing strategy " + st->name + " moved " + describe_object(ids[i], "object") +
                   (to >= s.num_pes ? " to pe " + std::to_string(to) + ", which does not exist" : ", which cannot migrate"));
      return;
    }
    out[from].push_back({{ids[i]}, to});
    in[to].push_back({ids[i]});
  }
  if (st && (s.debug || s.dump)) {
    const balance_stats before = evaluate(pb, stay(pb)), after = evaluate(pb, a);
    if (s.debug)
      std::fprintf(stderr,
                   "roam lb: step %u (%s, %s): max/avg load %.3f -> %.3f (max %.6f s, avg %.6f s), %zu of %zu objects "
                   "moved, strategy %.3f ms\n",
                   c.steps, st->name.c_str(), kind == step_kind::sync ? "at sync" : "at any time", before.max_over_avg,
                   after.max_over_avg, after.max_load, after.avg_load, after.migrations, pb.objects.size(), seconds * 1e3);
    if (s.dump) {
      try {
        s.dump->append(pb, st->name, &a);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "roam: pe 0: +LBDump: %s (no further steps are dumped)\n", e.what());
        s.dump.reset();
      }
    }
  }
  c.strategy_seconds += seconds;
  ++c.steps;
  if (st) {
    ++c.balancings;
    if (s.meta) {
      const balance_stats after = evaluate(pb, a);
      c.meta.balanced(seconds, after.max_load - after.avg_load);
      c.moves_sent = std::chrono::steady_clock::now();
      c.timing_moves = true;
    }
  }
  c.reports.clear();
  for (std::uint32_t pe = 0; pe < s.num_pes; ++pe)
    post_control<&on_moves>(pe, 0, static_cast<std::uint8_t>(kind), number, std::move(out[pe]), std::move(in[pe]));
}

}  // namespace

void on_wake(std::uint32_t sync_step) {
  coordinator& c = coord("wake");
  if (sync_step != c.next_sync) return;  // a later PE's wake for a step already started or wanted
  if (c.active && c.active->first == step_kind::sync && c.active->second == sync_step) return;
  c.sync_wanted = sync_step;
  maybe_start(c);
}

void on_request_any(std::uint32_t requester) {
  coordinator& c = coord("request");
  c.any_requesters.push_back(requester);
  maybe_start(c);
}

void on_report(std::uint8_t kind, std::uint32_t number, pe_report r) {
  coordinator& c = coord("report");
  lb_state& s = *state();
  if (!c.active || c.active->first != static_cast<step_kind>(kind) || c.active->second != number) {
    report_fatal("roam: pe 0: load balancing report from pe " + std::to_string(r.pe) +
                 " for a step that is not running (runtime bug)");
    return;
  }
  c.reports.push_back(std::move(r));
  if (c.reports.size() == s.num_pes) run_step(c);
}

void on_done(std::uint8_t kind, std::uint32_t number) {
  coordinator& c = coord("done");
  lb_state& s = *state();
  if (!c.active || c.active->first != static_cast<step_kind>(kind) || c.active->second != number) {
    report_fatal("roam: pe 0: load balancing done for a step that is not running (runtime bug)");
    return;
  }
  if (++c.done < s.num_pes) return;
  if (c.timing_moves) {
    c.meta.migrated(std::chrono::duration<double>(std::chrono::steady_clock::now() - c.moves_sent).count());
    c.timing_moves = false;
  }
  if (static_cast<step_kind>(kind) == step_kind::sync) c.next_sync = number + 1;
  const std::vector<std::uint32_t> served = std::move(c.serving);
  c.serving.clear();
  c.active.reset();
  for (std::uint32_t pe = 0; pe < s.num_pes; ++pe) post_control<&on_finish>(pe, 0, kind, number, served, c.step_balanced);
  maybe_start(c);
}

}  // namespace roam::lb::detail
