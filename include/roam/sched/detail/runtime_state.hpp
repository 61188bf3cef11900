#pragma once
// Process-wide runtime state: the PEs of this process, the node queue that
// nodegroup messages share, and the stop/exit protocol.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <roam/sched/detail/pe_state.hpp>

namespace roam::detail {

/// Options after parsing `+` arguments and ROAM_* variables.
struct runtime_options {
  std::uint32_t pes = 0;                 ///< +p N; 0 = one per available core
  bool set_cpu_affinity = false;         ///< +setcpuaffinity
  bool busywait = false;                 ///< +busywait: idle PEs spin, never sleep
  bool serialize = false;                ///< +serialize: every entry message goes through pup (tests the wire path)
  std::chrono::microseconds idle_spin{50};  ///< +idlespin US: spin this long before sleeping
  std::uint32_t bfactor = 4;             ///< +bfactor K: branching factor of spanning trees
  bool help = false;                     ///< +help
};

struct runtime_state {
  explicit runtime_state(runtime_options o);
  ~runtime_state();

  pe_state& pe(std::uint32_t i) noexcept { return *pes[i]; }

  /// Queues a nodegroup item that any PE of this process may run.
  void enqueue_node(work_item* w) noexcept;
  /// Takes one node item, or nullptr (any PE).
  work_item* take_node_item() noexcept;
  bool node_pending() const noexcept { return node_pending_.load(std::memory_order_seq_cst) != 0; }

  /// First call wins: records the exit code and stops every PE.
  void request_exit(int code) noexcept;
  bool stopping() const noexcept { return stopping_.load(std::memory_order_relaxed); }
  int exit_code() const noexcept { return exit_code_.load(); }

  runtime_options opts;
  std::uint32_t num_pes = 0;
  std::vector<std::unique_ptr<pe_state>> pes;

 private:
  std::atomic<bool> stopping_{false};
  std::atomic<bool> exit_requested_{false};
  std::atomic<int> exit_code_{0};
  std::mutex node_mutex_;
  local_queue node_queue_;
  std::atomic<std::uint32_t> node_pending_{0};
};

/// The runtime of this process while `roam::run` is active, else nullptr.
inline std::atomic<runtime_state*> g_runtime{nullptr};

/// The calling PE; aborts with a clear message when called off a PE thread.
pe_state& this_pe(const char* what);

/// Reports a fatal error prefixed with "[pe i/P]" and stops the program with exit code 1.
void report_fatal(const std::string& message) noexcept;
/// The "[pe i/P] " prefix for the calling thread.
std::string pe_prefix();

}  // namespace roam::detail
