#pragma once
// What the scheduler itself calls on user-level threads (ult.cpp).

namespace roam::detail {

/// At the end of a run, on each PE after its loop stopped: unwinds the threads
/// still blocked there (their blocking calls throw thread_unwind) and frees
/// the PE's stacks. Objects are still alive, so unwinding frames may use them.
void ult_pe_shutdown() noexcept;

/// Makes `host` (a PE's user-level thread host, or null) the calling thread's
/// and returns the one it had: the deterministic driver runs every PE on one
/// thread and gives each PE its own host while it steps it.
void* ult_exchange_host(void* host) noexcept;

}  // namespace roam::detail
