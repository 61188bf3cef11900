// The load balancing layer's run hooks and public calls (roam/lb/lb.hpp):
// the options are checked and the state built before the PEs start; the load
// meter subscribes when a strategy will run; +LBPeriod's timer runs on PE 0.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <sstream>

#include <roam/flow/sleep.hpp>
#include <roam/lb/lb.hpp>
#include <roam/msg/detail/control.hpp>
#include <roam/obj/detail/migratable.hpp>
#include <roam/sched/clock.hpp>
#include <roam/sched/detail/pe_state.hpp>
#include <roam/sched/detail/runtime_state.hpp>
#include <roam/sched/detail/startup.hpp>
#include <roam/sched/task.hpp>

#include <roam/lb/detail/checkpoint_support.hpp>
#include <roam/sched/detail/hook_slot.hpp>

#include "lb_options.hpp"
#include "balancer.hpp"

namespace roam::lb::detail {

namespace {

std::unique_ptr<lb_state> g_state;
std::unique_ptr<load_meter> g_meter;
std::unique_ptr<membership_watch> g_watch;

// Charm++'s name for a strategy ("GreedyLB", "RandCentLB", "HybridLB") is
// accepted for the strategy that does the same, so that a job's options
// carry over (Adaptive MPI programs come with them).
// A name that is neither stays as given, for the error that names it.
std::string roam_name(const std::string& name) {
  if (find_strategy(name) || name.size() <= 2 || !name.ends_with("LB")) return name;
  const std::string base = name.substr(0, name.size() - 2);
  const std::string ours = base == "RandCent" ? "Random" : base == "Hybrid" ? "Hierarchical" : base;
  return find_strategy(ours) ? ours : name;
}

std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string name; std::getline(in, name, ',');)
    if (!name.empty()) out.push_back(roam_name(name));
  return out;
}

std::string run_started(roam::detail::runtime_state& rt) {
  const lb_settings& o = settings();
  auto s = std::make_unique<lb_state>();
  s->strategies = split_names(o.balancer);
  for (const std::string& name : s->strategies)
    if (!find_strategy(name)) {
      std::string known;
      for (const std::string& k : strategy_names()) known += (known.empty() ? "" : ", ") + k;
      return "+balancer: no strategy named '" + name + "' (known: " + known + ")";
    }
  for (const std::string& name : s->strategies) s->comm |= find_strategy(name)->needs_comm;
  s->meta = o.meta_lb;
  s->measuring = !o.lb_off && (s->meta || !s->strategies.empty());
  if (o.lb_period > 0 && !s->measuring)
    return "+LBPeriod needs a strategy to run: give +balancer NAME (or +MetaLB)";
  s->debug = o.lb_debug;
  s->num_pes = rt.num_pes;
  s->group_pes = o.lb_group_pes ? o.lb_group_pes : rt.ppn;
  s->cpu_time = o.lb_cpu_time;
  if (o.lb_group_fanout) s->fanout = o.lb_group_fanout;
  s->first_pe = rt.first_pe;
  s->ticks_per_second = clock_ticks_per_second();
  for (std::uint32_t i = 0; i < rt.ppn; ++i) {
    auto p = std::make_unique<pe_lb>();
    p->pe = rt.first_pe + i;
    p->meter.period_start = clock_ticks();
    s->pes.push_back(std::move(p));
  }
  if (rt.first_pe == 0) {
    s->coord = std::make_unique<coordinator>();
    if (!o.lb_dump.empty()) {
      if (!s->measuring) return "+LBDump needs a strategy to run: give +balancer NAME (or +MetaLB)";
      try {
        s->dump = std::make_unique<dump_writer>(o.lb_dump);
      } catch (const std::exception& e) {
        return std::string("+LBDump: ") + e.what();
      }
    }
  }
  g_state = std::move(s);
  g_watch = std::make_unique<membership_watch>(*g_state);
  add_lifecycle_observer(*g_watch);
  if (g_state->measuring) {
    g_meter = std::make_unique<load_meter>(*g_state);
    add_observer(*g_meter);
    add_lifecycle_observer(*g_meter);
  }
  return {};
}

void run_finished(roam::detail::runtime_state&) {
  if (g_meter) {
    remove_lifecycle_observer(*g_meter);
    remove_observer(*g_meter);
  }
  if (g_watch) remove_lifecycle_observer(*g_watch);
  g_watch.reset();
  g_meter.reset();
  g_state.reset();
}

// +LBPeriod: PE 0 asks for a step at any time every period (a sleeping task
// does not hold quiescence back).
task<> every_period(double seconds) {
  const auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
  for (;;) {
    co_await sleep_for(period);
    if (!state()) co_return;
    roam::detail::post_control<&on_request_any>(0, 0, ~std::uint32_t{0});  // no PE: no callback waits
  }
}

void start_period_timer() {
  roam::detail::spawn(every_period(settings().lb_period), [](std::exception_ptr) {});
}

void setup_pe(roam::detail::pe_state& pe) {
  // On the PE's own thread: where its speed's first period begins.
  if (g_state)
    if (pe_lb* p = g_state->of(pe.id())) p->meter.run_start = thread_run_times();
  if (pe.id() == 0 && g_state && g_state->measuring && settings().lb_period > 0)
    roam::detail::post_control_uncounted<&start_period_timer>(0);
}

[[maybe_unused]] const bool registered = [] {
  roam::detail::register_run_hooks({&run_started, &run_finished});
  roam::detail::register_pe_setup(&setup_pe);
  roam::detail::install_hook(roam::detail::g_at_sync, &at_sync, "g_at_sync", "lb (src/lb/setup.cpp)");
  return true;
}();

}  // namespace

lb_state* state() noexcept { return g_state.get(); }

pe_lb& this_pe_lb(const char* what) {
  roam::detail::pe_state* pe = roam::detail::tls_pe;
  pe_lb* p = pe && g_state ? g_state->of(pe->id()) : nullptr;
  if (!p) {
    roam::detail::report_fatal(std::string("roam: ") + what + " called outside a PE of a running program");
    std::abort();
  }
  return *p;
}

std::string balancing_in_progress_here() {
  lb_state* s = g_state.get();
  roam::detail::pe_state* pe = roam::detail::tls_pe;
  pe_lb* p = s && pe ? s->of(pe->id()) : nullptr;
  if (!p) return {};
  const pe_sync& sync = p->sync;
  const std::string where = " on pe " + std::to_string(p->pe);
  if (!sync.synced.empty() || !sync.synced_elsewhere.empty())
    return std::to_string(sync.synced.size() + sync.synced_elsewhere.size()) +
           " objects called at_sync and wait for a balancing step" + where;
  if (sync.current) return "a load balancing step is being carried out" + where;
  return {};
}

}  // namespace roam::lb::detail

namespace roam {

void balance_now(std::function<void()> done) {
  lb::detail::pe_lb& p = lb::detail::this_pe_lb("roam::balance_now");
  p.sync.balance_now_done.push_back(std::move(done));
  roam::detail::post_control<&lb::detail::on_request_any>(0, 0, p.pe);
}

bool load_balancing_enabled() noexcept {
  const lb::detail::lb_state* s = lb::detail::state();
  return s && s->measuring;
}

void charge_load(const void* object, std::chrono::nanoseconds t) noexcept {
  roam::detail::pe_state* pe = roam::detail::tls_pe;
  if (pe && object) lb::detail::charge(pe->id(), object, t);
}

void set_load(const void* object, std::chrono::nanoseconds t) noexcept {
  roam::detail::pe_state* pe = roam::detail::tls_pe;
  if (pe && object) lb::detail::set(pe->id(), object, t);
}

std::uint32_t load_balancing_steps() noexcept {
  roam::detail::pe_state* pe = roam::detail::tls_pe;
  lb::detail::lb_state* s = lb::detail::state();
  lb::detail::pe_lb* p = pe && s ? s->of(pe->id()) : nullptr;
  return p ? p->steps_done : 0;
}

}  // namespace roam
