#pragma once
// Hand-off of frames from PE threads to the communication thread (SMP mode).
// Only the progress thread makes MPI calls (MPI_THREAD_FUNNELED), so a PE's
// send() lands here and the progress thread starts it later.
//
// A short mutex around a vector, swapped out whole by the consumer: pushes are
// amortised allocation-free (the two vectors keep their capacity as they
// trade places), the critical section is one emplace_back, and an atomic flag
// lets the progress thread skip the lock when nothing is queued.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include <roam/machine/detail/frame.hpp>

namespace roam::detail {

/// One frame waiting to be started.
struct mpi_outgoing {
  std::uint32_t dst = 0;
  out_frame frame;
};

class mpi_outbox {
 public:
  /// Appends a frame; any thread. Frames pushed by one thread keep their order.
  void push(std::uint32_t dst, out_frame frame) {
    std::lock_guard lock(mutex_);
    items_.push_back(mpi_outgoing{dst, std::move(frame)});
    nonempty_.store(true, std::memory_order_release);
  }

  /// Moves every queued frame, oldest first, into `into` (which must be empty;
  /// its capacity is reused). Progress thread only. False if there was none.
  bool take_all(std::vector<mpi_outgoing>& into) {
    if (!nonempty_.load(std::memory_order_acquire)) return false;
    std::lock_guard lock(mutex_);
    into.swap(items_);
    nonempty_.store(false, std::memory_order_relaxed);
    return !into.empty();
  }

  /// True if a push may be waiting. A push that returned before this call
  /// started (happens-before) is always seen.
  bool maybe_nonempty() const noexcept { return nonempty_.load(std::memory_order_acquire); }

 private:
  std::mutex mutex_;
  std::vector<mpi_outgoing> items_;
  std::atomic<bool> nonempty_{false};
};

}  // namespace roam::detail
