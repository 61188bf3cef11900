#pragma once
// User-level threads (ULTs), the scheduler's part: a thread is a stack and a
// saved context on one PE. Only that PE's scheduler creates, runs and resumes
// it; a thread that blocks switches back to the scheduler, and is resumed by
// a message posted to its PE (or by the handler of one, such as a future's
// fulfilment), so the program stays message-driven and quiescence detection
// sees every wake-up. Implementation and the switch protocol: src/sched/ult.cpp.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace roam {
struct entry_event;
}

namespace roam::detail {

struct ult;

/// Thrown out of a blocking call (future::get, this_thread_yield) of a thread
/// still suspended when the runtime stops: the PE unwinds such threads so
/// their frames' destructors run. Deliberately not a std::exception; code
/// that catches it with `catch (...)` must rethrow it.
struct thread_unwind {};

/// Runs (`run` true) and then destroys the body closure at `body`, or only
/// destroys it (a thread unwound before it started). Must not throw.
using ult_body_fn = void (*)(void* body, bool run) noexcept;

/// Makes a thread on the calling PE, not yet started, with `bytes` (aligned
/// to `align`) reserved for its body closure at the top of its stack; `body`
/// receives that address. The caller constructs the closure there, then
/// calls ult_start (or ult_discard if the construction threw).
ult* ult_create(std::size_t bytes, std::size_t align, void*& body, ult_body_fn fn);
/// Gives back a thread made by ult_create whose body was never constructed.
void ult_discard(ult* t) noexcept;
/// Starts a created thread: at once when called from the scheduler's own
/// stack (the thread runs until it blocks or ends), else through a message.
void ult_start(ult* t) noexcept;
/// The thread the caller runs on, or nullptr on the scheduler's own stack.
ult* ult_current() noexcept;
/// Blocks the calling thread (ult_current() != nullptr) until ult_ready(it).
/// Throws thread_unwind when the runtime unwinds it at shutdown.
void ult_suspend();
/// Makes a blocked thread run again; on its own PE only. From the scheduler's
/// stack the thread runs now, from another thread it runs after a message.
/// Resuming a thread that is not blocked is a fatal error.
void ult_ready(ult* t) noexcept;

/// Observers (roam/sched/observe.hpp) see each slice of the calling thread
/// as `*e` (entry_begin when it is switched in, entry_end when it blocks);
/// null stops it. The caller reports the slice it is in itself.
void ult_observe_current(entry_event* e) noexcept;

/// What the calling PE's threads use, for tests and benchmarks.
struct ult_stats {
  std::size_t live = 0;           ///< threads created and not finished
  std::size_t stacks_mapped = 0;  ///< stacks mapped now (in use or kept for reuse)
  std::size_t stacks_mapped_total = 0;  ///< stacks ever mapped on this PE in this run
  std::size_t stacks_cached = 0;  ///< stacks kept for reuse
  std::size_t stack_size = 0;     ///< usable bytes per stack
};
ult_stats ult_statistics() noexcept;

/// Closures larger than this live on the heap instead of the thread's stack.
inline constexpr std::size_t ult_inline_body_max = 4096;

/// Makes and starts a thread running `f()` on the calling PE. `f` handles
/// its own exceptions (it is called as noexcept).
template <class F>
void ult_spawn(F f) {
  static_assert(std::is_nothrow_invocable_v<F&>, "roam: a thread body must be noexcept (it catches its own errors)");
  if constexpr (sizeof(F) > ult_inline_body_max) {
    ult_spawn([p = std::make_unique<F>(std::move(f))]() noexcept { (*p)(); });
  } else {
    void* body = nullptr;
    ult* t = ult_create(sizeof(F), alignof(F), body, [](void* b, bool run) noexcept {
      F* fn = std::launder(static_cast<F*>(b));
      if (run) (*fn)();
      fn->~F();
    });
    try {
      ::new (body) F(std::move(f));
    } catch (...) {
      ult_discard(t);
      throw;
    }
    ult_start(t);
  }
}

}  // namespace roam::detail
