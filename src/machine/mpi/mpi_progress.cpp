// progress() and wait(): the communication thread's loop body and its idle
// sleep.
#include <algorithm>

#include "mpi/mpi_timer_slack.hpp"
#include "mpi/mpi_transport.hpp"

namespace roam::detail {

using namespace std::chrono_literals;

namespace {
// First sleep of the idle backoff; it doubles up to limits_.max_sleep.
constexpr std::chrono::microseconds first_sleep{8};
// While our sends are in flight the peer may need us to call MPI (pipelined
// rendezvous without single-copy), so the backoff stops here.
constexpr std::chrono::microseconds max_sleep_with_sends_in_flight{64};

// Timers are looked at once per this many progress() calls (a clock read
// each call would cost the hot path) and after every idle wait().
constexpr std::uint32_t calls_per_timer_check = 64;
}  // namespace

bool mpi_transport::progress() {
  if (silenced_.load(std::memory_order_relaxed)) silent_end();
  // NAMD's three tasks, each capped so a burst of one kind cannot starve the
  // others (Mei et al., SC'11, §4.4.2).
  std::size_t work = start_queued_sends(limits_.max_sends);
  work += test_sends(limits_.max_tests);
  work += receive_frames(limits_.max_recvs);
  if (++calls_since_timers_ >= calls_per_timer_check) {
    calls_since_timers_ = 0;
    check_timers(true);
  }
  // A handler may have fenced this process (go_silent inside on_frame).
  if (silenced_.load(std::memory_order_relaxed)) silent_end();
  if (work != 0) idle_sleep_ = 0us;
  return work != 0;
}

void mpi_transport::wait(std::chrono::microseconds timeout) {
  // Never sleep past a timer tick: heartbeats are sent from here when idle.
  timeout = std::min<std::chrono::microseconds>(timeout, timer_tick_);
  struct timers_after {
    mpi_transport* t;
    ~timers_after() { t->check_timers(true); }
  } timers{this};
  if (wake_.consume() || timeout <= 0us || startable_sends()) return;
  auto now = std::chrono::steady_clock::now();
  auto deadline = now + timeout;
  if (idle_sleep_ == 0us) {
    // Fresh idleness: poll for a while first. A reply usually comes within
    // a microsecond or two, far below what a futex sleep costs to wake from;
    // longer while our own (large) sends are being read by their peers.
    auto spin = inflight_.empty() ? limits_.spin : std::max(limits_.spin, limits_.spin_in_flight);
    auto spin_end = now + std::min(spin, timeout);
    while (true) {
      if (frame_waiting() || wake_.consume()) return;
      if (std::chrono::steady_clock::now() >= spin_end) break;
    }
    idle_sleep_ = first_sleep;
  }
  sleep_until_activity(deadline);
}

void mpi_transport::sleep_until_activity(std::chrono::steady_clock::time_point deadline) noexcept {
  scoped_timer_slack precise(1000);  // 1 us: see mpi_timer_slack.hpp
  while (true) {
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return;
    wake_.sleep_for(std::min<std::chrono::nanoseconds>(idle_sleep_, deadline - now));
    if (wake_.consume() || frame_waiting()) return;
    // A completed send frees a slot for queued frames (or memory): let
    // progress() see it.
    if (!inflight_.empty() && test_sends(limits_.max_tests) != 0) return;
    auto cap = inflight_.empty() ? limits_.max_sleep : std::min(limits_.max_sleep, max_sleep_with_sends_in_flight);
    idle_sleep_ = std::min(idle_sleep_ * 2, cap);
  }
}

}  // namespace roam::detail
