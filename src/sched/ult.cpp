// User-level threads (include/roam/sched/detail/ult.hpp).
//
// Each PE (OS thread) has one host: the scheduler's saved context while a
// thread runs, the stack pool, and the list of unfinished threads. Switches
// go only between the scheduler and one thread, never thread to thread: a
// thread that wakes another posts a message, so who runs next is always the
// scheduler's choice and a thread's life is a sequence of message handlers.
//
// A thread's control block (`ult`) and its body closure sit at the top of its
// own stack: creating a thread allocates nothing once the pool has a stack.
//
// Per switch, besides registers (context.hpp):
// - the C++ exception state (__cxa_eh_globals: caught exceptions, uncaught
//   count) is per context, so a thread may block inside a catch block while
//   others throw and catch;
// - sanitizers are told: ASan which stack is live (start/finish_switch_fiber;
//   a finished thread's fake stack is dropped), TSan which fiber runs.
#include <roam/sched/detail/ult.hpp>

#include <cstddef>
#include <cstdio>
#include <new>
#include <string>
#include <type_traits>

#include <roam/sched/detail/heap_route.hpp>
#include <roam/sched/detail/post.hpp>
#include <roam/sched/observe.hpp>

#include "ult_internal.hpp"
#include "ult_state.hpp"

namespace roam::detail {

constinit thread_local void* tls_heap_route = nullptr;

namespace {

constinit thread_local ult_host* tls_host = nullptr;

}  // namespace

ult_host* ult_host_here() noexcept { return tls_host; }

ult_host& ult_host_for(const char* what) {
  if (!tls_host) {
    heap_route_pause pause;  // a migratable thread may start the PE's first thread
    pe_state& pe = this_pe(what);
    tls_host = new ult_host(pe.id(), pe.runtime().opts.ul_stack);
  }
  return *tls_host;
}

void ult_link(ult_host& h, ult* t) noexcept {
  t->host = &h;
  t->prev = nullptr;
  t->next = h.live;
  if (h.live) h.live->prev = t;
  h.live = t;
  ++h.live_count;
  if (t->serial) {
    heap_route_pause pause;  // the PE's table, not the (starting) thread's
    h.movable[t->serial] = t;
  }
}

void ult_unlink(ult_host& h, ult* t) noexcept {
  if (t->prev) t->prev->next = t->next;
  else h.live = t->next;
  if (t->next) t->next->prev = t->prev;
  t->prev = t->next = nullptr;
  --h.live_count;
  if (t->serial) h.movable.erase(t->serial);
}

namespace {

void swap_eh(eh_globals* now, eh_globals& save, const eh_globals& load) noexcept {
  save = *now;
  *now = load;
}

void finish(ult_host& h, ult* t) noexcept {
  ult_unlink(h, t);
#if defined(ROAM_I_TSAN)
  __tsan_destroy_fiber(t->fiber);
#endif
  if (t->ended) {  // a migratable thread: its memory is its slot's, given back by its owner
    t->ended(t);
    return;
  }
  ult_stack s = t->stack;  // t lives on that stack
  t->~ult();
  h.pool.give(s);
}

void observe_slice(roam::entry_event& e, bool begin) noexcept {
  if (begin) {
    e.ticks = clock_ticks();
    dispatch_entry_begin(e);
  } else {
    dispatch_entry_end(e, clock_ticks());
  }
}

// Scheduler -> thread. Returns when the thread blocks or ends.
void switch_into(ult_host& h, ult* t) noexcept {
  h.current = t;
  t->state = ult_state::running;
  swap_eh(h.eh_now, h.eh, t->eh);
#if defined(ROAM_I_ASAN)
  __sanitizer_start_switch_fiber(&h.fake_stack, t->stack.lo, t->stack.size);
#endif
#if defined(ROAM_I_TSAN)
  __tsan_switch_to_fiber(t->fiber, 0);
#endif
  if (t->traced && observed()) [[unlikely]]
    observe_slice(*t->traced, true);
  static_assert(std::is_trivially_destructible_v<entry_event>);
  // A migratable thread's slice is its owner's run (ult_set_owner). The
  // event is made only when observed: zeroing one costs 8 % of a switch.
  alignas(entry_event) std::byte owned_storage[sizeof(entry_event)];
  entry_event* owned = nullptr;
  if (!t->traced && t->owner && observed()) [[unlikely]] {
    owned = ::new (owned_storage) entry_event{};
    owned->obj = t->owner;
    owned->pe = t->host->pe;
    owned->how = run_kind::thread;
    observe_slice(*owned, true);
  }
  // The thread's allocations go where it left them going (its slot heap, or
  // paused inside a runtime call that blocked); the scheduler's never.
  tls_heap_route = t->heap_route;
  context_switch(h.ctx, t->ctx, t);
  t->heap_route = tls_heap_route;
  tls_heap_route = nullptr;
#if defined(ROAM_I_ASAN)
  __sanitizer_finish_switch_fiber(h.fake_stack, nullptr, nullptr);
#endif
  if (t->traced && observed()) [[unlikely]]
    observe_slice(*t->traced, false);
  else if (owned) [[unlikely]]
    observe_slice(*owned, false);
  h.current = nullptr;
  if (t->state == ult_state::done) finish(h, t);
}

// Thread -> scheduler. Returns when the thread is resumed (never, if `ended`).
void switch_out(ult* t, bool ended) noexcept {
  ult_host& h = *t->host;
  swap_eh(h.eh_now, t->eh, h.eh);
#if defined(ROAM_I_ASAN)
  __sanitizer_start_switch_fiber(ended ? nullptr : &t->fake_stack, h.stack_bottom, h.stack_size);
#else
  (void)ended;
#endif
#if defined(ROAM_I_TSAN)
  __tsan_switch_to_fiber(h.fiber, 0);
#endif
  context_switch(t->ctx, h.ctx, nullptr);
#if defined(ROAM_I_ASAN)
  // A migratable thread may resume on another PE: the host to learn the
  // scheduler's stack for is the one it runs on now, not the one it left.
  ult_host& now = *t->host;
  __sanitizer_finish_switch_fiber(t->fake_stack, &now.stack_bottom, &now.stack_size);
#endif
}

// Where every thread starts (context_make's entry).
void ult_main(void* transfer) noexcept {
  ult* t = static_cast<ult*>(transfer);
#if defined(ROAM_I_ASAN)
  __sanitizer_finish_switch_fiber(nullptr, &t->host->stack_bottom, &t->host->stack_size);
#endif
  t->fn(t->body, !t->unwinding);
  t->state = ult_state::done;
  switch_out(t, true);
  __builtin_unreachable();
}

}  // namespace

void ult_observe_current(entry_event* e) noexcept {
  if (tls_host && tls_host->current) tls_host->current->traced = e;
}

void ult_set_owner(ult* t, const void* owner) noexcept { t->owner = owner; }

namespace {

ult* make_on(ult_host& h, ult_stack s, std::size_t bytes, std::size_t align, void*& body, ult_body_fn fn) {
  auto down = [](std::byte* p, std::size_t a) {
    return reinterpret_cast<std::byte*>(reinterpret_cast<std::uintptr_t>(p) & ~(std::uintptr_t{a} - 1));
  };
  std::byte* top = down(s.lo + s.size - sizeof(ult), alignof(ult));
  std::byte* b = down(top - bytes, std::max<std::size_t>(align, 16));
  ult* t = ::new (top) ult;
  t->stack = s;
  t->host = &h;
  t->fn = fn;
  t->body = b;
  context_make(t->ctx, s.lo, static_cast<std::size_t>(b - s.lo), &ult_main);
#if defined(ROAM_I_TSAN)
  t->fiber = __tsan_create_fiber(0);
#endif
  body = b;
  return t;
}

}  // namespace

ult* ult_create(std::size_t bytes, std::size_t align, void*& body, ult_body_fn fn) {
  ult_host& h = ult_host_for("starting a user-level thread");
  ult* t = make_on(h, h.pool.take(), bytes, align, body, fn);
  ult_link(h, t);
  return t;
}

ult* ult_create_on(const ult_memory& memory, std::size_t bytes, std::size_t align, void*& body, ult_body_fn fn) {
  ult_host& h = ult_host_for("starting a migratable user-level thread");
  memory_unpoison(memory.stack_lo, memory.stack_size);  // a slot used before may hold old frames' poison
  ult* t = make_on(h, ult_stack{memory.stack_lo, memory.stack_size}, bytes, align, body, fn);
  t->ended = memory.ended;
  t->serial = memory.serial;
  t->user = memory.user;
  t->heap_route = memory.heap_route;
  ult_link(h, t);
  return t;
}

void ult_discard(ult* t) noexcept {
  t->state = ult_state::done;
  finish(*t->host, t);
}

void ult_start(ult* t) noexcept { ult_ready(t); }

ult* ult_current() noexcept {
  ult_host* h = tls_host;
  return h ? h->current : nullptr;
}

// Here, beside tls_host, rather than with the rest of the migration code: a
// migratable thread asks for it on every block, and a call to ult_current
// from another file was measurable in its switch.
void* ult_current_user() noexcept {
  ult_host* h = tls_host;
  ult* t = h ? h->current : nullptr;
  return t && t->serial ? t->user : nullptr;
}

void ult_suspend() {
  ult* t = ult_current();
  if (!t) {
    report_fatal("roam: a user-level thread blocked outside a user-level thread (runtime bug)");
    return;
  }
  if (t->unwinding) throw thread_unwind{};
  t->state = ult_state::suspended;
  switch_out(t, false);
  if (t->unwinding) throw thread_unwind{};
}

void ult_ready(ult* t) noexcept {
  ult_host* h = tls_host;
  if (h != t->host) {
    report_fatal("a user-level thread of pe " + std::to_string(t->host->pe) +
                 " was resumed on another PE (threads never leave their PE; a migratable thread's owner must be "
                 "packed when it moves: pup_on_migration)");
    return;
  }
  if (t->state != ult_state::suspended && t->state != ult_state::created) {
    report_fatal("a user-level thread was resumed while it was not blocked (woken twice?)");
    return;
  }
  if (h->current == nullptr) {
    switch_into(*h, t);
    return;
  }
  ult_ready_later(t);
}

void ult_ready_later(ult* t) noexcept {
  // The scheduler switches to it when this message runs (counted, so
  // quiescence is not declared while a thread is runnable). A migratable
  // thread may leave before it runs: the message names it by serial and does
  // nothing if it is gone (ult_depart hands the wake to where it went).
  if (t->serial == 0) {
    post_closure(t->host->pe, [t]() noexcept { ult_ready(t); });
    return;
  }
  t->wake_posted = true;
  post_closure(t->host->pe, [serial = t->serial]() noexcept { ult_wake_by_serial(serial); });
}

bool ult_unwind(ult* t) noexcept {
  ult_host* h = tls_host;
  if (h == nullptr || t->host != h || h->current != nullptr) return false;
  if (t->state != ult_state::suspended && t->state != ult_state::created) return false;
  t->unwinding = true;
  switch_into(*h, t);
  return true;
}

ult_stats ult_statistics() noexcept {
  ult_stats s;
  if (ult_host* h = tls_host) {
    s.live = h->live_count;
    s.stacks_mapped = h->pool.mapped();
    s.stacks_mapped_total = h->pool.mapped_total();
    s.stacks_cached = h->pool.cached();
    s.stack_size = h->pool.stack_size();
  } else if (pe_state* pe = tls_pe) {
    s.stack_size = stack_pool(pe->runtime().opts.ul_stack, 0).stack_size();
  }
  return s;
}

void* ult_exchange_host(void* host) noexcept { return std::exchange(tls_host, static_cast<ult_host*>(host)); }

void ult_pe_shutdown() noexcept {
  ult_host* h = tls_host;
  if (!h) return;
  // Unwind what is still blocked (its blocking call throws thread_unwind), so
  // destructors run and nothing the frames own leaks. A thread that starts
  // another while unwinding joins the list and is unwound in turn.
  while (ult* t = h->live) {
    t->unwinding = true;
    if (t->state == ult_state::running) break;  // cannot happen: we are on the scheduler's stack
    switch_into(*h, t);
  }
  delete h;
  tls_host = nullptr;
}

}  // namespace roam::detail
