// Failure detection over MPI: heartbeats out, silence in. MPI itself reports
// nothing about a peer that stopped (a SIGSTOPped or hung rank, one that went
// silent by roam::die_now): only the absence of its messages tells.
#include <cinttypes>
#include <string>

#include "mpi/mpi_frame_tag.hpp"
#include "mpi/mpi_transport.hpp"

namespace roam::detail {

void mpi_transport::check_timers(bool report) noexcept {
  if (silenced_.load(std::memory_order_relaxed)) return;
  const auto now = clock::now();
  if (now < next_timer_check_) return;
  next_timer_check_ = now + timer_tick_;
  // Silence counts only while this thread was watching. After a gap (a long
  // entry method in non-SMP mode, this process stopped, the VM descheduled)
  // every peer gets a fresh timeout: the one that was away is this process,
  // and what the peers sent meanwhile is still to be read.
  const bool was_away = now - last_timer_check_ > limits_.heartbeat_timeout / 2;
  last_timer_check_ = now;
  report = report && !finishing_;
  bool overdue = false;
  for (std::uint32_t n = 0; n < num_nodes_; ++n) {
    if (n == my_node_ || failed_[n]) continue;
    if (heard_[n] || was_away) {
      heard_[n] = 0;
      last_heard_[n] = now;
    } else if (now - last_heard_[n] > limits_.heartbeat_timeout) {
      overdue = true;
    }
    if (sent_recently_[n]) {
      sent_recently_[n] = 0;
      last_sent_[n] = now;
    } else if (now - last_sent_[n] >= limits_.heartbeat_interval) {
      send_heartbeat(n);
      last_sent_[n] = now;
    }
  }
  if (!overdue || !report) return;
  // Before declaring anyone, read what has already arrived: a frame or
  // heartbeat from the peer may sit in the ring, unread.
  while (receive_frames(limits_.max_recvs) != 0)
    if (silenced_.load(std::memory_order_relaxed)) return;  // a handler fenced this process
  for (std::uint32_t n = 0; n < num_nodes_; ++n) {
    if (n == my_node_ || failed_[n]) continue;
    if (heard_[n]) {
      heard_[n] = 0;
      last_heard_[n] = now;
    } else if (now - last_heard_[n] > limits_.heartbeat_timeout) {
      peer_failed(n, "node " + std::to_string(n) + " sent nothing, not even a heartbeat, for " +
                         std::to_string(limits_.heartbeat_timeout.count()) + " ms (ROAM_MPI_HEARTBEAT_TIMEOUT_MS)");
    }
  }
}

void mpi_transport::send_heartbeat(std::uint32_t dst) noexcept {
  // Empty and eager: it completes at once and needs no buffer kept alive.
  static const std::byte nothing{};
  isend(dst, &nothing, 0, mpi_heartbeat_tag, comms_.frames, out_frame{});
}

void mpi_transport::drop_peer(std::uint32_t node) {
  // Not reported (the membership decided it), never sent to again; its
  // frames still arriving are received (the ring takes any source) and the
  // membership drops them.
  if (node >= num_nodes_) return;
  failed_[node] = true;
  dropped_[node] = true;
}

}  // namespace roam::detail
