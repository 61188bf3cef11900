// A sync step that can never finish ends the program with an error instead
// of hanging. Every object whose type has resume_from_sync takes part in
// every sync step; one that never calls at_sync (its work is over, say)
// holds the step, and every object that did call it, for ever.
//
// While a sync step runs, PE 0 probes it every `probe_interval`: each PE
// sends back the messages it created and processed, the timers it has
// pending, and (second round) the participating objects that have not
// called at_sync. Two consecutive rounds with every created message
// processed, the same totals, and no timer pending mean nothing can run any
// more (the counting argument of quiescence detection): no object will ever
// call at_sync again, so the step is reported with the objects it waits for.
// The probes are uncounted control messages, one round a second: nothing a
// running program would notice.
#include <chrono>
#include <string>
#include <vector>

#include <roam/msg/detail/control.hpp>
#include <roam/obj/walk.hpp>
#include <roam/sched/detail/pe_state.hpp>
#include <roam/sched/detail/post.hpp>
#include <roam/sched/detail/runtime_state.hpp>
#include <roam/sched/runtime.hpp>

#include "lb_options.hpp"
#include "balancer.hpp"

namespace roam::lb::detail {

namespace {

using roam::detail::post_control_uncounted;

constexpr auto probe_interval = std::chrono::seconds(1);
// Objects named in the error; the rest are counted.
constexpr std::size_t named_at_most = 8;

coordinator* coordinator_here() {
  lb_state* s = state();
  return s ? s->coord.get() : nullptr;
}

bool sync_step_running(const coordinator& c) { return c.active && c.active->first == step_kind::sync; }

void start_round(coordinator& c, std::uint32_t round) {
  coordinator::sync_probe& p = c.probe;
  p.round = round;
  p.replies = 0;
  p.created = p.processed = p.timers = 0;
  p.missing.clear();
  p.missing_total = 0;
  for (std::uint32_t pe = 0; pe < state()->num_pes; ++pe) post_control_uncounted<&on_sync_probe>(pe, p.step, round);
}

void probe_due() {
  coordinator* c = coordinator_here();
  if (!c) return;
  if (!sync_step_running(*c)) {
    c->probe.armed = false;  // the next sync step arms it again
    return;
  }
  c->probe.step = c->active->second;
  start_round(*c, 1);
}

void schedule_probe(coordinator& c) {
  c.probe.armed = true;
  roam::after(probe_interval, [] { probe_due(); });
}

void report_stuck(const coordinator::sync_probe& p) {
  std::string names;
  for (const std::string& m : p.missing) names += "\n  " + m;
  if (p.missing_total > p.missing.size())
    names += "\n  and " + std::to_string(p.missing_total - p.missing.size()) + " more";
  roam::detail::report_fatal(
      "roam: load balancing sync step " + std::to_string(p.step) + " can never finish: every PE is idle, no message "
      "is in flight and no timer is set, but " + std::to_string(p.missing_total) +
      " objects whose type has resume_from_sync have not called at_sync:" + names +
      "\nEvery object of such a type takes part in every sync step: call at_sync() in each step, or destroy the "
      "object (destroy_self) once it has no more steps to take.");
}

}  // namespace

void arm_sync_probe(coordinator& c) {
  if (!c.probe.armed) schedule_probe(c);
}

void on_sync_probe(std::uint32_t step, std::uint32_t round) {
  pe_lb& p = this_pe_lb("load balancing probe");
  lb_state& s = *state();
  roam::detail::pe_state& pe = *roam::detail::tls_pe;
  std::uint64_t created = pe.created(), timers = pe.pending_timers();
  // Messages posted from threads that are not PEs count once per process.
  if (p.pe == s.first_pe) created += roam::detail::g_foreign_created.load(std::memory_order_relaxed);
  // PE 0's +LBPeriod task sleeps on a timer for as long as the program runs.
  if (p.pe == 0 && s.measuring && settings().lb_period > 0 && timers > 0) --timers;
  std::vector<std::string> missing;
  std::uint64_t missing_here = 0;
  if (round == 2 && p.sync.sync_step == step)
    for_each_local_object([&](const local_object& o) {
      if (!o.resume_from_sync || p.sync.synced.contains(o.obj) || p.sync.synced_elsewhere.contains({o.id})) return;
      ++missing_here;
      if (missing.size() < named_at_most)
        missing.push_back("pe " + std::to_string(p.pe) + ": " + describe_object(o.id, o.type_name));
    });
  post_control_uncounted<&on_sync_probe_reply>(0, step, round, created, pe.processed(), timers, missing_here,
                                               std::move(missing));
}

void on_sync_probe_reply(std::uint32_t step, std::uint32_t round, std::uint64_t created, std::uint64_t processed,
                         std::uint64_t timers, std::uint64_t missing_here, std::vector<std::string> missing) {
  coordinator* c = coordinator_here();
  if (!c) return;
  coordinator::sync_probe& p = c->probe;
  if (step != p.step || round != p.round) return;
  p.created += created;
  p.processed += processed;
  p.timers += timers;
  p.missing_total += missing_here;
  for (std::string& m : missing)
    if (p.missing.size() < named_at_most) p.missing.push_back(std::move(m));
  if (++p.replies < state()->num_pes) return;

  const bool still_waiting = sync_step_running(*c) && c->active->second == step;
  const bool quiet = p.created == p.processed && p.timers == 0;
  if (still_waiting && quiet && round == 1) {
    p.first_created = p.created;
    p.first_processed = p.processed;
    start_round(*c, 2);
    return;
  }
  if (still_waiting && quiet && round == 2 && p.created == p.first_created && p.processed == p.first_processed &&
      p.missing_total > 0) {
    report_stuck(p);
    return;
  }
  schedule_probe(*c);  // busy, or the step finished meanwhile: probe_due decides
}

}  // namespace roam::lb::detail
