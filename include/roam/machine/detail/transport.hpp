#pragma once
// The transport: how bytes travel between nodes (processes). The runtime
// above sees only this interface; `local` (one process) has no transport at
// all, `tcp` (processes started by roamrun) and `mpi` (started by mpirun)
// implement it.
//
// Threading contract (every implementation keeps it):
// - One *progress thread* per process calls create (the factory), progress(),
//   wait(), allgather() and finish(). In non-SMP mode it is the process's
//   only PE; in SMP mode (+ppn K > 1) it is a dedicated communication thread.
//   MPI is initialised on it, so it is the thread of MPI_THREAD_FUNNELED.
// - send() and wake() may be called from any thread, concurrently.
// - Per-pair order: if one send(dst, a) returns before another send(dst, b)
//   starts (in any threads of this process), `a` is handed to dst's frame
//   handler before `b`.
// - Handlers run on the progress thread, inside progress() or finish().
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <roam/machine/detail/frame.hpp>

namespace roam::detail {

/// What a transport calls back into the runtime with.
struct transport_handlers {
  void* ctx = nullptr;
  /// One complete frame from node `src`: exactly the inline bytes and the
  /// segments (same count, same lengths, same contents) given to send() there.
  /// The span is valid only during the call; the segments' block references
  /// may be moved out (the runtime keeps the blocks without copying them).
  void (*on_frame)(void* ctx, std::uint32_t src, std::span<const std::byte> frame,
                   std::span<frame_segment> segments) = nullptr;
  /// Node `node` is gone (connection closed without an orderly finish, missed
  /// heartbeats, or a malformed frame); `why` says which, for the error message.
  /// Called at most once per node, never for a node that finished in order.
  void (*on_peer_failure)(void* ctx, std::uint32_t node, const std::string& why) = nullptr;
  /// Optional: memory for a large incoming frame of `bytes`, so that it lands
  /// where the runtime will keep it (no copy). A transport that uses it calls
  /// on_frame with a span starting exactly there, and the runtime owns the
  /// memory from then on; memory handed out but never delivered (a failed
  /// receive) is reclaimed by the runtime on the next call. It may return
  /// nullptr (the transport then uses its own buffer). Only for frames without
  /// segments (the runtime needs room beside a segmented frame's bytes).
  std::byte* (*frame_memory)(void* ctx, std::size_t bytes) = nullptr;
  /// Optional (membership_transport only): processes were declared failed;
  /// the runtime must stop its PEs so that the job can recover
  /// (docs/design/fault-tolerance.md). Progress thread.
  void (*on_membership_change)(void* ctx) = nullptr;
};

class transport {
 public:
  virtual ~transport() = default;

  /// "tcp", "mpi".
  virtual const char* name() const noexcept = 0;
  virtual std::uint32_t my_node() const noexcept = 0;
  virtual std::uint32_t num_nodes() const noexcept = 0;

  /// Installs the handlers; called once, on the progress thread, before any
  /// other call but my_node/num_nodes/allgather. Frames that arrived earlier
  /// are kept and delivered by the first progress() after it.
  virtual void set_handlers(transport_handlers h) = 0;

  /// Queues `frame` for node `dst` (never my_node()). Takes ownership; the
  /// inline bytes and the segments go out without further copies (each
  /// segment from its block's memory), and the frame is released once they
  /// are on their way. At most max_frame_segments segments. Any thread.
  virtual void send(std::uint32_t dst, out_frame frame) = 0;

  /// Non-blocking: pushes queued sends, takes arrived frames and calls
  /// on_frame for each, within the burst caps. True if it did any work.
  virtual bool progress() = 0;

  /// Blocks the progress thread until a frame may have arrived, wake() was
  /// called, or `timeout` passed (spurious returns are allowed).
  virtual void wait(std::chrono::microseconds timeout) = 0;

  /// Makes a wait() in progress (or the next one) return soon. Any thread.
  virtual void wake() noexcept = 0;

  /// Every frame given to send() so far has left this process's queues
  /// (MPI: its send is posted), so it reaches its peer even if this process
  /// stops calling progress() for a while (MPI progresses posted sends in
  /// any MPI call). Library mode pauses the transport between calls only
  /// then. Progress thread. Default: true (nothing is queued).
  virtual bool sends_started() const noexcept { return true; }

  /// Bootstrap exchange: every node calls it with its own small blob and gets
  /// every node's blob, indexed by node. Collective; also a barrier. Only
  /// before the PEs start.
  virtual std::vector<std::vector<std::byte>> allgather(std::span<const std::byte> mine) = 0;

  /// Orderly end, on every node, once its PEs have stopped: delivers what is
  /// queued, tells the peers this node is finishing (so they do not report it
  /// as failed), waits (bounded) for theirs, and releases everything (for
  /// MPI: MPI_Finalize). Frames arriving meanwhile still reach on_frame.
  virtual void finish() = 0;

  /// Forget node `node` for good: its connection is closed, its frames are
  /// no longer read, sends to it are dropped, it is never reported and
  /// finish() does not wait for it (a process the survivors declared failed).
  /// Progress thread. Default: nothing (a transport that cannot).
  virtual void drop_peer(std::uint32_t /*node*/) {}

  /// This process goes silent for good, as a stopped machine would, yet
  /// stays in the job: it sends nothing more (sends already started
  /// complete), drops whatever arrives, and ends when the others finish.
  /// For a transport whose job cannot lose a process (MPI): roam::die_now
  /// and a fenced process use it instead of stopping or exiting. Called on
  /// the progress thread outside a handler it does not return; elsewhere the
  /// progress thread ends the process at its next progress(). Any thread.
  /// False: the transport cannot (the caller stops or exits the process).
  virtual bool go_silent() { return false; }

  /// One line for the launcher (roamrun prints it and learns from it: a
  /// failure or a recovery). Default: nothing (no launcher to tell).
  virtual void tell_launcher(std::string_view /*line*/) {}
};

/// Keeps large freed blocks in glibc's heap instead of unmapping them (the
/// user's MALLOC_* / GLIBC_TUNABLES settings win; ROAM_MALLOC_TUNING=0 turns
/// it off). Called at start-up, by every kind of run.
void tune_malloc_for_messages() noexcept;

/// Which transport this process was started under, from its environment:
/// "tcp" when started by roamrun (ROAM_TRANSPORT=tcp), "mpi" when started by
/// mpirun/srun (or ROAM_TRANSPORT=mpi), "" for a single process.
std::string detect_transport();

/// The job this process was started in, from its launcher's environment,
/// before any transport starts: the number of processes and this one's rank
/// ("tcp": roamrun's ROAM_TCP_NODES and ROAM_TCP_NODE; "mpi": OpenMPI's
/// OMPI_COMM_WORLD_SIZE and OMPI_COMM_WORLD_RANK, or PMI_SIZE and PMI_RANK).
/// False and `error` (naming the variable) when the environment does not say.
bool job_size_from_environment(const std::string& kind, std::uint32_t& processes, std::uint32_t& rank,
                               std::string& error);

/// Creates and bootstraps the named transport on the calling (progress)
/// thread: connects to the peers or initialises MPI. Returns nullptr and sets
/// `error` when it cannot (the error names the transport and the cause).
std::unique_ptr<transport> make_transport(const std::string& kind, std::string& error);

// Implementations (machine/tcp, machine/mpi).
std::unique_ptr<transport> make_tcp_transport(std::string& error);
#ifdef ROAM_HAVE_MPI
std::unique_ptr<transport> make_mpi_transport(std::string& error);
#endif

}  // namespace roam::detail
