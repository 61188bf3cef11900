#pragma once
// The event clock: what observers, tracing and load measurement time with.
// Reading it must cost a few nanoseconds, because it is read at every entry
// method while anyone observes. On x86-64, when the kernel itself keeps time
// with the time-stamp counter (its clocksource is "tsc": the counter is
// invariant and the same on every core), a tick is one TSC count (rdtsc,
// ~13 ns on this VM against ~23 ns for steady_clock::now); anywhere else a
// tick is one nanosecond of the steady clock. Either way ticks only go
// forward on one thread and compare across the threads of one process.
#include <chrono>
#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace roam {

namespace detail {
/// Chosen once, before main, by src/sched/clock.cpp.
extern const bool g_clock_uses_tsc;
inline std::uint64_t steady_ns() noexcept {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}
}  // namespace detail

/// Now, in event-clock ticks.
inline std::uint64_t clock_ticks() noexcept {
#if defined(__x86_64__)
  if (detail::g_clock_uses_tsc) [[likely]]
    return __rdtsc();
#endif
  return detail::steady_ns();
}

/// Ticks per second, measured against the steady clock over the process's
/// life so far (at least 2 ms: the first call may wait that long).
double clock_ticks_per_second() noexcept;
/// Whether a tick is a TSC count (true) or a steady-clock nanosecond.
bool clock_is_tsc() noexcept;

/// One reading of both clocks, taken together: what converts ticks to
/// steady-clock and wall-clock (Unix epoch) nanoseconds.
struct clock_pair {
  std::uint64_t ticks = 0;
  std::uint64_t steady_ns = 0;
  std::uint64_t unix_ns = 0;
};
clock_pair clock_now_pair() noexcept;
/// The pair taken before main.
clock_pair clock_origin() noexcept;

/// This process's wall clock minus node 0's, in nanoseconds, as measured at
/// start-up (0 in a single process, and between processes of one host, which
/// share the kernel's clock). Subtract it from a `unix_ns` to compare times
/// taken in different processes.
std::int64_t clock_offset_ns() noexcept;

}  // namespace roam
