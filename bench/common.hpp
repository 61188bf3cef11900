#pragma once
// What the roam-bench cases share: the command line's settings and timing.
#include <chrono>
#include <string>

#include <roam/roam.hpp>

#include "report.hpp"

namespace roam_bench {

// Maps the benches share. One definition each: a map is registered under
// its printed name, and two different functions with one name are a
// start-up error (stable_registry).
inline std::uint32_t on_pe0(const roam::index<1>&, const roam::index<1>&, std::uint32_t) { return 0; }
inline std::uint32_t spread(const roam::index<1>& i, const roam::index<1>&, std::uint32_t pes) {
  return static_cast<std::uint32_t>(i[0]) % pes;
}

using bench_clock = std::chrono::steady_clock;

struct config {
  std::string name = "all";
  bool json = false;
  int reps = 5;
  std::string only;  // --case SUBSTRING: run only cases whose name contains it
  std::string dir;   // --dir DIR: where `checkpoint` writes (default: a temporary directory)
};
inline config g_config;

inline bool wanted(const std::string& case_name) {
  return g_config.only.empty() || case_name.find(g_config.only) != std::string::npos;
}

inline double seconds_since(bench_clock::time_point t0) {
  return std::chrono::duration<double>(bench_clock::now() - t0).count();
}

/// Migration time, first (forwarded) and cached message latency after a
/// migration, insertion rate (migrate_bench.cpp).
roam::task<> bench_migrate();
/// Mailbox tasks against plain entries, memory per suspended task (flow_bench.cpp).
roam::task<> bench_flow();
/// Fine-grained work between messages: what idling costs per hop (idle_bench.cpp).
roam::task<> bench_idle();
/// Load balancing on an imbalanced ring with known loads (lb_bench.cpp; not part of `all`).
roam::task<> bench_lb();
/// User-level threads: threaded entry ping-pong, context switch, memory per thread (thread_bench.cpp).
roam::task<> bench_thread();
/// Disk checkpoints against state size and raw write bandwidth (checkpoint_bench.cpp; not part of `all`).
roam::task<> bench_checkpoint();
roam::task<> bench_aggregation();
roam::task<> bench_pdes();

}  // namespace roam_bench
