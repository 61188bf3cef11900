// finish(): the orderly end. Sends complete, then every node learns how many
// frames each peer sent it (a non-blocking all-to-all, which is also the
// barrier), receives until it has them all, and only then finalizes MPI.
//
// Why counts and not just a barrier: a completed MPI_Isend means the buffer
// may be reused, not that the peer has the frame; MPI does not order a
// barrier after earlier point-to-point traffic either. Counting is exact.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

#include "mpi/mpi_error.hpp"
#include "mpi/mpi_transport.hpp"

namespace roam::detail {

using namespace std::chrono_literals;
using finish_clock = std::chrono::steady_clock;

void mpi_transport::finish() {
  if (finished_) return;
  finishing_ = true;
  auto deadline = finish_clock::now() + limits_.finish_timeout;
  // Handlers may still send while this drains (a reply to a last frame).
  if (!drain_sends_until(deadline)) finish_timed_out("this node's own frames to complete");
  // From here on our counts are final; a later send() is refused loudly.
  closing_.store(true, std::memory_order_relaxed);
  std::vector<std::uint64_t> expected(num_nodes_, 0);
  if (!exchange_counts_until(deadline, expected)) finish_timed_out("every node to reach finish()");
  if (!receive_expected_until(deadline, expected)) finish_timed_out("the frames still on their way here");
  release_mpi();
}

void mpi_transport::release_mpi() noexcept {
  ring_.close();
  MPI_Comm_free(&comms_.frames);
  MPI_Comm_free(&comms_.bulk);
  MPI_Comm_free(&comms_.control);
  finished_ = true;
  if (owns_mpi_) MPI_Finalize();
}

void mpi_transport::idle_pause(std::chrono::microseconds& backoff) noexcept {
  // One immediate retry, then sleeps doubling to 1 ms: finish() must not burn
  // a core while a slow peer catches up.
  if (backoff == 0us) {
    backoff = 1us;
    return;
  }
  wake_.sleep_for(backoff);
  backoff = std::min(backoff * 2, std::chrono::microseconds(1000));
}

bool mpi_transport::drain_sends_until(finish_clock::time_point deadline) noexcept {
  std::chrono::microseconds backoff{0};
  while (sends_pending()) {
    check_timers(false);  // peers still running must go on hearing from us
    if (progress()) backoff = 0us;
    else idle_pause(backoff);
    if (finish_clock::now() > deadline) return false;
  }
  return true;
}

bool mpi_transport::exchange_counts_until(finish_clock::time_point deadline, std::vector<std::uint64_t>& expected) noexcept {
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = MPI_Ialltoall(sent_to_.data(), 1, MPI_UINT64_T, expected.data(), 1, MPI_UINT64_T, comms_.control, &request);
  if (rc != MPI_SUCCESS) mpi_fatal(my_node_, "MPI_Ialltoall of the frame counts in finish()", rc);
  std::chrono::microseconds backoff{0};
  while (true) {
    int done = 0;
    rc = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) mpi_fatal(my_node_, "the frame-count exchange in finish()", rc);
    if (done) return true;
    check_timers(false);
    // Keep receiving: a peer still draining may need us to take its frames.
    if (receive_frames(limits_.max_recvs) != 0) backoff = 0us;
    else idle_pause(backoff);
    if (finish_clock::now() > deadline) return false;
  }
}

bool mpi_transport::receive_expected_until(finish_clock::time_point deadline,
                                           const std::vector<std::uint64_t>& expected) noexcept {
  auto missing = [&] {
    for (std::uint32_t n = 0; n < num_nodes_; ++n)
      if (n != my_node_ && !failed_[n] && received_from_[n] < expected[n]) return true;
    return false;
  };
  std::chrono::microseconds backoff{0};
  while (missing()) {
    if (receive_frames(limits_.max_recvs) != 0) backoff = 0us;
    else idle_pause(backoff);
    if (finish_clock::now() > deadline) return false;
  }
  return true;
}

void mpi_transport::finish_timed_out(const char* phase) noexcept {
  std::fprintf(stderr,
               "roam mpi transport (node %u): finish() waited %" PRId64 " s for %s and gives up; ending the job "
               "(ROAM_MPI_FINISH_TIMEOUT_S sets the limit)\n",
               my_node_, static_cast<std::int64_t>(limits_.finish_timeout.count()), phase);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

}  // namespace roam::detail
