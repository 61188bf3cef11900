#pragma once
// Posting work to a PE: the one place where a message enters a queue, so the
// created-message count (which quiescence detection trusts) is kept here.
#include <new>
#include <type_traits>
#include <utility>

#include <roam/sched/detail/runtime_state.hpp>

namespace roam::detail {

/// Allocates item memory from the calling PE's pool (heap off-PE).
inline void* allocate_item(std::size_t bytes) {
  if (pe_state* me = tls_pe) return me->pool().allocate(bytes);
  return message_pool::allocate_foreign(bytes);
}

/// Returns item memory from any PE's pool.
inline void free_item(void* p) noexcept {
  if (pe_state* me = tls_pe) me->pool().deallocate(p);
  else message_pool::deallocate_foreign(p);
}

/// Counters for items created off-PE (there are none in normal programs).
inline std::atomic<std::uint64_t> g_foreign_created{0};

/// Hands `w` to PE `dst` of this process or, through the transport, of another.
inline void route(runtime_state& rt, std::uint32_t dst, work_item* w) noexcept {
  if (rt.is_local(dst)) [[likely]] rt.pe(dst).enqueue_remote(w);
  else g_remote.send(rt, dst, w);
}

/// Queues `w` on PE `dst` and counts it as created by the caller.
inline void post(std::uint32_t dst, work_item* w) noexcept {
  if (pe_state* me = tls_pe) {
    me->count_created();
    if (me->id() == dst) {
      me->enqueue_local(w);
      return;
    }
    me->count_sent_away();
    route(me->runtime(), dst, w);
    return;
  }
  g_foreign_created.fetch_add(1, std::memory_order_relaxed);
  route(*g_runtime.load(std::memory_order_acquire), dst, w);
}

template <class F>
struct closure_item : work_item {
  explicit closure_item(F&& f) : fn(std::move(f)) {}
  F fn;
};

template <class F>
work_item* make_closure(F fn, std::int32_t priority) {
  using item = closure_item<F>;
  auto* c = ::new (allocate_item(sizeof(item))) item(std::move(fn));
  c->priority = priority;
  c->flags = work_closure;
  c->run = [](work_item* w, work_action a) noexcept {
    auto* self = static_cast<item*>(w);
    if (a == work_action::run) self->fn();
    self->~item();
    free_item(self);
  };
  return c;
}

/// Runs `fn()` on PE `dst` (of this process: a closure cannot cross
/// processes) as a message of priority `priority`. `fn` must not throw.
template <class F>
void post_closure(std::uint32_t dst, F fn, std::int32_t priority = 0) {
  post(dst, make_closure(std::move(fn), priority));
}

}  // namespace roam::detail
