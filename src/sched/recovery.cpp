// After a process of the job failed: the survivors agree, stop, exchange
// what they hold of the in-memory checkpoints and install the newest one
// that is complete, on the progress thread and with no runtime in the
// process (docs/design/fault-tolerance.md). The run loop (runtime.cpp) then
// starts a new runtime that restores from it.
#include <chrono>
#include <cstdio>
#include <string>

#include <roam/machine/detail/membership.hpp>
#include <roam/sched/detail/startup.hpp>

#include "runtime_internal.hpp"

namespace roam::detail {

namespace {

std::int64_t now_steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void say(const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

// "node 1 (PE 1)", "node 1 (PEs 2-3)", "spare process 3": who failed, with
// the PEs the failed nodes hosted, for the report.
std::string who_failed(const membership_transport& net, std::uint32_t ppn) {
  std::string out;
  for (std::uint32_t n : net.failed_nodes()) {
    out += (out.empty() ? "" : ", ") + std::string("node ") + std::to_string(n);
    out += ppn == 1 ? " (PE " + std::to_string(n) + ")"
                    : " (PEs " + std::to_string(n * ppn) + "-" + std::to_string(n * ppn + ppn - 1) + ")";
  }
  return out.empty() ? net.failure_summary() : out;
}

}  // namespace

bool recover_job(membership_transport& net, std::uint32_t ppn) {
  const std::uint32_t before = net.num_nodes();
  const std::int64_t detected = net.detected_ns() ? net.detected_ns() : now_steady_ns();
  for (;;) {
    net.stopped();
    if (!net.settle()) continue;
    std::vector<std::byte> mine = g_recovery.inventory ? g_recovery.inventory() : std::vector<std::byte>{};
    auto inventories = net.exchange(0, std::move(mine));
    if (!inventories) continue;
    std::vector<std::byte> contribution;
    std::string error = "this program has no checkpoint layer linked";
    if (!g_recovery.plan || !g_recovery.plan(*inventories, net.live_index(), contribution, error)) {
      const auto notes = net.take_failure_notes();
      std::string what;
      for (const auto& n : notes) what += (what.empty() ? "" : "; ") + n;
      say("roam: " + net.failure_summary() + " failed (" + what + "); " + error + "; process " +
          std::to_string(net.physical_node()) + " stopping\n");
      return false;
    }
    auto contributions = net.exchange(1, std::move(contribution));
    if (!contributions) continue;
    if (!g_recovery.install(std::move(*contributions), error)) {
      say("roam: recovery failed on process " + std::to_string(net.physical_node()) + ": " + error + "\n");
      return false;
    }
    recovery_record r;
    r.epoch = net.epoch();
    r.detected_ns = detected;
    r.installed_ns = now_steady_ns();
    r.failed = who_failed(net, ppn) + " failed:";  // before resume() renumbers the nodes
    for (const auto& n : net.take_failure_notes()) r.failed += (r.failed.back() == ':' ? " " : "; ") + n;
    r.processes_before = before;
    net.resume();
    r.processes_after = net.num_nodes();
    g_last_recovery = r;
    return true;
  }
}

}  // namespace roam::detail
