// Lent messages across processes (p2p.cpp, "Lent messages"): reading
// another process's memory on the same host with Linux's cross-memory attach
// (process_vm_readv), the option that turns it off, and the count of how
// loans were served (+ampi_loans). A process whose reads are refused (no
// permission, a kernel or container that forbids the call) notes it once
// and every later loan to it is pulled and pushed instead.
#include "api.hpp"

#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>

#include <roam/sched/options.hpp>

namespace roam::ampi {
namespace {

struct loan_settings {
  bool cross_memory = true;  // +ampi_cross_memory
  bool report = false;       // +ampi_loans
};
loan_settings g_loans;

[[maybe_unused]] const bool g_registered = register_runtime_options(
    "ampi (lent messages)",
    {{"ampi_cross_memory", "ROAM_AMPI_CROSS_MEMORY", "[=on|off]",
      "Adaptive MPI: large sends to another process of this host are read from the sender's memory (default on)",
      [](std::string_view v) { return option_parse::flag(v, g_loans.cross_memory); }},
     {"ampi_loans", "ROAM_AMPI_LOANS", "", "Adaptive MPI: each process prints how its large receives were served",
      [](std::string_view v) { return option_parse::flag(v, g_loans.report); }}},
    [] { g_loans = {}; });

std::atomic<bool> reads_refused{false};
std::atomic<std::uint64_t> served[3];  // by loan_served
std::atomic<std::int64_t> served_on_node{-1};  // the process's node, once it served one (for the report)

// The boot of this machine and the PID namespace: two processes with the
// same domain name each other by PID.
std::uint64_t compute_domain() {
  std::string boot;
  std::ifstream("/proc/sys/kernel/random/boot_id") >> boot;
  struct stat ns {};
  const auto inode = ::stat("/proc/self/ns/pid", &ns) == 0 ? static_cast<std::uint64_t>(ns.st_ino) : 0;
  if (boot.empty() || inode == 0) return 0;  // unknown: never read across processes
  return (std::hash<std::string>{}(boot) ^ (inode * 0x9e3779b97f4a7c15ULL)) | 1;
}

}  // namespace

std::uint64_t memory_domain() {
  static const std::uint64_t domain = [] {
    // Under Yama's ptrace_scope 1 only an ancestor may read a process; the
    // ranks' processes are siblings, so every process lets its peers read
    // it (the same uid is still required). EINVAL without Yama: harmless.
    ::prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    return compute_domain();
  }();
  return g_loans.cross_memory ? domain : 0;
}

bool cross_process_reads_refused() { return !g_loans.cross_memory || reads_refused.load(std::memory_order_relaxed); }

bool read_process_memory(std::int64_t pid, std::uint64_t domain, std::uint64_t address, void* into, std::int64_t bytes) {
  if (domain == 0 || domain != memory_domain() || cross_process_reads_refused()) return false;
  auto* to = static_cast<char*>(into);
  std::int64_t done = 0;
  while (done < bytes) {
    iovec local{to + done, static_cast<std::size_t>(bytes - done)};
    iovec remote{reinterpret_cast<void*>(address + static_cast<std::uint64_t>(done)), local.iov_len};
    const ssize_t n = ::process_vm_readv(static_cast<pid_t>(pid), &local, 1, &remote, 1, 0);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      // EPERM / ENOSYS: this process may not read its peers at all. ESRCH or
      // EFAULT: that one sender is gone; the pull will say so.
      if (n < 0 && (errno == EPERM || errno == ENOSYS)) reads_refused.store(true, std::memory_order_relaxed);
      return false;
    }
    done += n;
  }
  return true;
}

void count_loan(loan_served how) {
  served[static_cast<int>(how)].fetch_add(1, std::memory_order_relaxed);
  served_on_node.store(roam::my_node().value(), std::memory_order_relaxed);
}

void report_loans() {
  if (!g_loans.report) return;
  const std::int64_t node = served_on_node.exchange(-1);
  const std::string who = node < 0 ? "" : "node " + std::to_string(node) + ": ";
  std::fprintf(stderr, "ampi: %sloans: %llu copied in the process, %llu read from another process, %llu pulled\n",
               who.c_str(), static_cast<unsigned long long>(served[0].exchange(0)),
               static_cast<unsigned long long>(served[1].exchange(0)),
               static_cast<unsigned long long>(served[2].exchange(0)));
}

}  // namespace roam::ampi
