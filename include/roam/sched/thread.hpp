#pragma once
/// User-level threads: code that may block (future::get, this_thread_yield)
/// without blocking its PE. Threaded entry methods (an entry listed in its
/// class's `threaded_entries()`, see <roam/obj/...> and docs/design/threads.md)
/// run on one; start_thread runs any function on one.
///
/// A thread lives on the PE that started it and never leaves it. While it is
/// blocked the PE runs other messages; a message posted to the PE (a future's
/// value arriving, the yield's own message) resumes it. Stack size: `+ulstack
/// BYTES` (ROAM_ULSTACK), default 256 KiB; overflowing it hits a guard page
/// (SIGSEGV), never the neighbouring memory. A thread still blocked when the
/// program ends is unwound: its blocking call throws roam::detail::thread_unwind
/// (not a std::exception; rethrow it if you catch everything).
#include <exception>
#include <utility>

#include <roam/sched/detail/ult.hpp>
#include <roam/sched/runtime.hpp>

namespace roam {

/// Runs `fn()` on a new user-level thread of the calling PE: at once when
/// called from a message handler (until it blocks or returns), after a message
/// when called from another thread. An exception escaping `fn` is a fatal
/// error reported with the PE. Callable on a PE only.
template <class F>
void start_thread(F fn) {
  detail::ult_spawn([fn = std::move(fn)]() mutable noexcept {
    try {
      fn();
    } catch (const detail::thread_unwind&) {
    } catch (...) {
      detail::report_task_failure(std::current_exception(), "user-level thread");
    }
  });
}

/// True when the caller runs on a user-level thread (a threaded entry method
/// or start_thread's function), where blocking calls are allowed.
bool in_user_thread() noexcept;

/// Lets the PE run the messages queued before this call, then continues (the
/// thread is resumed by a message it posts to its own PE). Throws
/// std::logic_error outside a user-level thread.
void this_thread_yield();

}  // namespace roam
