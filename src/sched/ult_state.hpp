#pragma once
// A user-level thread's control block and its PE's host (ult.cpp), shared
// with the code that moves blocked migratable threads (ult_migration.cpp).
#include <cxxabi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include <roam/sched/detail/ult.hpp>

#include "context.hpp"
#include "sanitizers.hpp"
#include "stack_pool.hpp"

namespace roam::detail {

// Mirrors the Itanium C++ ABI's per-thread exception state (libstdc++ and
// libc++abi agree on it); only copied, never interpreted.
struct eh_globals {
  void* caught = nullptr;
  unsigned int uncaught = 0;
#if defined(__ARM_EABI_UNWINDER__)
  void* propagating = nullptr;
#endif
};

enum class ult_state : unsigned char { created, running, suspended, done };

struct ult_host;

struct ult {
  machine_context ctx;
  ult_stack stack;
  ult_host* host = nullptr;
  ult_body_fn fn = nullptr;
  void* body = nullptr;
  ult_state state = ult_state::created;
  bool unwinding = false;  // the runtime stops: blocking calls throw thread_unwind
  eh_globals eh;
  roam::entry_event* traced = nullptr;  // a threaded entry's event: each slice is observed (ult_observe_current)
  const void* owner = nullptr;          // a migratable thread's holder (ult_set_owner): its slices are its load
  ult* prev = nullptr;  // the host's list of unfinished threads
  ult* next = nullptr;
  // Migratable threads (ult_create_on): the stack is the caller's (an
  // isomalloc slot), `ended` gives it back; `serial` (never 0) names the
  // thread job-wide, so a wake message that finds it gone does nothing.
  ult_ended_fn ended = nullptr;
  std::uint64_t serial = 0;
  void* user = nullptr;            // the creator's word (iso: its migratable_thread)
  std::uint32_t pins = 0;          // blocked where it cannot move (future::get)
  bool wake_posted = false;        // a wake message for it is on its way
  void* heap_route = nullptr;      // tls_heap_route while it runs (saved at each switch: it may be paused)
  future_state_base* futures = nullptr;  // its unfulfilled futures, in its slot (ult_futures)
  std::uint32_t moves = 0;         // arrivals (ult_moves)
#if defined(ROAM_I_ASAN)
  void* fake_stack = nullptr;
#endif
#if defined(ROAM_I_TSAN)
  void* fiber = nullptr;
#endif
};

struct ult_host {
  ult_host(std::uint32_t pe_id, std::size_t stack_bytes)
      : pool(stack_bytes, std::clamp<std::size_t>((std::size_t{32} << 20) / stack_bytes, 8, 1024)),
        pe(pe_id),
        eh_now(reinterpret_cast<eh_globals*>(abi::__cxa_get_globals())) {
#if defined(ROAM_I_TSAN)
    fiber = __tsan_get_current_fiber();
#endif
  }

  machine_context ctx;     // the scheduler's, while a thread runs
  eh_globals eh;           // the scheduler's exception state, while a thread runs
  ult* current = nullptr;  // the running thread; nullptr: the scheduler's stack
  stack_pool pool;
  ult* live = nullptr;  // unfinished threads (created, running or suspended)
  std::size_t live_count = 0;
  std::uint32_t pe;
  eh_globals* eh_now;  // this OS thread's exception state (its address never changes)
  std::unordered_map<std::uint64_t, ult*> movable;  // migratable threads here, by serial
#if defined(ROAM_I_ASAN)
  void* fake_stack = nullptr;
  const void* stack_bottom = nullptr;  // the scheduler's stack, learnt at the first switch
  std::size_t stack_size = 0;
#endif
#if defined(ROAM_I_TSAN)
  void* fiber = nullptr;
#endif
};

/// This OS thread's host (null before its PE started a thread).
ult_host* ult_host_here() noexcept;
/// This PE's host, made on first use; `what` names the caller in an error.
ult_host& ult_host_for(const char* what);
/// Adds `t` to `h`'s unfinished threads / takes it off.
void ult_link(ult_host& h, ult* t) noexcept;
void ult_unlink(ult_host& h, ult* t) noexcept;
/// The message ult_ready_later posts for a migratable thread: resumes the
/// thread with that serial if it is still on this PE (ult_migration.cpp).
void ult_wake_by_serial(std::uint64_t serial) noexcept;

}  // namespace roam::detail
