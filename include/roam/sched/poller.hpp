#pragma once
/// \file
/// PE pollers: a library whose work arrives by other means than messages
/// (memory another process writes, a device) has each PE look for it while
/// the PE runs and while it waits for work, and learns when a PE is about
/// to sleep, so that whoever produces the work can wake it (with a message)
/// rather than leave it asleep. roam::direct polls its host-shared doorbells
/// this way.
///
/// - poll(pe) runs on PE `pe`'s thread between messages (every 32) and on
///   every turn of its idle spin; it must be cheap when nothing is there
///   (a load or two) and return true when it queued work (posted a notice,
///   sent to itself), so the PE does not go to sleep.
/// - sleeping(pe, true) runs just before the PE sleeps; poll(pe) runs once
///   more after it (so work published before a producer saw the flag is
///   found), then the PE sleeps unless there is work; sleeping(pe, false)
///   after it wakes. A producer that publishes work and then finds the PE
///   sleeping must wake it, e.g. with roam::call_on_pe.
/// - Not called by the deterministic driver (+deterministic), which runs
///   the PEs of one process on one thread and never sleeps.
#include <cstdint>

namespace roam {

class pe_poller {
 public:
  virtual ~pe_poller() = default;
  virtual bool poll(std::uint32_t pe) noexcept = 0;
  virtual void sleeping(std::uint32_t pe, bool asleep) noexcept { (void)pe, (void)asleep; }
};

/// Subscribes `p` for every PE of this process (any thread, any time; up to
/// 8 pollers). False when full or already subscribed. `p` must outlive the run.
bool add_pe_poller(pe_poller& p) noexcept;

namespace detail {
/// What the scheduler calls (src/sched/pollers.cpp).
bool poll_pollers(std::uint32_t pe) noexcept;
void tell_pollers_sleeping(std::uint32_t pe, bool asleep) noexcept;
bool have_pollers() noexcept;
}  // namespace detail

}  // namespace roam
