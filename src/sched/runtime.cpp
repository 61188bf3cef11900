#include <barrier>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <future>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>

#include <unistd.h>

#include <roam/sched/detail/post.hpp>
#include <roam/sched/detail/startup.hpp>
#include <roam/sched/observe.hpp>
#include <roam/sched/runtime.hpp>
#include <roam/machine/detail/topology.hpp>
#include <roam/machine/detail/hosts.hpp>
#include <roam/machine/detail/membership.hpp>
#include <roam/machine/detail/transport.hpp>

#include "options.hpp"
#include <roam/machine/build_info.hpp>
#include "runtime_internal.hpp"
#include "ult_internal.hpp"

namespace roam {

long long args::int_or(std::size_t i, long long fallback) const {
  if (i >= v_.size()) return fallback;
  const std::string& s = v_[i];
  long long v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size())
    throw std::invalid_argument("argument " + std::to_string(i) + " ('" + s + "') is not an integer");
  return v;
}

namespace detail {

namespace {
// The window for readonly assignment: PE 0 runs main and nothing has left it since.
std::uint64_t g_sent_at_main_start = 0;
bool g_main_running = false;
}  // namespace

/// The program's command line as roam::run got it (run_started_hooks hands it to the runtime).
std::vector<std::string> g_command_line;

bool readonly_window_open() noexcept {
  pe_state* pe = tls_pe;
  return pe == nullptr ? g_runtime.load() == nullptr
                       : pe->id() == 0 && g_main_running && pe->sent_away() == g_sent_at_main_start;
}

namespace {

double microseconds(std::chrono::nanoseconds t) { return static_cast<double>(t.count()) / 1e3; }

// +idlestats: one line per PE, written at once so PEs' lines do not interleave.
void print_idle_stats(const pe_state& pe) {
  const idle_stats& s = pe.idle();
  char line[512];
  std::snprintf(line, sizeof line,
                "[pe %u/%u] idle %llu times (%.0f us spinning), slept %llu times (%.0f us asleep), woken by a sender "
                "%llu times: wake-up latency mean %.1f us, max %.1f us; sent %llu wakes; spin budget now %.0f us\n",
                pe.id(), pe.runtime().num_pes, static_cast<unsigned long long>(s.episodes), microseconds(s.spinning),
                static_cast<unsigned long long>(s.slept), microseconds(s.asleep),
                static_cast<unsigned long long>(s.woken),
                s.woken ? microseconds(s.wake_latency_total) / static_cast<double>(s.woken) : 0.0,
                microseconds(s.wake_latency_max), static_cast<unsigned long long>(s.wakes_sent),
                microseconds(pe.idle_spin_budget()));
  std::fputs(line, stderr);
}

}  // namespace

void finish_pe_objects(pe_state& pe) {
  runtime_state& rt = pe.runtime();
  if (rt.opts.task_report && g_report_waiting_tasks) g_report_waiting_tasks();
  if (rt.opts.idle_stats) print_idle_stats(pe);
  // Destroy suspended coroutines, then let higher layers destroy objects.
  for (void* frame : std::vector<void*>(pe.root_tasks.begin(), pe.root_tasks.end()))
    std::coroutine_handle<>::from_address(frame).destroy();
  pe.root_tasks.clear();
  ult_pe_shutdown();  // objects still exist: unwinding threads may use them
  pe.run_stop_hooks();
}

void finish_pe_queues(pe_state& pe) {
  pe.discard_queued();
  for (auto& [id_, s] : pe.futures)
    if (--s->refs == 0) destroy_future_state(s);
  pe.futures.clear();
  pe.followed_futures.clear();
  pe.pool().flush_returns();
}

void post_main(runtime_state& rt, unique_function<void(const roam::args&)>& main, roam::args& program_args) {
  pe_state& pe0 = *rt.pes[0];
  pe_state* outer = tls_pe;
  tls_pe = &pe0;
  post_closure(0, [&main, &program_args, &rt]() noexcept {
    g_sent_at_main_start = tls_pe->sent_away();
    g_main_running = true;
    try {
      if (rt.opts.restart_dir.empty() && !rt.opts.recovered) {
        main(program_args);
      } else if (g_restart_main) {
        g_restart_main(std::vector<std::string>(program_args.begin(), program_args.end()));
      } else {
        report_fatal("+restart: this program has no checkpoint layer linked");
      }
    } catch (const std::exception& e) {
      report_fatal(std::string("main: uncaught exception: ") + e.what());
    } catch (...) {
      report_fatal("main: uncaught exception of unknown type");
    }
    g_main_running = false;
    if (rt.net && g_remote.main_returned) g_remote.main_returned(rt);
  });
  tls_pe = outer;
}

void main_ended() noexcept { g_main_running = false; }

namespace {

// The PE's place among the PEs of its host: processes of one host pin
// their PEs to different cores (each process counting from the first core
// put every process's PE 0 on the same core).
std::uint32_t host_slot(const runtime_state& rt, std::uint32_t local) {
  const auto& hosts = node_hosts();
  std::uint32_t before = 0;
  if (rt.my_node < hosts.size())
    for (std::uint32_t n = 0; n < rt.my_node; ++n) before += hosts[n] == hosts[rt.my_node] ? 1 : 0;
  return before * rt.ppn + local;
}

}  // namespace

void pe_thread_begin(runtime_state& rt, std::uint32_t local, std::barrier<>& sync, bool name_thread) {
  pe_state& pe = *rt.pes[local];
  std::uint32_t id = pe.id();
  tls_pe = &pe;
  if (name_thread) name_current_thread("roam-pe" + std::to_string(id));
  if (rt.opts.set_cpu_affinity) {
    if (auto err = pin_current_thread(static_cast<int>(host_slot(rt, local))); !err.empty())
      std::fprintf(stderr, "[pe %u] +setcpuaffinity: %s\n", id, err.c_str());
  }
  run_pe_setups(pe);
  sync.arrive_and_wait();  // every PE exists before anyone sends
}

void pe_thread_end(runtime_state& rt, std::uint32_t local, std::barrier<>& sync) {
  pe_state& pe = *rt.pes[local];
  tls_pe = &pe;
  report_pe_stopped();
  sync.arrive_and_wait();  // nobody runs messages any more
  finish_pe_objects(pe);
  sync.arrive_and_wait();  // teardown may have posted; nothing posts after this
  finish_pe_queues(pe);
  tls_pe = nullptr;
}

void pe_thread_body(runtime_state& rt, std::uint32_t local, std::barrier<>& sync) {
  pe_thread_begin(rt, local, sync, true);
  rt.pes[local]->run_loop();
  pe_thread_end(rt, local, sync);
}

// Makes `rt` the process's runtime (g_runtime). Callers do this before
// anything can deliver to it: a communication thread runs control messages
// (a peer's exit) that find the runtime through g_runtime, and one delivered
// while it was still unset was dropped, leaving this node running after the
// others ended (the tcp n3_ppn2 hang at exit, session 6).
bool install_runtime(runtime_state& rt) {
  runtime_state* expected = nullptr;
  if (g_runtime.compare_exchange_strong(expected, &rt)) return true;
  std::fprintf(stderr, "roam: roam::run called while another run is active\n");
  return false;
}

namespace {

// ROAM_TEST_SLOW_START=<node>:<ms> makes that node wait before its PEs start,
// after the transport delivers to it: tests use it to have peers finish (and
// exit) first, a start-up race otherwise seen only on loaded machines.
void test_slow_start(std::uint32_t node) {
  const char* v = std::getenv("ROAM_TEST_SLOW_START");
  if (!v || !*v) return;
  unsigned long n = 0, ms = 0;
  if (std::sscanf(v, "%lu:%lu", &n, &ms) != 2) {
    std::fprintf(stderr, "roam: ROAM_TEST_SLOW_START='%s' is not <node>:<milliseconds>; ignored\n", v);
    return;
  }
  if (n == node) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

// Runs the PEs of this process until the program exits; `main` starts on
// global PE 0 (node 0 only). `rt` is installed (install_runtime).
int run_pes(runtime_state& rt, unique_function<void(const roam::args&)>& main, roam::args& program_args) {
  if (!run_started_hooks(rt)) return 1;
  std::barrier<> sync(static_cast<std::ptrdiff_t>(rt.ppn));
  std::vector<std::thread> threads;
  threads.reserve(rt.ppn - 1);
  for (std::uint32_t i = 1; i < rt.ppn; ++i) threads.emplace_back([&rt, i, &sync] { pe_thread_body(rt, i, sync); });

  // Local PE 0 is this thread; on node 0 main is its first message.
  if (rt.my_node == 0) post_main(rt, main, program_args);
  pe_thread_body(rt, 0, sync);
  for (auto& t : threads) t.join();
  g_main_running = false;
  run_finished_hooks(rt);
  return rt.exit_code();
}

// What every node tells the others at start-up, to refuse inconsistent jobs.
struct bootstrap_record {
  std::uint32_t magic;
  std::uint32_t ppn;
  std::uint64_t host;  // this_host_id(): buddies of in-memory checkpoints on other hosts
  std::uint64_t nonce;  // node 0's names the job (job_instance): processes of a host sharing memory meet by it
};
constexpr std::uint32_t bootstrap_magic = 0x52414f4d;

}  // namespace

std::string check_peers(membership_transport& net, std::uint32_t ppn) {
  std::random_device entropy;
  const std::uint64_t nonce = (std::uint64_t{entropy()} << 32 ^ entropy()) ^ static_cast<std::uint64_t>(::getpid()) ^
                              static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  bootstrap_record mine{bootstrap_magic, ppn, this_host_id(), nonce};
  std::vector<std::byte> blob(sizeof(mine));
  std::memcpy(blob.data(), &mine, sizeof(mine));
  auto all = net.allgather(blob);
  if (all.size() != net.num_nodes()) return "bootstrap exchange returned " + std::to_string(all.size()) + " records";
  std::vector<std::uint64_t> hosts;
  for (std::uint32_t n = 0; n < all.size(); ++n) {
    bootstrap_record r{};
    if (all[n].size() != sizeof(r)) return "node " + std::to_string(n) + " sent a malformed bootstrap record";
    std::memcpy(&r, all[n].data(), sizeof(r));
    if (r.magic != bootstrap_magic) return "node " + std::to_string(n) + " is not a roam program of this version";
    if (r.ppn != ppn)
      return "+ppn differs between nodes: node " + std::to_string(n) + " has " + std::to_string(r.ppn) + ", node " +
             std::to_string(net.my_node()) + " has " + std::to_string(ppn);
    hosts.push_back(r.host);
    if (n == 0) net.set_job_key(r.nonce);
  }
  net.set_hosts(std::move(hosts));
  return {};
}

transport_handlers handlers_for(runtime_state& rt) {
  transport_handlers h;
  h.ctx = &rt;
  h.on_frame = [](void* ctx, std::uint32_t src, std::span<const std::byte> frame, std::span<frame_segment> segments) {
    auto& r = *static_cast<runtime_state*>(ctx);
    g_remote.on_frame(r, src, frame, segments);  // also while stopping: it owns frame memory it handed out
  };
  h.frame_memory = [](void* ctx, std::size_t bytes) {
    return g_remote.frame_memory(*static_cast<runtime_state*>(ctx), bytes);
  };
  // Failures reach the membership first; it asks the runtime to stop when
  // the survivors agree, and the run loop recovers (or ends the job).
  h.on_membership_change = [](void* ctx) { static_cast<runtime_state*>(ctx)->request_recovery_stop(); };
  return h;
}

namespace {

// Processes started as spares (roamrun --spares N): ROAM_SPARES.
std::uint32_t spares_from_environment(std::uint32_t processes, std::string& error) {
  const char* v = std::getenv("ROAM_SPARES");
  if (!v || !*v) return 0;
  unsigned long n = 0;
  auto [end, ec] = std::from_chars(v, v + std::strlen(v), n);
  if (ec != std::errc{} || *end != '\0' || n >= processes) {
    error = "ROAM_SPARES='" + std::string(v) + "' must be a count below the " + std::to_string(processes) +
            " processes of the job";
    return 0;
  }
  return static_cast<std::uint32_t>(n);
}

}  // namespace

// +ftheartbeat / +fttimeout configure the transport's failure detection
// (TCP and MPI alike).
void apply_ft_options(const runtime_options& opts) {
  if (opts.ft_heartbeat_ms) {
    const std::string ms = std::to_string(opts.ft_heartbeat_ms);
    ::setenv("ROAM_TCP_HEARTBEAT_INTERVAL_MS", ms.c_str(), 1);
    ::setenv("ROAM_MPI_HEARTBEAT_INTERVAL_MS", ms.c_str(), 1);
  }
  if (opts.ft_timeout_ms) {
    const std::string ms = std::to_string(opts.ft_timeout_ms);
    ::setenv("ROAM_TCP_HEARTBEAT_TIMEOUT_MS", ms.c_str(), 1);
    ::setenv("ROAM_MPI_HEARTBEAT_TIMEOUT_MS", ms.c_str(), 1);
  }
}

// The physical transport, bootstrapped, seen through the membership.
std::unique_ptr<membership_transport> make_job_transport(const std::string& kind, std::string& error) {
  auto physical = make_transport(kind, error);
  if (!physical) return nullptr;
  const std::uint32_t spares = spares_from_environment(physical->num_nodes(), error);
  if (!error.empty()) {
    physical->finish();
    return nullptr;
  }
  return std::make_unique<membership_transport>(std::move(physical), physical->num_nodes() - spares);
}

namespace {

// Runs one epoch's runtime on this thread (non-SMP: the PE drives the
// transport) and returns its exit code.
int run_epoch_here(runtime_options opts, membership_transport& net, std::uint32_t ppn,
                   unique_function<void(const roam::args&)>& main, roam::args& program_args, const std::string& kind) {
  opts.recovered = net.epoch() > 0;
  node_layout layout{net.my_node(), net.num_nodes(), ppn};
  set_node_hosts(net.logical_hosts());
  set_this_job({net.job_key(), net.epoch()});
  runtime_state rt(opts, layout, &net);
  rt.transport_name = kind;
  if (!install_runtime(rt)) return 1;
  rt.pes[0]->drive_progress(&net);
  net.set_handlers(handlers_for(rt));
  if (!opts.recovered) test_slow_start(rt.my_node);
  int code = run_pes(rt, main, program_args);
  net.set_handlers({});
  g_runtime.store(nullptr);
  return code;
}

// One process of a multi-process program.
int run_node(runtime_options opts, const std::string& kind, unique_function<void(const roam::args&)>& main,
             roam::args& program_args) {
  std::uint32_t ppn = opts.ppn ? opts.ppn : 1;
  bool comm = ppn > 1 || opts.commthread;
  apply_ft_options(opts);
  std::unique_ptr<membership_transport> net;
  std::string error;
  int failure_code = 1;
  auto finish_bootstrap = [&]() -> std::string {
    if (!net) return error;
    if (auto e = check_peers(*net, ppn); !e.empty()) return e;
    if (auto e = measure_clock_offset(*net); !e.empty()) return e;
    net->resume();  // from the bootstrap's view of every process to the workers'
    if (opts.pes && opts.pes != net->num_nodes() * ppn) {
      failure_code = 2;
      return "+p " + std::to_string(opts.pes) + " disagrees with " + std::to_string(net->num_nodes()) + " nodes x +ppn " +
             std::to_string(ppn);
    }
    return {};
  };

  if (!comm) {
    // Non-SMP: this thread is the process's only PE and drives the transport itself.
    net = make_job_transport(kind, error);
    if (auto e = finish_bootstrap(); !e.empty()) {
      std::fprintf(stderr, "roam: %s transport: %s\n", kind.c_str(), e.c_str());
      if (net) net->finish();
      return failure_code;
    }
    for (;;) {
      int code = 0;
      if (net->is_spare()) {
        net->idle_as_spare();
        if (auto end = net->job_ended(); end && !net->recovery_requested()) {
          net->finish();
          return *end;
        }
      } else {
        code = run_epoch_here(opts, *net, ppn, main, program_args, kind);
        if (!net->recovery_requested()) {
          net->finish();
          return code;
        }
      }
      if (!recover_job(*net, ppn)) {
        net->finish();
        return 1;
      }
    }
  }

  // SMP: a communication thread owns the transport (it is MPI's funneled
  // thread) and runs the recoveries; this thread runs each epoch's PEs.
  struct handoff {
    std::mutex m;
    std::condition_variable cv;
    bool booted = false;       // comm -> main: bootstrap (or a recovery) done, layout ready
    std::string boot_error;
    bool ended = false;        // comm -> main: nothing more to run (end_code)
    int end_code = 0;
    runtime_state* rt = nullptr;  // main -> comm: this epoch's runtime
    bool rt_offered = false;
    bool released = false;     // comm -> main: the transport no longer calls into rt
    bool recovering = false;   // comm -> main: a failure; wait for the next layout
  } h;
  std::atomic<bool> pes_done_flag{false};
  auto tell = [&](auto&& change) {
    {
      std::lock_guard lock(h.m);
      change();
    }
    h.cv.notify_all();
  };
  std::thread comm_thread([&] {
    name_current_thread("roam-comm");
    net = make_job_transport(kind, error);
    std::string e = finish_bootstrap();
    if (!e.empty()) {
      if (net) net->finish();
      tell([&] { h.boot_error = e; h.booted = true; h.ended = true; });
      return;
    }
    for (;;) {
      if (net->is_spare()) {
        net->idle_as_spare();
        if (auto end = net->job_ended(); end && !net->recovery_requested()) {
          net->finish();
          tell([&] { h.ended = true; h.end_code = *end; h.booted = true; });
          return;
        }
      } else {
        tell([&] { h.booted = true; });
        runtime_state* rt = nullptr;
        {
          std::unique_lock lock(h.m);
          h.cv.wait(lock, [&] { return h.rt_offered; });
          h.rt_offered = false;
          rt = h.rt;
        }
        if (!rt) {
          net->finish();
          return;
        }
        net->set_handlers(handlers_for(*rt));
        auto idle_since = std::chrono::steady_clock::now();
        while (!pes_done_flag.load(std::memory_order_acquire)) {
          if (net->progress()) {
            idle_since = std::chrono::steady_clock::now();
            continue;
          }
          // Spin for +idlespin after the last activity, then sleep in the transport.
          if (rt->opts.busywait || std::chrono::steady_clock::now() - idle_since < rt->opts.idle_spin) continue;
          net->wait(std::chrono::milliseconds(100));
        }
        net->set_handlers({});
        const bool recovering = net->recovery_requested();
        tell([&] { h.released = true; h.recovering = recovering; });
        if (!recovering) {
          net->finish();
          return;
        }
      }
      if (!recover_job(*net, ppn)) {
        net->finish();
        tell([&] { h.ended = true; h.end_code = 1; h.booted = true; });
        return;
      }
    }
  });
  int code = 0;
  for (;;) {
    {
      std::unique_lock lock(h.m);
      h.cv.wait(lock, [&] { return h.booted; });
      h.booted = false;  // consumed: the comm thread sets it again after a recovery
      h.released = false;
    }
    if (!h.boot_error.empty()) {
      comm_thread.join();
      std::fprintf(stderr, "roam: %s transport: %s\n", kind.c_str(), h.boot_error.c_str());
      return failure_code;
    }
    if (h.ended) {
      comm_thread.join();
      return h.end_code;
    }
    runtime_options o = opts;
    o.recovered = net->epoch() > 0;
    node_layout layout{net->my_node(), net->num_nodes(), ppn};
    set_node_hosts(net->logical_hosts());
    set_this_job({net->job_key(), net->epoch()});
    {
      runtime_state rt(o, layout, net.get());
      rt.transport_name = kind;
      if (!install_runtime(rt)) {
        tell([&] { h.rt = nullptr; h.rt_offered = true; });
        comm_thread.join();
        return 1;
      }
      pes_done_flag.store(false);
      tell([&] { h.rt = &rt; h.rt_offered = true; });
      if (!o.recovered) test_slow_start(rt.my_node);
      code = run_pes(rt, main, program_args);
      pes_done_flag.store(true, std::memory_order_release);
      net->wake();
      {
        std::unique_lock lock(h.m);
        h.cv.wait(lock, [&] { return h.released; });
      }
      g_runtime.store(nullptr);
    }
    if (!h.recovering) {
      comm_thread.join();
      return code;
    }
  }
}

}  // namespace

int run_main(int& argc, char** argv, unique_function<void(const roam::args&)> main) {
  g_command_line.assign(argv, argv + argc);
  parse_result parsed = parse_runtime_options(argc, argv);
  if (!parsed.error.empty()) {
    std::fprintf(stderr, "%s\n", parsed.error.c_str());
    return 2;
  }
  if (parsed.options.help) {
    std::fputs(options_help().c_str(), stdout);
    return 0;
  }
  if (parsed.options.version) {
    std::fputs(roam::build_description().c_str(), stdout);
    return 0;
  }
  for (auto check : startup_checks()) {
    if (auto e = check(); !e.empty()) {
      std::fprintf(stderr, "roam: start-up check failed: %s\n", e.c_str());
      return 1;
    }
  }
  std::vector<std::string> rest(argv, argv + argc);
  roam::args program_args(std::move(rest));

  runtime_options opts = parsed.options;
  if (std::string kind = detect_transport(); !kind.empty()) {
    if (opts.deterministic) {
      std::fprintf(stderr, "roam: +deterministic runs one process only (its PEs on one thread); this one was started "
                           "as a node of a %s job\n", kind.c_str());
      return 2;
    }
    return run_node(opts, kind, main, program_args);
  }

  if (opts.ppn && opts.pes && opts.ppn != opts.pes) {
    std::fprintf(stderr, "roam: +p %u and +ppn %u disagree in a single process\n", opts.pes, opts.ppn);
    return 2;
  }
  if (opts.pes == 0) opts.pes = opts.ppn ? opts.ppn : static_cast<std::uint32_t>(available_cores());
  tune_malloc_for_messages();  // (the transports do it for multi-process runs)
  runtime_state rt(opts, node_layout{0, 1, opts.pes}, nullptr);
  if (!install_runtime(rt)) return 1;
  int code = opts.deterministic ? run_pes_deterministic(rt, main, program_args) : run_pes(rt, main, program_args);
  g_runtime.store(nullptr);
  return code;
}

}  // namespace detail

void exit(int code) {
  if (auto* rt = detail::g_runtime.load()) rt->request_exit(code);
}

void abort(std::string_view message) { detail::report_fatal(std::string(message)); }

pe_id my_pe() { return pe_id{detail::this_pe("roam::my_pe").id()}; }
std::uint32_t num_pes() {
  auto* rt = detail::g_runtime.load();
  return rt ? rt->num_pes : 0;
}
node_id my_node() {
  auto* rt = detail::g_runtime.load();
  return node_id{rt ? rt->my_node : 0};
}
std::uint32_t num_nodes() {
  auto* rt = detail::g_runtime.load();
  return rt ? rt->num_nodes : 0;
}
bool shares_host(node_id n) {
  if (n == my_node()) return true;
  const auto& hosts = detail::node_hosts();
  const std::uint32_t me = my_node().value();
  if (n.value() >= hosts.size() || me >= hosts.size()) return false;
  return hosts[n.value()] == hosts[me];
}

void after(std::chrono::nanoseconds delay, detail::unique_function<void()> fn) {
  detail::this_pe("roam::after").add_timer(detail::timer_now() + delay, std::move(fn));
}
void when_idle(detail::unique_function<void()> fn) { detail::this_pe("roam::when_idle").add_idle_hook(std::move(fn)); }

std::uint64_t messages_created() { return detail::this_pe("roam::messages_created").created(); }
std::uint64_t messages_processed() { return detail::this_pe("roam::messages_processed").processed(); }

}  // namespace roam
