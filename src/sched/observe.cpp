// The observer list (include/roam/sched/observe.hpp): fixed slots, so the
// PEs read it without a lock while observers come and go.
#include <mutex>

#include <roam/sched/observe.hpp>
#include <roam/sched/detail/pe_state.hpp>
#include <roam/sched/detail/ult.hpp>
#include <roam/sched/task.hpp>

namespace roam {

namespace {
std::mutex g_subscribe_mutex;  // serialises add/remove; readers never take it
}

namespace {
void update_needs() noexcept {
  std::uint32_t needs = 0;
  detail::lock_subscriptions();
  detail::g_observers.for_each([&](runtime_observer& o) { needs |= o.needs(); });
  detail::g_observer_needs.store(needs, std::memory_order_relaxed);
  detail::unlock_subscriptions();
}
}  // namespace

bool add_observer(runtime_observer& o) noexcept {
  // Its needs count before it can receive a first event (update_needs then recomputes the union).
  detail::g_observer_needs.fetch_or(o.needs(), std::memory_order_relaxed);
  const bool added = detail::g_observers.add(o);
  update_needs();
  return added;
}
void remove_observer(runtime_observer& o) noexcept {
  detail::g_observers.remove(o);
  update_needs();
}


namespace detail {

void lock_subscriptions() noexcept { g_subscribe_mutex.lock(); }
void unlock_subscriptions() noexcept { g_subscribe_mutex.unlock(); }

void resume_observed_unowned(std::coroutine_handle<> h) noexcept {
  entry_event e;
  e.pe = tls_pe ? tls_pe->id() : 0;
  e.how = run_kind::task_resume;
  e.ticks = clock_ticks();
  dispatch_entry_begin(e);
  h.resume();
  dispatch_entry_end(e, clock_ticks());
}

void report_pe_stopped() noexcept {
  if (!observed() || !tls_pe) return;
  const std::uint32_t pe = tls_pe->id();
  const std::uint64_t t = clock_ticks();
  for_each_observer([&](runtime_observer& o) { o.pe_stopped(pe, t); });
}

void report_phase_observed(phase_kind kind, std::uint32_t collection, std::uint64_t number) noexcept {
  phase_event e;
  e.pe = tls_pe ? tls_pe->id() : 0;
  e.kind = kind;
  e.collection = collection;
  e.number = number;
  e.ticks = clock_ticks();
  for_each_observer([&](runtime_observer& o) { o.phase(e); });
}

void thread_observation::begin() noexcept {
  if (!on) return;
  ult_observe_current(&event);  // later slices: switch-in and blocking (src/sched/ult.cpp)
  event.ticks = clock_ticks();
  dispatch_entry_begin(event);
}

void thread_observation::end() noexcept {
  if (!on) return;
  ult_observe_current(nullptr);
  dispatch_entry_end(event, clock_ticks());
}

}  // namespace detail
}  // namespace roam
