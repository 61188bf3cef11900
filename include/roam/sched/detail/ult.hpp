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

struct future_state_base;

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

/// Makes a blocked thread runnable through a message to its PE (from a
/// thread's own stack, or to resume it later): for a migratable thread the
/// message finds it by serial and does nothing if it left meanwhile.
void ult_ready_later(ult* t) noexcept;

// ---- migratable threads (docs/design/isomalloc.md) ---------------------------
// A migratable thread runs on memory its creator gives it (an isomalloc slot,
// the same addresses in every process). Blocked, it can leave its PE: the
// creator copies its live stack (and whatever else it keeps in the slot) to
// another PE or process, or into a checkpoint, where the thread joins that
// PE's threads at the same addresses and is resumed.

/// Called when a migratable thread ends (on the scheduler's stack, its
/// control block still readable): gives its memory back.
using ult_ended_fn = void (*)(ult* t) noexcept;

/// The memory and identity of a migratable thread.
struct ult_memory {
  std::byte* stack_lo = nullptr;  ///< its stack is [stack_lo, stack_lo + stack_size)
  std::size_t stack_size = 0;
  std::uint64_t serial = 0;  ///< unique job-wide while it lives, never 0
  ult_ended_fn ended = nullptr;
  void* user = nullptr;  ///< the creator's word (ult_user)
  /// tls_heap_route while it runs (heap_route.hpp): null, or what the
  /// replaced malloc serves its allocations from.
  void* heap_route = nullptr;
};
/// ult_create on the caller's memory.
ult* ult_create_on(const ult_memory& memory, std::size_t bytes, std::size_t align, void*& body, ult_body_fn fn);
/// The creator's word of a migratable thread (it may change it, e.g. when
/// the object holding the thread was rebuilt at another address).
void*& ult_user(ult* t) noexcept;
/// ult_user of the migratable thread (serial != 0) the caller runs on, or
/// nullptr (one call: a migratable thread's switch counts it).
void* ult_current_user() noexcept;
/// The lowest address of `t`'s stack in use: from there to the stack's top
/// is what a move copies (t blocked).
std::uintptr_t ult_stack_in_use(const ult* t) noexcept;
/// The top of t's stack (one past its last byte).
std::uintptr_t ult_stack_top(const ult* t) noexcept;
/// Why `t` cannot leave its PE now, or nullptr if it can: it is running, or
/// pinned (blocked in future::get, whose value comes back to this PE), or
/// blocked inside a catch block (the exception object is this process's).
const char* ult_why_not_movable(const ult* t) noexcept;
/// Whether a wake message for `t` is on its way (ult_ready_later).
bool ult_wake_pending(const ult* t) noexcept;
/// Unwinds a blocked (or not yet started) thread of the calling PE now: its
/// blocking call throws thread_unwind and it ends. False, doing nothing,
/// when called from a user-level thread (only the scheduler's stack may
/// switch) or for a thread of another PE.
bool ult_unwind(ult* t) noexcept;
/// Pins the calling thread to its PE while it waits for something that
/// will come to this PE (future::get) / unpins it.
void ult_pin_current(bool pin) noexcept;
/// The unfulfilled futures a migratable thread made (their states are in its
/// slot heap, msg/detail/future_follow.hpp): the head of their list. The
/// scheduler only keeps it.
future_state_base*& ult_futures(ult* t) noexcept;
/// How many times migratable thread `t` arrived somewhere (its moves).
std::uint32_t& ult_moves(ult* t) noexcept;
/// tls_heap_route while `t` runs (null: its allocations are the process's).
void* ult_heap_route(const ult* t) noexcept;
/// The job-wide serial of a migratable thread (0: an ordinary thread).
std::uint64_t ult_serial(const ult* t) noexcept;
/// The migratable thread with this serial on the calling PE, or null (it is
/// not here: it left, ended, or never was).
ult* ult_here_by_serial(std::uint64_t serial) noexcept;
/// `t` (blocked) leaves this PE: no longer one of its threads, and a wake
/// message already posted for it will find it gone. Returns whether such a
/// message was posted (the caller makes one where it goes). Its memory is the
/// caller's to copy and close.
bool ult_depart(ult* t) noexcept;
/// A thread whose memory (control block at `t`, stack and all) was copied
/// here, at the addresses it had, joins this PE, blocked; `wake` posts a
/// message that resumes it.
void ult_arrive(ult* t, bool wake);
/// Tells AddressSanitizer (in builds with it) that [p, p + bytes) holds no
/// poisoned bytes: a stack's old frames left poison that a copy of the
/// memory, in or out, must not trip over.
void memory_unpoison(void* p, std::size_t bytes) noexcept;

/// Observers (roam/sched/observe.hpp) see each slice of the calling thread
/// as `*e` (entry_begin when it is switched in, entry_end when it blocks);
/// null stops it. The caller reports the slice it is in itself.
void ult_observe_current(entry_event* e) noexcept;
/// The object a migratable thread belongs to (its address on this PE; set
/// again after each move): a slice of the thread without an entry of its
/// own is observed as a run of `owner` (run_kind::thread), so that load
/// balancing counts the thread's computing as its owner's load even when
/// another object's entry or a wake message resumed it.
void ult_set_owner(ult* t, const void* owner) noexcept;

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
