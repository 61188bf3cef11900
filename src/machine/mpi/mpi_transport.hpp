#pragma once
// The mpi transport: frames between processes started by mpirun.
//
// Invariants
// - Every MPI call is made by the progress thread (MPI_THREAD_FUNNELED).
//   Other threads touch only outbox_, wake_ and the atomic closing_ flag.
// - Small frames and the headers of big ones travel on comms_.frames and are
//   received, in order, by the pre-posted ring (mpi_recv_ring.hpp); a big
//   frame's bytes follow on comms_.bulk and are received right after its
//   header (mpi_frame_tag.hpp). MPI's non-overtaking rule keeps each pair's
//   order. Collectives (allgather, the finish handshake) use comms_.control,
//   so internal traffic can never be mistaken for a frame.
// - A frame is started (MPI_Isend) in per-destination send() order: the direct
//   path is taken only when nothing older is queued (outbox_ and staging_ are
//   empty).
// - sent_to_/received_from_ count frames per peer; finish() exchanges them so
//   that no node finalizes while frames are still on their way to it.
// - Heartbeats (mpi_heartbeat_tag, empty, never counted as frames) go to a
//   peer sent nothing for heartbeat_interval; a peer heard nothing from for
//   heartbeat_timeout, while this thread was watching, is reported failed.
// - A silenced process (go_silent: roam::die_now, or fenced by the others)
//   sends nothing new, receives and drops everything, and ends only with the
//   job: MPI cannot lose a rank, so it finalizes with the survivors
//   (docs/design/fault-tolerance.md §6).
#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <roam/machine/detail/transport.hpp>

#include "mpi/mpi_inflight_sends.hpp"
#include "mpi/mpi_limits.hpp"
#include "mpi/mpi_outbox.hpp"
#include "mpi/mpi_recv_ring.hpp"
#include "mpi/mpi_wake_signal.hpp"

namespace roam::detail {

/// The transport's private duplicates of MPI_COMM_WORLD.
struct mpi_comms {
  MPI_Comm frames = MPI_COMM_NULL;   // small frames and big frames' headers
  MPI_Comm bulk = MPI_COMM_NULL;     // big frames' bytes
  MPI_Comm control = MPI_COMM_NULL;  // collectives
};

class mpi_transport final : public transport {
 public:
  /// Use make_mpi_transport(); this only takes over what it set up. Posts
  /// the receive ring; `error` is set if that fails.
  mpi_transport(mpi_comms comms, bool owns_mpi, mpi_limits limits, std::string& error);
  ~mpi_transport() override;
  mpi_transport(const mpi_transport&) = delete;
  mpi_transport& operator=(const mpi_transport&) = delete;

  const char* name() const noexcept override { return "mpi"; }
  std::uint32_t my_node() const noexcept override { return my_node_; }
  std::uint32_t num_nodes() const noexcept override { return num_nodes_; }

  void set_handlers(transport_handlers h) override;
  void send(std::uint32_t dst, out_frame frame) override;
  bool progress() override;
  void wait(std::chrono::microseconds timeout) override;
  void wake() noexcept override { wake_.wake(); }
  bool sends_started() const noexcept override {
    return !outbox_.maybe_nonempty() && staging_next_ == staging_.size();
  }
  std::vector<std::vector<std::byte>> allgather(std::span<const std::byte> mine) override;
  void finish() override;
  /// Forget `node`: no more sends to it, no report, finish() does not wait
  /// for its frames. Its frames still arriving are received and dropped.
  void drop_peer(std::uint32_t node) override;
  /// On the progress thread outside a handler: ends as silent_end() does
  /// (never returns). Elsewhere: from now on nothing is sent or delivered,
  /// and the progress thread ends the same way at its next progress().
  bool go_silent() override;

 private:
  using clock = std::chrono::steady_clock;
  // Starts one send now (progress thread). Small frames usually complete at
  // once and are freed here; others join inflight_.
  void start_send(std::uint32_t dst, out_frame frame) noexcept;
  // A frame with segments: its header, its inline bytes, each segment.
  void start_segmented_send(std::uint32_t dst, out_frame frame) noexcept;
  // One MPI_Isend of [data, data + bytes) + MPI_Test; if not complete, keeps
  // `frame` and `block` (which own the bytes) in inflight_. False if MPI_Isend failed.
  bool isend(std::uint32_t dst, const std::byte* data, std::size_t bytes, int tag, MPI_Comm comm, out_frame frame,
             block_ref block = {}) noexcept;
  // Receives the bytes of a big frame announced from `src` and hands them on.
  void receive_big_frame(std::uint32_t src, std::span<const std::byte> header) noexcept;
  // Receives the inline bytes (unless embedded) and the segments of a segmented frame.
  void receive_segmented_frame(std::uint32_t src, std::span<const std::byte> header) noexcept;
  // MPI_Recv of exactly `bytes` from `src` on bulk; false (peer reported) otherwise.
  bool receive_bulk(std::uint32_t src, std::byte* into, std::size_t bytes, const char* what) noexcept;
  void deliver(std::uint32_t src, std::span<const std::byte> frame, std::span<frame_segment> segments = {}) noexcept;
  // The three capped tasks of one progress() call (NAMD's progress engine).
  std::size_t start_queued_sends(std::size_t cap) noexcept;
  std::size_t test_sends(std::size_t cap) noexcept;
  std::size_t receive_frames(std::size_t cap) noexcept;
  // True if a frame is waiting to be received (also drives MPI's progress).
  bool frame_waiting() noexcept;
  bool sends_pending() const noexcept;
  // Sends are waiting in the queue and could be started now.
  bool startable_sends() const noexcept;
  // wait()'s sleep phase; `backoff` carries over between idle wait() calls.
  void sleep_until_activity(std::chrono::steady_clock::time_point deadline) noexcept;
  void peer_failed(std::uint32_t node, const std::string& why) noexcept;
  // Heartbeats out and silence in, at most once per timer_tick_. `report`:
  // false in finish(), where only the heartbeats go out.
  void check_timers(bool report) noexcept;
  void send_heartbeat(std::uint32_t dst) noexcept;
  // A silenced process's end: completes the sends already started (their
  // receivers wait for the bytes), drops everything it receives, takes part
  // in the survivors' finish handshake when they reach it, finalizes MPI and
  // exits with status 0 (the job's status is the survivors').
  [[noreturn]] void silent_end() noexcept;
  // Makes room for a frame of `bytes` in recv_buf_.
  std::byte* recv_buffer(std::size_t bytes);

  // finish() phases (mpi_finish.cpp).
  bool drain_sends_until(std::chrono::steady_clock::time_point deadline) noexcept;
  bool exchange_counts_until(std::chrono::steady_clock::time_point deadline, std::vector<std::uint64_t>& expected) noexcept;
  bool receive_expected_until(std::chrono::steady_clock::time_point deadline,
                              const std::vector<std::uint64_t>& expected) noexcept;
  [[noreturn]] void finish_timed_out(const char* phase) noexcept;
  // The last step of an end: the receives cancelled, the communicators
  // freed, MPI finalized (if the transport initialised it).
  void release_mpi() noexcept;
  void idle_pause(std::chrono::microseconds& backoff) noexcept;

  mpi_comms comms_;
  bool owns_mpi_;  // we called MPI_Init_thread, so we call MPI_Finalize
  mpi_limits limits_;
  std::uint32_t my_node_ = 0;
  std::uint32_t num_nodes_ = 1;
  transport_handlers handlers_{};
  bool finished_ = false;
  bool finishing_ = false;  // finish() began: failures are no longer reported
  std::atomic<bool> closing_{false};  // finish() began: a later send() is a bug

  // Sending: other threads -> outbox_ -> staging_ (a batch taken from the
  // outbox, started within the cap) -> inflight_ until MPI completes them.
  mpi_outbox outbox_;
  std::vector<mpi_outgoing> staging_;
  std::size_t staging_next_ = 0;
  mpi_inflight_sends inflight_;
  std::vector<mpi_inflight_sends::failure> send_failures_;

  // Receiving: small frames land in the ring's slots, big ones in one reused
  // buffer (on_frame's span is valid only during the call), so steady-state
  // receives do not allocate. The big-frame buffer grows to the largest frame
  // seen; when it is above recv_buffer_kept
  // and no frame that large came for frames_before_shrink frames, it shrinks
  // back, so an occasional huge frame does not pin its memory for ever.
  static constexpr std::size_t recv_buffer_initial = std::size_t{64} << 10;
  static constexpr std::size_t recv_buffer_kept = std::size_t{8} << 20;
  static constexpr std::uint32_t frames_before_shrink = 1024;
  std::uint32_t frames_since_huge_ = 0;
  mpi_recv_ring ring_;
  std::unique_ptr<std::byte[]> recv_buf_;
  std::size_t recv_capacity_ = 0;
  std::vector<frame_segment> recv_segments_;  // a segmented frame's blocks, reused between frames

  mpi_wake_signal wake_;
  // The current idle backoff step: zero after progress() did work (the next
  // wait() spins first), else where the last wait() left off, so an idle
  // node chopped into many short wait() calls still backs off.
  std::chrono::microseconds idle_sleep_{0};

  std::vector<std::uint64_t> sent_to_;
  std::vector<std::uint64_t> received_from_;
  std::vector<bool> failed_;   // peer_failed() was reported for the node, or it was dropped
  // drop_peer(): nothing more is sent to it. A peer reported failed but not
  // (yet) dropped is still sent to: the membership's declaration must reach
  // a rank that was only stopped, so that it fences itself when it wakes.
  std::vector<bool> dropped_;

  // Failure detection (progress thread; check_timers).
  std::vector<char> heard_;          // something arrived from the peer since the last check
  std::vector<char> sent_recently_;  // a frame went to the peer since the last check
  std::vector<clock::time_point> last_heard_;
  std::vector<clock::time_point> last_sent_;
  clock::time_point next_timer_check_{};
  clock::time_point last_timer_check_{};
  std::chrono::milliseconds timer_tick_{1};
  std::uint32_t calls_since_timers_ = 0;

  std::atomic<bool> silenced_{false};
  int handler_depth_ = 0;  // on_frame calls under way (go_silent cannot end the process inside one)
};

}  // namespace roam::detail
