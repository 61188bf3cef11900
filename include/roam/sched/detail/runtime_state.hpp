#pragma once
// Process-wide runtime state: the PEs of this process, the node queue that
// nodegroup messages share, the transport to other processes (nodes), and the
// stop/exit protocol. PE numbers are global: node n hosts PEs
// [n * ppn, (n + 1) * ppn); the local PE k is global PE first_pe + k.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include <roam/machine/detail/frame.hpp>
#include <roam/sched/detail/pe_state.hpp>

namespace roam::detail {

class transport;

/// Options after parsing `+` arguments and ROAM_* variables.
struct runtime_options {
  std::uint32_t pes = 0;                 ///< +p N (all nodes together); 0 = one per available core
  std::uint32_t ppn = 0;                 ///< +ppn K: PEs per process (node); 0 = not given
  bool commthread = false;               ///< +commthread: a communication thread even with one PE per process
  bool set_cpu_affinity = false;         ///< +setcpuaffinity
  bool busywait = false;                 ///< +busywait: idle PEs spin, never sleep
  bool serialize = false;                ///< +serialize: every entry message goes through pup (tests the wire path)
  std::chrono::microseconds idle_spin{50};  ///< +idlespin US: spin at least this long before sleeping
  std::chrono::microseconds idle_spin_max{500};  ///< +idlespinmax US: how long the learned spin may grow
  bool idle_stats = false;               ///< +idlestats: each PE prints its idle/sleep/wake figures at exit
  std::uint32_t bfactor = 4;             ///< +bfactor K: branching factor of spanning trees
  std::size_t ul_stack = 256 * 1024;     ///< +ulstack BYTES: stack of each user-level thread
  bool task_report = false;              ///< +taskreport: each PE reports its suspended tasks at exit
  bool deterministic = false;            ///< +deterministic SEED: every PE on one thread, stepped by a seeded choice
  std::uint64_t seed = 0;                ///< its seed
  bool help = false;                     ///< +help
  bool version = false;                  ///< +version
  // The trace and load balancing layers declare their options themselves
  // (roam/sched/options.hpp: src/trace/trace_options.cpp, src/lb/lb_options.cpp).
  // Read by sched (it runs main or not) and the checkpoint layer (src/ft/):
  std::string restart_dir;               ///< +restart DIR: start from the checkpoint in DIR instead of main
  // Fault tolerance (docs/design/fault-tolerance.md); sched hands them to the
  // transport it builds:
  std::uint32_t ft_heartbeat_ms = 0;     ///< +ftheartbeat MS: heartbeat period between processes (0: transport's)
  std::uint32_t ft_timeout_ms = 0;       ///< +fttimeout MS: a process silent this long is failed (0: transport's)
  /// Not an option: this runtime starts a job again after a failure, from
  /// the in-memory checkpoint the recovery installed (instead of main).
  bool recovered = false;
};

/// Where this process sits among the nodes of the program.
struct node_layout {
  std::uint32_t node = 0;
  std::uint32_t nodes = 1;
  std::uint32_t ppn = 1;  ///< PEs in every process
};

struct runtime_state {
  runtime_state(runtime_options o, node_layout layout, transport* net);
  ~runtime_state();

  /// A PE of this process, by global number (is_local(pe) must hold).
  pe_state& pe(std::uint32_t global) noexcept { return *pes[global - first_pe]; }
  bool is_local(std::uint32_t global) const noexcept { return global - first_pe < ppn; }
  std::uint32_t node_of(std::uint32_t global) const noexcept { return global / ppn; }
  /// The first PE of node `node` (where messages for that node's nodegroup members land).
  std::uint32_t first_pe_of(std::uint32_t node) const noexcept { return node * ppn; }

  /// Queues a nodegroup item that any PE of this process may run.
  void enqueue_node(work_item* w) noexcept;
  /// Takes one node item, or nullptr (any PE).
  work_item* take_node_item() noexcept;
  bool node_pending() const noexcept { return node_pending_.load(std::memory_order_seq_cst) != 0; }

  /// First call wins: records the exit code and stops every PE of this
  /// process, and (unless the request came from a peer) tells every other node.
  void request_exit(int code, bool from_peer = false) noexcept;
  bool stopping() const noexcept { return stopping_.load(std::memory_order_relaxed); }
  int exit_code() const noexcept { return exit_code_.load(); }
  /// A process of the job failed: stops this process's PEs (telling no one)
  /// so that the job can recover. False if the program was ending anyway.
  bool request_recovery_stop() noexcept;

  runtime_options opts;
  std::uint32_t my_node = 0;
  std::uint32_t num_nodes = 1;
  std::uint32_t ppn = 0;       ///< PEs of this process (the same in every process)
  std::uint32_t first_pe = 0;  ///< global number of this process's first PE
  std::uint32_t num_pes = 0;   ///< PEs of the whole program
  std::vector<std::unique_ptr<pe_state>> pes;  ///< this process's PEs, local order
  transport* net = nullptr;    ///< null for a single process
  /// More PEs (and communication thread) in this process than cores it may
  /// use: an idle PE's spin then yields its core, or a PE just woken for work
  /// would wait for a spinning one's time slice.
  bool oversubscribed = false;
  /// The program's command line as started, runtime options included (for trace and summary headers).
  std::vector<std::string> command_line;
  std::string transport_name;  ///< "tcp", "mpi", or empty for a single process
  /// Unique per runtime in this process: a runtime started after a recovery
  /// may sit at the address of the one before it.
  std::uint64_t generation = 0;

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

/// Hooks through which the message layer (above) serves the transport: it
/// alone knows how to turn a work item into bytes and back.
struct remote_hooks {
  /// Sends message `w` (never a closure) to PE `dst` of another node; consumes it.
  void (*send)(runtime_state& rt, std::uint32_t dst, work_item* w) noexcept = nullptr;
  /// Memory a transport may receive a large frame into (progress thread).
  std::byte* (*frame_memory)(runtime_state& rt, std::size_t bytes) noexcept = nullptr;
  /// Handles one frame received from node `src` and its out-of-line segments,
  /// whose block references it takes over (progress thread).
  void (*on_frame)(runtime_state& rt, std::uint32_t src, std::span<const std::byte> frame,
                   std::span<frame_segment> segments) noexcept = nullptr;
  /// Tells every other node to exit with `code`.
  void (*broadcast_exit)(runtime_state& rt, int code) noexcept = nullptr;
  /// Node 0, after main's synchronous part: sends the readonly globals if nothing sent them yet.
  void (*main_returned)(runtime_state& rt) noexcept = nullptr;
};
inline remote_hooks g_remote;

/// Set by the objects layer: prints the calling PE's suspended tasks, what
/// their objects' mailboxes wait for and keep (roam::report_waiting_tasks).
/// Under +taskreport each PE calls it at exit, before its tasks are destroyed.
inline void (*g_report_waiting_tasks)() noexcept = nullptr;

/// The calling PE; aborts with a clear message when called off a PE thread.
pe_state& this_pe(const char* what);

/// Reports a fatal error prefixed with "[pe i/P]" and stops the program with exit code 1.
void report_fatal(const std::string& message) noexcept;
/// The "[pe i/P] " prefix for the calling thread.
std::string pe_prefix();

}  // namespace roam::detail
