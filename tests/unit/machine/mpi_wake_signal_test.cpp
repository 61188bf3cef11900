// wake()/sleep_for of the mpi transport's idle wait (no MPI calls).
#ifdef ROAM_HAVE_MPI
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "mpi/mpi_wake_signal.hpp"

namespace mpi_wake_signal_test {

using namespace roam::detail;
using namespace std::chrono_literals;

TEST(mpi_wake_signal, a_pending_wake_makes_sleep_return_at_once_and_is_consumed_once) {
  mpi_wake_signal w;
  w.wake();
  auto t0 = std::chrono::steady_clock::now();
  w.sleep_for(10s);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_TRUE(w.consume());
  EXPECT_FALSE(w.consume());
}

TEST(mpi_wake_signal, sleep_without_a_wake_lasts_about_the_timeout) {
  mpi_wake_signal w;
  auto t0 = std::chrono::steady_clock::now();
  w.sleep_for(20ms);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 15ms);  // futex timeouts may return a little early on some kernels
}

TEST(mpi_wake_signal, no_wake_is_lost_between_threads) {
  // Each round the sleeper must be woken promptly: a lost wake would cost the
  // full 10 s timeout and fail the deadline.
  mpi_wake_signal w;
  std::atomic<int> round{0};
  constexpr int rounds = 2000;
  std::thread waker([&] {
    for (int r = 1; r <= rounds; ++r) {
      while (round.load() < r) std::this_thread::yield();
      w.wake();
    }
  });
  auto deadline = std::chrono::steady_clock::now() + 30s;
  for (int r = 1; r <= rounds; ++r) {
    round.store(r);
    while (!w.consume()) {
      w.sleep_for(10s);
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "a wake was lost in round " << r;
    }
  }
  waker.join();
}

}  // namespace mpi_wake_signal_test
#endif
