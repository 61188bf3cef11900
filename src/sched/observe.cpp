// The observer list (include/roam/sched/observe.hpp): fixed slots, so the
// PEs read it without a lock while observers come and go.
#include <chrono>
#include <mutex>

#include <roam/sched/observe.hpp>
#include <roam/sched/detail/pe_state.hpp>
#include <roam/sched/detail/ult.hpp>
#include <roam/sched/task.hpp>

namespace roam {

namespace {
std::mutex g_subscribe_mutex;  // serialises add/remove; readers never take it
}

bool add_observer(runtime_observer& o) noexcept {
  std::lock_guard lock(g_subscribe_mutex);
  auto& list = detail::g_observers;
  for (auto& s : list.slots)
    if (s.load(std::memory_order_relaxed) == &o) return false;
  for (auto& s : list.slots) {
    if (s.load(std::memory_order_relaxed)) continue;
    s.store(&o, std::memory_order_release);
    list.active.fetch_add(1, std::memory_order_release);
    return true;
  }
  return false;
}

void remove_observer(runtime_observer& o) noexcept {
  std::lock_guard lock(g_subscribe_mutex);
  auto& list = detail::g_observers;
  for (auto& s : list.slots)
    if (s.load(std::memory_order_relaxed) == &o) {
      s.store(nullptr, std::memory_order_release);
      list.active.fetch_sub(1, std::memory_order_release);
      return;
    }
}

std::uint64_t observer_clock_ns() noexcept {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

namespace detail {

void resume_observed_unowned(std::coroutine_handle<> h) noexcept {
  entry_event e;
  e.pe = tls_pe ? tls_pe->id() : 0;
  e.how = run_kind::task_resume;
  e.time_ns = observer_clock_ns();
  for_each_observer([&](runtime_observer& o) { o.entry_begin(e); });
  h.resume();
  e.time_ns = observer_clock_ns();
  for_each_observer([&](runtime_observer& o) { o.entry_end(e); });
}

void thread_observation::begin() noexcept {
  if (!on) return;
  ult_observe_current(&event);  // later slices: switch-in and blocking (src/sched/ult.cpp)
  event.time_ns = observer_clock_ns();
  for_each_observer([&](runtime_observer& o) { o.entry_begin(event); });
}

void thread_observation::end() noexcept {
  if (!on) return;
  ult_observe_current(nullptr);
  event.time_ns = observer_clock_ns();
  for_each_observer([&](runtime_observer& o) { o.entry_end(event); });
}

}  // namespace detail
}  // namespace roam
