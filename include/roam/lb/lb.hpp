#pragma once
// Measurement-based load balancing. The runtime measures each object's
// execution time; at a balancing step it gathers the measurements, runs a
// strategy (roam/lb/strategy.hpp) and migrates objects where the strategy
// says. Two ways to reach a step:
//
// - At sync points: an array element or chare whose type has
//   `void resume_from_sync()` calls `at_sync()` (roam::element / roam::chare)
//   when it is at a safe point. Once every such object on every PE has, the
//   step runs, and each of them receives resume_from_sync() exactly once, on
//   the PE where it then is. Objects without resume_from_sync do not take
//   part: they are not moved, and their time counts as their PE's background.
// - At any time: `roam::balance_now()`, or every +LBPeriod seconds, every
//   migratable object may move (those in a running entry move once it ends).
//
// Runtime options: +balancer NAME[,NAME...] (the first step uses the first
// strategy, and so on, the last one from then on), +MetaLB (the runtime picks
// when and which), +LBOff, +LBPeriod SECONDS, +LBDebug, +LBDump FILE. With
// no strategy chosen, at_sync() still synchronises and resumes, and nothing
// is measured. See docs/design/load-balancing.md.
#include <chrono>
#include <cstdint>
#include <functional>

namespace roam {

/// Balances every migratable object now (from any PE; steps requested while one runs are merged into it).
/// `done` (optional) runs on the calling PE once the step's migrations are over.
void balance_now(std::function<void()> done = {});

/// Whether measurement and balancing are on in this run (+balancer or +MetaLB given, no +LBOff).
bool load_balancing_enabled() noexcept;

/// Balancing steps completed so far (as seen by the calling PE): steps in
/// which a strategy ran. Sync steps without one (no +balancer, or +MetaLB
/// deciding that balancing would not pay) are not counted.
std::uint32_t load_balancing_steps() noexcept;
/// For a library whose entry methods do other objects' work (libs/pdes's
/// manager runs its LP chares' events): counts `t` of the running entry's
/// time as the load of `object` (an array element or chare on this PE, as
/// its own pointer), not of the object the entry runs on. Without load
/// balancing (or outside an entry) it does nothing.
void charge_load(const void* object, std::chrono::nanoseconds t) noexcept;
/// Sets the load the next balancing step sees for `object` (an array element
/// or chare on the calling PE, as its own pointer): `t`, whatever is measured
/// for it until that step (Adaptive MPI's AMPI_Load_set_value: a program
/// that knows its ranks' costs better than the clock). Without load
/// balancing it does nothing.
void set_load(const void* object, std::chrono::nanoseconds t) noexcept;

}  // namespace roam
