// Migratable user-level threads, the scheduler's part (detail/ult.hpp):
// a blocked thread leaves its PE's threads and joins another PE's, its
// memory copied meanwhile by its creator (the iso layer) to the same
// addresses. Nothing here copies memory: a thread is its control block at
// the top of its stack, and that stack is the creator's.
#include <string>

#include <roam/sched/detail/pe_state.hpp>
#include <roam/sched/detail/post.hpp>

#include "ult_state.hpp"

#if defined(ROAM_ULT_UCONTEXT) && defined(__x86_64__)
#include <sys/ucontext.h>
#endif

namespace roam::detail {

#if defined(ROAM_I_TSAN)
extern "C" void __tsan_func_entry(void* call_pc);
namespace {
constexpr int tsan_return_padding = 4096;  // deeper blocked frames than this are not supported under TSan
}  // namespace
#endif

void*& ult_user(ult* t) noexcept { return t->user; }

std::uintptr_t ult_stack_in_use(const ult* t) noexcept {
#if !defined(ROAM_ULT_UCONTEXT)
  return reinterpret_cast<std::uintptr_t>(t->ctx.sp);
#elif defined(__x86_64__)
  // swapcontext saved the stack pointer among the registers; a thread not
  // started yet has none: its whole stack is what it was made with.
  if (t->state == ult_state::created) return reinterpret_cast<std::uintptr_t>(t->body);
  return static_cast<std::uintptr_t>(t->ctx.uc.uc_mcontext.gregs[REG_RSP]);
#else
  return reinterpret_cast<std::uintptr_t>(t->stack.lo);  // not known: all of it
#endif
}

std::uintptr_t ult_stack_top(const ult* t) noexcept {
  return reinterpret_cast<std::uintptr_t>(t->stack.lo) + t->stack.size;
}

const char* ult_why_not_movable(const ult* t) noexcept {
  if (t->serial == 0) return "it is not a migratable thread";
  switch (t->state) {
    case ult_state::running:
      return "it is running (a thread moves only while it is blocked)";
    case ult_state::done:
      return "it has ended";
    case ult_state::created:
    case ult_state::suspended:
      break;
  }
  if (t->unwinding) return "it is being unwound (the program ends)";
  if (t->pins)
    return "it waits in future::get on a future it did not make (one made outside the thread, on this PE: its value "
           "comes back here; the futures a thread makes itself follow it)";
  if (t->eh.caught || t->eh.uncaught)
    return "it is blocked inside a catch block (the exception object belongs to this process)";
  return nullptr;
}

bool ult_wake_pending(const ult* t) noexcept { return t->wake_posted; }

void ult_pin_current(bool pin) noexcept {
  if (ult* t = ult_current()) {
    if (pin) ++t->pins;
    else if (t->pins) --t->pins;
  }
}

bool ult_depart(ult* t) noexcept {
  ult_host* h = ult_host_here();
  if (h == nullptr || t->host != h) {
    report_fatal("roam: a migratable thread was packed to leave a PE other than its own (runtime bug)");
    return false;
  }
  ult_unlink(*h, t);
#if defined(ROAM_I_TSAN)
  __tsan_destroy_fiber(t->fiber);
  t->fiber = nullptr;
#endif
  t->host = nullptr;
  return std::exchange(t->wake_posted, false);
}

void ult_arrive(ult* t, bool wake) {
  ult_host& h = ult_host_for("receiving a migratable user-level thread");
  t->traced = nullptr;
  t->wake_posted = false;
#if defined(ROAM_I_ASAN)
  t->fake_stack = nullptr;
#endif
#if defined(ROAM_I_TSAN)
  // ThreadSanitizer keeps a shadow call stack per fiber, and the thread's
  // frames return through calls its new fiber never saw: padding keeps
  // those returns from running below the shadow stack's start.
  t->fiber = __tsan_create_fiber(0);
  void* scheduler_fiber = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(t->fiber, 1);  // 1: no synchronization implied
  for (int i = 0; i < tsan_return_padding; ++i) __tsan_func_entry(nullptr);
  __tsan_switch_to_fiber(scheduler_fiber, 1);
#endif
  ult_link(h, t);
  if (wake) ult_ready_later(t);
}

future_state_base*& ult_futures(ult* t) noexcept { return t->futures; }

std::uint32_t& ult_moves(ult* t) noexcept { return t->moves; }

void* ult_heap_route(const ult* t) noexcept { return t->heap_route; }

std::uint64_t ult_serial(const ult* t) noexcept { return t->serial; }

ult* ult_here_by_serial(std::uint64_t serial) noexcept {
  ult_host* h = ult_host_here();
  if (h == nullptr) return nullptr;
  auto it = h->movable.find(serial);
  return it == h->movable.end() ? nullptr : it->second;
}

void ult_wake_by_serial(std::uint64_t serial) noexcept {
  ult_host* h = ult_host_here();
  if (h == nullptr) return;
  auto it = h->movable.find(serial);
  if (it == h->movable.end()) return;  // it left this PE before the message ran (its new PE wakes it)
  ult* t = it->second;
  if (!std::exchange(t->wake_posted, false)) return;  // woken already (a move carried the wake)
  ult_ready(t);
}

void memory_unpoison(void* p, std::size_t bytes) noexcept {
#if defined(ROAM_I_ASAN)
  __asan_unpoison_memory_region(p, bytes);
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace roam::detail
