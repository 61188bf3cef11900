// Library mode's engine (include/roam/sched/detail/library_mode.hpp): the
// same start-up, PE threads and orderly end as an SMP node of roam::run
// (runtime.cpp's run_node), but the program keeps its thread: it lends it
// to roam as the transport's progress thread only inside these calls.
#include <roam/sched/detail/library_mode.hpp>

#include <atomic>
#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include <roam/machine/detail/hosts.hpp>
#include <roam/machine/detail/membership.hpp>
#include <roam/sched/detail/pe_state.hpp>
#include <roam/sched/detail/post.hpp>

#include "options.hpp"
#include "runtime_internal.hpp"

namespace roam::detail {

namespace {

struct library_session {
  // +ppn 1: PE 0 runs on the program's thread inside the calls and drives
  // the transport itself, as a non-SMP node of roam::run does (a thread of
  // its own beside a communication thread halves the rate on a busy host).
  // More PEs: every PE a thread, the program's thread the communication
  // thread inside the calls.
  bool pe_on_caller = false;
  std::unique_ptr<membership_transport> net;
  std::unique_ptr<runtime_state> rt;
  std::unique_ptr<std::barrier<>> sync;
  std::vector<std::thread> threads;
  std::atomic<std::uint32_t> pes_finished{0};
  unique_function<void(const roam::args&)> main{[](const roam::args&) {}};
  roam::args program_args;

  // Ends of calls, oldest first, from a PE to the calling thread. More than
  // one can wait: a call that needs no other process (its function stays on
  // PE 0) ends there at once, and node 0 may end the next call before this
  // process's thread has taken the last one.
  std::mutex call_mutex;
  std::deque<library_call_outcome> outcomes;
  std::atomic<std::uint32_t> calls_ended{0};
};

std::unique_ptr<library_session> g_session;
std::atomic<bool> g_started_once{false};

// Failure detection by heartbeats assumes every process drives its transport
// all the time; here a process is away for as long as its MPI phase lasts.
// Unless the user asked for a timeout, a silent peer is never declared failed
// (an MPI job ends on a failed rank anyway).
void no_failure_detection_unless_asked(const runtime_options& opts) {
  if (opts.ft_timeout_ms || std::getenv("ROAM_MPI_HEARTBEAT_TIMEOUT_MS")) return;
  ::setenv("ROAM_MPI_HEARTBEAT_TIMEOUT_MS", "86400000", 1);  // a day: the largest it accepts
  if (!opts.ft_heartbeat_ms && !std::getenv("ROAM_MPI_HEARTBEAT_INTERVAL_MS"))
    ::setenv("ROAM_MPI_HEARTBEAT_INTERVAL_MS", "3600000", 1);
}

// The calling thread as the progress thread until `done()`: progress while
// there is work, spin +idlespin after the last of it, then sleep in the
// transport (a PE's wake() ends the sleep).
template <class Done>
void pump_until(library_session& s, Done done) {
  auto idle_since = std::chrono::steady_clock::now();
  while (!done()) {
    if (s.net->progress()) {
      idle_since = std::chrono::steady_clock::now();
      continue;
    }
    if (s.rt->opts.busywait || std::chrono::steady_clock::now() - idle_since < s.rt->opts.idle_spin) continue;
    s.net->wait(std::chrono::milliseconds(100));
  }
}

// +ppn 1: PE 0's scheduler loop on the calling thread until `done()` or
// roam stops: its items, the transport every 32 items and whenever the
// queues are empty, timers when due, then a spin of +idlespin and a sleep in
// the transport (a frame or a timer ends it). tls_pe is PE 0 meanwhile.
template <class Done>
void run_pe_here(library_session& s, Done done) {
  pe_state& pe = *s.rt->pes[0];
  transport& net = *s.net;
  unsigned since_poll = 0;
  auto idle_since = std::chrono::steady_clock::now();
  auto timer_due = [&](std::chrono::steady_clock::time_point now) {
    std::chrono::steady_clock::time_point when;
    return pe.next_timer(when) && when <= now;
  };
  while (!done() && !s.rt->stopping()) {
    if (pe.run_one()) {
      if (++since_poll >= 32) {
        since_poll = 0;
        net.progress();
        if (timer_due(std::chrono::steady_clock::now())) pe.run_earliest_timer();
      }
      idle_since = std::chrono::steady_clock::now();
      continue;
    }
    if (net.progress()) {
      idle_since = std::chrono::steady_clock::now();
      continue;
    }
    const auto now = std::chrono::steady_clock::now();
    if (timer_due(now)) {
      pe.run_earliest_timer();
      continue;
    }
    if (pe.has_idle_hooks()) {
      pe.run_idle_hooks();
      continue;
    }
    if (s.rt->opts.busywait || now - idle_since < s.rt->opts.idle_spin) continue;
    auto timeout = std::chrono::microseconds(100'000);
    std::chrono::steady_clock::time_point when;
    if (pe.next_timer(when))
      timeout = std::min(timeout, std::chrono::duration_cast<std::chrono::microseconds>(when - now) +
                                      std::chrono::microseconds(1));
    if (!pe.has_ready_work()) net.wait(timeout);
  }
}

}  // namespace

std::string library_start(const std::string& kind, int& argc, char** argv) {
  if (g_session) return "roam is already running in library mode in this process";
  if (g_runtime.load()) return "roam is already running in this process (roam::run)";
  g_command_line.assign(argv, argv + argc);
  parse_result parsed = parse_runtime_options(argc, argv);
  if (!parsed.error.empty()) return parsed.error;
  runtime_options opts = parsed.options;
  if (opts.help || opts.version) return "+help and +version are for roam::run programs, not library mode";
  if (opts.deterministic) return "+deterministic runs one process on one thread; library mode runs on a communicator";
  for (auto check : startup_checks())
    if (auto e = check(); !e.empty()) return "start-up check failed: " + e;

  auto s = std::make_unique<library_session>();
  s->program_args = roam::args(std::vector<std::string>(argv, argv + argc));
  const std::uint32_t ppn = opts.ppn ? opts.ppn : 1;
  if (const char* spares = std::getenv("ROAM_SPARES"); spares && *spares)
    return "library mode has no spare processes (ROAM_SPARES is set)";
  apply_ft_options(opts);
  no_failure_detection_unless_asked(opts);
  std::string error;
  s->net = make_job_transport(kind, error);
  if (!s->net) return kind + " transport: " + error;
  auto fail = [&](std::string why) {
    s->net->finish();
    return kind + " transport: " + why;
  };
  if (auto e = check_peers(*s->net, ppn); !e.empty()) return fail(e);
  if (auto e = measure_clock_offset(*s->net); !e.empty()) return fail(e);
  s->net->resume();
  if (opts.pes && opts.pes != s->net->num_nodes() * ppn)
    return fail("+p " + std::to_string(opts.pes) + " disagrees with " + std::to_string(s->net->num_nodes()) +
                " processes x +ppn " + std::to_string(ppn));

  node_layout layout{s->net->my_node(), s->net->num_nodes(), ppn};
  set_node_hosts(s->net->logical_hosts());
  set_this_job({s->net->job_key(), s->net->epoch()});
  s->rt = std::make_unique<runtime_state>(opts, layout, s->net.get());
  s->rt->transport_name = kind;
  if (!install_runtime(*s->rt)) return fail("another roam runtime is installed");
  s->net->set_handlers(handlers_for(*s->rt));
  if (!run_started_hooks(*s->rt)) {
    s->net->set_handlers({});
    g_runtime.store(nullptr);
    return fail("a layer's start-up failed (reported above)");
  }
  // An empty main: node 0's readonlies go out when it ends, as in roam::run.
  if (s->rt->my_node == 0) post_main(*s->rt, s->main, s->program_args);
  s->sync = std::make_unique<std::barrier<>>(static_cast<std::ptrdiff_t>(ppn));
  s->pe_on_caller = ppn == 1;
  if (s->pe_on_caller) {
    pe_thread_begin(*s->rt, 0, *s->sync, /*name_thread=*/false);  // the program's thread keeps its name
    tls_pe = nullptr;  // a PE only inside the calls
  } else {
    library_session& session = *s;
    for (std::uint32_t i = 0; i < ppn; ++i)
      s->threads.emplace_back([&session, i] {
        pe_thread_body(*session.rt, i, *session.sync);
        session.pes_finished.fetch_add(1, std::memory_order_release);
        session.net->wake();
      });
  }
  g_session = std::move(s);
  g_started_once.store(true);
  return {};
}

library_call_outcome library_pump() {
  library_session& s = *g_session;
  const std::uint32_t ppn = s.rt->ppn;
  auto call_ended = [&] { return s.calls_ended.load(std::memory_order_acquire) != 0; };
  struct pe_scope {  // +ppn 1: the calling thread is PE 0 until the pump returns
    bool on;
    pe_state* pe;
    pe_scope(bool o, pe_state* p) : on(o), pe(p) {
      if (on) tls_pe = pe;
    }
    ~pe_scope() {
      if (on) tls_pe = nullptr;
    }
  } scope(s.pe_on_caller, s.rt->pes[0].get());
  if (s.pe_on_caller) {
    run_pe_here(s, call_ended);  // returns early if roam stops (roam::exit or a fatal error)
  } else {
    pump_until(s, [&] {
      return call_ended() || s.pes_finished.load(std::memory_order_acquire) == ppn;  // roam stopped
    });
  }
  library_call_outcome out;
  if (s.calls_ended.load(std::memory_order_acquire) != 0) {
    std::lock_guard lock(s.call_mutex);
    out = std::move(s.outcomes.front());
    s.outcomes.pop_front();
    s.calls_ended.fetch_sub(1, std::memory_order_acq_rel);
  } else {
    out.how = library_call_outcome::kind::stopped;
  }
  // The peers may wait for what our PEs sent last (the end of the call).
  pump_until(s, [&] { return s.net->sends_started(); });
  return out;
}

void library_end_call(library_call_outcome outcome) noexcept {
  library_session* s = g_session.get();
  if (!s) return;
  {
    std::lock_guard lock(s->call_mutex);
    s->outcomes.push_back(std::move(outcome));
  }
  s->calls_ended.fetch_add(1, std::memory_order_release);
  s->net->wake();
}

void library_stop() {
  if (!g_session) return;
  library_session& s = *g_session;
  s.rt->request_exit(0, /*from_peer=*/true);  // every process stops its own PEs
  if (s.pe_on_caller) {
    pe_thread_end(*s.rt, 0, *s.sync);  // PE 0's teardown on the thread that ran it
  } else {
    pump_until(s, [&] { return s.pes_finished.load(std::memory_order_acquire) == s.rt->ppn; });
    for (auto& t : s.threads) t.join();
  }
  main_ended();
  run_finished_hooks(*s.rt);
  s.net->set_handlers({});
  g_runtime.store(nullptr);
  s.net->finish();
  g_session.reset();
}

bool library_running() noexcept { return g_session != nullptr; }
bool library_started_once() noexcept { return g_started_once.load(); }
bool library_stopped() noexcept {
  if (!g_session) return false;
  if (g_session->pe_on_caller) return g_session->rt->stopping();
  return g_session->pes_finished.load(std::memory_order_acquire) == g_session->rt->ppn;
}

std::vector<std::uint32_t> library_node_leaders() {
  std::vector<std::uint32_t> leaders;
  if (!g_session) return leaders;
  const runtime_state& rt = *g_session->rt;
  for (std::uint32_t n = 0; n < rt.num_nodes; ++n) leaders.push_back(rt.first_pe_of(n));
  return leaders;
}

std::uint32_t library_my_node() noexcept { return g_session ? g_session->rt->my_node : 0; }

}  // namespace roam::detail
