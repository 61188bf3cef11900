#pragma once
// How wake() interrupts the progress thread's idle sleep in wait(). MPI has
// no blocking call that another thread could interrupt, so wait() polls
// for frames between short futex sleeps; this is the futex word and the
// "a wake is pending" flag. No MPI here.
#include <atomic>
#include <chrono>
#include <cstdint>

namespace roam::detail {

class mpi_wake_signal {
 public:
  /// Any thread. Cheap when the progress thread is not asleep: one store and
  /// one load, no system call (PEs call it after every queued send).
  void wake() noexcept;

  /// Progress thread: consumes a pending wake. True if there was one.
  bool consume() noexcept { return pending_.exchange(false, std::memory_order_seq_cst); }

  /// Progress thread: sleeps up to `d` unless a wake is (or becomes) pending.
  /// Does not consume the wake; spurious returns are allowed.
  void sleep_for(std::chrono::nanoseconds d) noexcept;

 private:
  // Dekker-style handshake (all seq_cst): the sleeper publishes sleeping_
  // before reading pending_, the waker publishes pending_ before reading
  // sleeping_, so at least one of them sees the other and no wake is lost.
  std::atomic<bool> pending_{false};
  std::atomic<bool> sleeping_{false};
  std::atomic<std::uint32_t> word_{0};
};

}  // namespace roam::detail
