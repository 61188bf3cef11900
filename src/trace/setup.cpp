// The trace layer's run hooks (setup.hpp): +trace and +summary subscribe
// their observers before the PEs start and write their results once every PE
// of the process has stopped.
#include "setup.hpp"

#include <atomic>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include <roam/sched/detail/runtime_state.hpp>
#include <roam/sched/detail/startup.hpp>
#include <roam/trace/trace.hpp>

#include "index_file.hpp"
#include "summary.hpp"
#include "trace_options.hpp"

namespace roam::trace::detail {

namespace {

struct tracing {
  std::unique_ptr<trace_writer> writer;
  std::unique_ptr<trace_observer> observer;
};
tracing g_tracing;
std::atomic<trace_observer*> g_active{nullptr};
std::unique_ptr<summary_observer> g_summary;

std::string start_trace(roam::detail::runtime_state& rt) {
#if !defined(ROAM_HAVE_ZSTD)
  if (settings().trace_zstd) return "+tracezstd: this roam was built without libzstd (install libzstd-dev and rebuild)";
#endif
  try {
    g_tracing.writer = std::make_unique<trace_writer>(settings().trace_dir, rt.my_node, rt.first_pe, rt.ppn,
                                                      settings().trace_buf, settings().trace_zstd);
  } catch (const std::exception& e) {
    return e.what();
  }
  g_tracing.observer = std::make_unique<trace_observer>(*g_tracing.writer);
  add_observer(*g_tracing.observer);
  add_lifecycle_observer(*g_tracing.observer);
  g_active.store(g_tracing.observer.get(), std::memory_order_release);
  g_user_events.store(true, std::memory_order_release);
  return {};
}

void finish_trace(roam::detail::runtime_state& rt) {
  g_user_events.store(false, std::memory_order_release);
  g_active.store(nullptr, std::memory_order_release);
  remove_lifecycle_observer(*g_tracing.observer);
  remove_observer(*g_tracing.observer);
  std::string error = g_tracing.writer->finish();
  if (error.empty()) error = write_index(rt, *g_tracing.writer, settings().trace_dir);
  if (!error.empty()) {
    std::fprintf(stderr, "roam: node %u: %s\n", rt.my_node, error.c_str());
  } else {
    const trace_writer& w = *g_tracing.writer;
    std::fprintf(stderr,
                 "roam: node %u: trace of %llu events (%.1f MiB) in %s; writing took %.3f s in the background and "
                 "%.3f s at exit; PEs waited for the writer %llu times\n",
                 rt.my_node, static_cast<unsigned long long>(w.records()),
                 static_cast<double>(w.bytes_written()) / (1 << 20), settings().trace_dir.c_str(), w.write_seconds(),
                 w.finish_seconds(), static_cast<unsigned long long>(w.stalls()));
  }
  g_tracing = {};
}

std::string run_started(roam::detail::runtime_state& rt) {
  if (settings().summary) {
    g_summary = std::make_unique<summary_observer>(rt);
    add_observer(*g_summary);
  }
  if (settings().trace) return start_trace(rt);
  return {};
}

void run_finished(roam::detail::runtime_state& rt) {
  if (g_tracing.writer) finish_trace(rt);
  if (g_summary) {
    remove_observer(*g_summary);
    g_summary->report(rt);
    g_summary.reset();
  }
}

[[maybe_unused]] const bool registered = roam::detail::register_run_hooks({&run_started, &run_finished});

}  // namespace

trace_observer* active_tracer() noexcept { return g_active.load(std::memory_order_acquire); }

}  // namespace roam::trace::detail
