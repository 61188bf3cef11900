#pragma once
// What the scheduler itself calls on user-level threads (ult.cpp).

namespace roam::detail {

/// At the end of a run, on each PE after its loop stopped: unwinds the threads
/// still blocked there (their blocking calls throw thread_unwind) and frees
/// the PE's stacks. Objects are still alive, so unwinding frames may use them.
void ult_pe_shutdown() noexcept;

}  // namespace roam::detail
