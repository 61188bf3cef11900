// Fatal errors and where they happened: the PE prefix of every report, one
// line at a time on stderr, and the exit they cause.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>

#include <roam/sched/detail/runtime_state.hpp>
#include <roam/sched/runtime.hpp>

namespace roam::detail {

namespace {
std::mutex g_stderr_mutex;  // one report's line at a time
}  // namespace

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

}  // namespace roam::detail
