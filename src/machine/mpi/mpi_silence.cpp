// A silent rank: roam::die_now over MPI, and a rank the others declared
// failed (fenced). Stopping it (SIGSTOP) or exiting would not do: MPI cannot
// lose a rank, so mpirun either aborts the whole job (an exit without
// MPI_Finalize) or waits for the stopped rank for ever. Instead the rank
// stays in MPI as a sink: it sends nothing new, drops what it receives (so
// the survivors' sends complete), and finalizes with the survivors when they
// finish. To the others it looks exactly like a stopped machine: nothing
// arrives from it, not even a heartbeat.
#include <cstdio>
#include <cstdlib>

#include "mpi/mpi_progress_owner.hpp"
#include "mpi/mpi_transport.hpp"

namespace roam::detail {

using namespace std::chrono_literals;

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
  // Sends already started complete: a receiver may be blocked on their bytes.
  std::chrono::microseconds backoff{0};
  while (!inflight_.empty()) {
    if (test_sends(limits_.max_tests) + receive_frames(limits_.max_recvs) != 0) backoff = 0us;
    else idle_pause(backoff);
  }
  // The survivors' finish handshake, whenever they reach it (no deadline:
  // that is when the job ends), then every frame they counted to this rank,
  // received and dropped. finish()'s own phases, which send no heartbeat
  // from a silenced rank.
  std::vector<std::uint64_t> expected(num_nodes_, 0);
  exchange_counts_until(clock::time_point::max(), expected);
  receive_expected_until(clock::now() + limits_.finish_timeout, expected);
  release_mpi();
  std::fflush(nullptr);
  // Status 0: the job's status is the survivors' (the program's result).
  std::_Exit(0);
}

}  // namespace roam::detail
