#include <barrier>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <roam/sched/detail/post.hpp>
#include <roam/sched/detail/startup.hpp>
#include <roam/sched/runtime.hpp>

#include "machine/topology.hpp"
#include "sched/options.hpp"

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
std::vector<startup_check>& startup_checks() {
  static std::vector<startup_check> v;
  return v;
}
std::vector<pe_setup>& pe_setups() {
  static std::vector<pe_setup> v;
  return v;
}
std::mutex g_stderr_mutex;

// The window for readonly assignment: PE 0 runs main and nothing has left it since.
std::uint64_t g_sent_at_main_start = 0;
bool g_main_running = false;
}  // namespace

bool register_startup_check(startup_check check) {
  startup_checks().push_back(check);
  return true;
}
bool register_pe_setup(pe_setup setup) {
  pe_setups().push_back(setup);
  return true;
}

bool readonly_window_open() noexcept {
  pe_state* pe = tls_pe;
  return pe == nullptr ? g_runtime.load() == nullptr
                       : pe->id() == 0 && g_main_running && pe->sent_away() == g_sent_at_main_start;
}

runtime_state::runtime_state(runtime_options o) : opts(o), num_pes(o.pes) {
  pes.reserve(num_pes);
  for (std::uint32_t i = 0; i < num_pes; ++i) pes.push_back(std::make_unique<pe_state>(*this, i, num_pes));
}

runtime_state::~runtime_state() = default;

void runtime_state::enqueue_node(work_item* w) noexcept {
  {
    std::lock_guard lock(node_mutex_);
    node_queue_.push_back(w);
    node_pending_.fetch_add(1, std::memory_order_seq_cst);
  }
  // Wake one sleeping PE; busy PEs look at the node queue between messages.
  for (auto& pe : pes) {
    if (pe.get() != tls_pe) {
      pe->wake();
      break;
    }
  }
}

work_item* runtime_state::take_node_item() noexcept {
  if (node_pending_.load(std::memory_order_relaxed) == 0) return nullptr;
  std::lock_guard lock(node_mutex_);
  work_item* w = node_queue_.pop();
  if (w) node_pending_.fetch_sub(1, std::memory_order_relaxed);
  return w;
}

void runtime_state::request_exit(int code) noexcept {
  if (exit_requested_.exchange(true)) return;
  exit_code_.store(code);
  stopping_.store(true, std::memory_order_seq_cst);
  for (auto& pe : pes) pe->wake();
}

pe_state& this_pe(const char* what) {
  pe_state* pe = tls_pe;
  if (!pe) {
    std::fprintf(stderr, "roam: %s called outside a PE (before roam::run, after it, or on a foreign thread)\n", what);
    std::fflush(stderr);
    std::abort();
  }
  return *pe;
}

std::string pe_prefix() {
  runtime_state* rt = g_runtime.load();
  pe_state* pe = tls_pe;
  if (!pe || !rt) return "[roam] ";
  return "[pe " + std::to_string(pe->id()) + "/" + std::to_string(rt->num_pes) + "] ";
}

void report_fatal(const std::string& message) noexcept {
  {
    std::lock_guard lock(g_stderr_mutex);
    std::string line = pe_prefix() + message + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
  }
  if (runtime_state* rt = g_runtime.load()) rt->request_exit(1);
  else std::abort();
}

void report_task_failure(std::exception_ptr e, const std::string& where) noexcept {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    report_fatal(where + ": uncaught exception: " + ex.what());
  } catch (...) {
    report_fatal(where + ": uncaught exception of unknown type");
  }
}

namespace {

void pe_thread_body(runtime_state& rt, std::uint32_t id, std::barrier<>& sync) {
  pe_state& pe = rt.pe(id);
  tls_pe = &pe;
  name_current_thread("roam-pe" + std::to_string(id));
  if (rt.opts.set_cpu_affinity) {
    if (auto err = pin_current_thread(static_cast<int>(id)); !err.empty())
      std::fprintf(stderr, "[pe %u] +setcpuaffinity: %s\n", id, err.c_str());
  }
  for (auto setup : pe_setups()) setup(pe);
  sync.arrive_and_wait();  // every PE exists before anyone sends
  pe.run_loop();
  sync.arrive_and_wait();  // nobody runs messages any more
  // Destroy suspended coroutines, then let higher layers destroy objects.
  for (void* frame : std::vector<void*>(pe.root_tasks.begin(), pe.root_tasks.end()))
    std::coroutine_handle<>::from_address(frame).destroy();
  pe.root_tasks.clear();
  pe.run_stop_hooks();
  sync.arrive_and_wait();  // teardown may have posted; nothing posts after this
  pe.discard_queued();
  for (auto& [id_, s] : pe.futures)
    if (--s->refs == 0) delete s;
  pe.futures.clear();
  pe.pool().flush_returns();
  tls_pe = nullptr;
}

}  // namespace

int run_main(int& argc, char** argv, unique_function<void(const roam::args&)> main) {
  parse_result parsed = parse_runtime_options(argc, argv);
  if (!parsed.error.empty()) {
    std::fprintf(stderr, "%s\n", parsed.error.c_str());
    return 2;
  }
  if (parsed.options.help) {
    std::fputs(options_help().c_str(), stdout);
    return 0;
  }
  for (auto check : startup_checks()) {
    if (auto e = check(); !e.empty()) {
      std::fprintf(stderr, "roam: start-up check failed: %s\n", e.c_str());
      return 1;
    }
  }
  if (parsed.options.pes == 0) parsed.options.pes = static_cast<std::uint32_t>(available_cores());

  std::vector<std::string> rest(argv, argv + argc);
  roam::args program_args(std::move(rest));

  runtime_state rt(parsed.options);
  runtime_state* expected = nullptr;
  if (!g_runtime.compare_exchange_strong(expected, &rt)) {
    std::fprintf(stderr, "roam: roam::run called while another run is active\n");
    return 1;
  }
  std::barrier<> sync(static_cast<std::ptrdiff_t>(rt.num_pes));
  std::vector<std::thread> threads;
  threads.reserve(rt.num_pes - 1);
  for (std::uint32_t i = 1; i < rt.num_pes; ++i) threads.emplace_back([&rt, i, &sync] { pe_thread_body(rt, i, sync); });

  // PE 0 is this thread; main is its first message.
  {
    pe_state& pe0 = rt.pe(0);
    tls_pe = &pe0;
    post_closure(0, [&main, &program_args]() noexcept {
      g_sent_at_main_start = tls_pe->sent_away();
      g_main_running = true;
      try {
        main(program_args);
      } catch (const std::exception& e) {
        report_fatal(std::string("main: uncaught exception: ") + e.what());
      } catch (...) {
        report_fatal("main: uncaught exception of unknown type");
      }
      g_main_running = false;
    });
    tls_pe = nullptr;
  }
  pe_thread_body(rt, 0, sync);
  for (auto& t : threads) t.join();
  g_main_running = false;
  g_runtime.store(nullptr);
  return rt.exit_code();
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
node_id my_node() { return node_id{0}; }
std::uint32_t num_nodes() { return 1; }

void after(std::chrono::nanoseconds delay, detail::unique_function<void()> fn) {
  detail::this_pe("roam::after").add_timer(detail::pe_state::clock::now() + delay, std::move(fn));
}
void when_idle(detail::unique_function<void()> fn) { detail::this_pe("roam::when_idle").add_idle_hook(std::move(fn)); }

std::uint64_t messages_created() { return detail::this_pe("roam::messages_created").created(); }
std::uint64_t messages_processed() { return detail::this_pe("roam::messages_processed").processed(); }

}  // namespace roam
