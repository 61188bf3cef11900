// A silent rank: roam::die_now over MPI, and a rank the others declared
// failed (fenced). Stopping it (SIGSTOP) or exiting would not do: MPI cannot
// lose a rank, so mpirun either aborts the whole job (an exit without
// MPI_Finalize) or waits for the stopped rank for ever. Instead the rank
// stays in MPI as a sink: it sends nothing new, drops what it receives (so
// the survivors' sends complete), and finalizes with the survivors when they
// finish. To the others it looks exactly like a stopped machine: nothing
// arrives from it, not even a heartbeat.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "mpi/mpi_error.hpp"
#include "mpi/mpi_progress_owner.hpp"
#include "mpi/mpi_transport.hpp"

namespace roam::detail {

using namespace std::chrono_literals;

namespace {
// A silent rank may wait for the rest of the job: it polls for the frames
// still addressed to it at most this often (cheap, and the survivors' sends
// to it were started before they dropped it, so nothing waits on it long).
constexpr std::chrono::microseconds silent_poll_max{2000};
}  // namespace

bool mpi_transport::go_silent() {
  silenced_.store(true, std::memory_order_relaxed);
  if (is_progress_owner(this) && handler_depth_ == 0) silent_end();
  wake_.wake();  // the progress thread ends it at its next progress()
  return true;
}

void mpi_transport::silent_end() noexcept {
  silenced_.store(true, std::memory_order_relaxed);
  finishing_ = true;
  closing_.store(true, std::memory_order_relaxed);
  // Frames queued but not started never leave.
  {
    std::vector<mpi_outgoing> dropped;
    outbox_.take_all(dropped);
  }
  staging_.clear();
  staging_next_ = 0;
  std::chrono::microseconds backoff{0};
  auto pause = [&](bool worked) {
    if (worked) {
      backoff = 0us;
      return;
    }
    backoff = std::clamp(backoff * 2, std::chrono::microseconds(8), silent_poll_max);
    wake_.sleep_for(backoff);
  };
  // Sends already started complete: a receiver may be blocked on their bytes.
  while (!inflight_.empty()) {
    const std::size_t tested = test_sends(limits_.max_tests);
    pause(tested + receive_frames(limits_.max_recvs) != 0);
  }
  // The survivors' finish handshake, whenever they reach it: counts first
  // (this rank's sent_to_ is final), then every frame they sent here, dropped.
  std::vector<std::uint64_t> expected(num_nodes_, 0);
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = MPI_Ialltoall(sent_to_.data(), 1, MPI_UINT64_T, expected.data(), 1, MPI_UINT64_T, comms_.control, &request);
  if (rc != MPI_SUCCESS) mpi_fatal(my_node_, "MPI_Ialltoall of the frame counts (silent rank)", rc);
  for (;;) {
    int done = 0;
    rc = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) mpi_fatal(my_node_, "the frame-count exchange (silent rank)", rc);
    if (done) break;
    pause(receive_frames(limits_.max_recvs) != 0);
  }
  auto missing = [&] {
    for (std::uint32_t n = 0; n < num_nodes_; ++n)
      if (n != my_node_ && received_from_[n] < expected[n]) return true;
    return false;
  };
  const auto deadline = clock::now() + limits_.finish_timeout;
  while (missing() && clock::now() < deadline) pause(receive_frames(limits_.max_recvs) != 0);
  release_mpi();
  std::fflush(nullptr);
  // Status 0: the job's status is the survivors' (the program's result).
  std::_Exit(0);
}

}  // namespace roam::detail
