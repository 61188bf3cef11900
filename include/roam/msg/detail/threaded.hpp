#pragma once
// Threaded entry methods: an entry whose class lists it in
// `threaded_entries()` runs on a user-level thread of the object's PE, so it
// may block (future::get) while the PE runs other messages. The message layer
// starts the thread; the object layer counts threads per object so that an
// object is neither moved nor destroyed under a blocked thread (hooks below).
#include <cstdint>
#include <exception>
#include <utility>

#include <roam/msg/detail/entry_ops.hpp>
#include <roam/sched/detail/ult.hpp>
#include <roam/sched/observe.hpp>

namespace roam::detail {

/// Filled by the object layer.
struct thread_owner_hooks {
  /// The object's count of unfinished threads, or nullptr when its kind
  /// neither migrates nor dies while the program runs (groups, nodegroups).
  std::uint32_t* (*counter)(const delivery_context& ctx, void* obj) noexcept = nullptr;
  /// The object's last thread ended: carry out what was asked meanwhile
  /// (a migration, a destruction). Runs on the thread's stack, at its end.
  void (*idle)(const delivery_context& ctx, void* obj) noexcept = nullptr;
};
inline thread_owner_hooks g_thread_owner;

/// An entry is threaded when T lists it, as `static constexpr auto threaded_entries() { return
/// roam::entry_list<&T::f, &T::g>{}; }` (like exclusive_entries).
template <class T, auto M>
constexpr bool entry_is_threaded() {
  if constexpr (requires { T::threaded_entries(); }) return decltype(T::threaded_entries())::template contains<M>();
  else if constexpr (requires { typename T::threaded_entries; }) return T::threaded_entries::template contains<M>();
  else return false;
}

/// Runs `body()` on a new thread for the entry being delivered to `obj`; an
/// exception escaping it goes to `on_error(exception, ctx)` (after its catch
/// block ended, so the exception can be handed to another PE).
template <class Body, class OnError>
void start_threaded_entry(void* obj, const delivery_context& ctx, Body body, OnError on_error) {
  std::uint32_t* count = g_thread_owner.counter ? g_thread_owner.counter(ctx, obj) : nullptr;
  if (count) ++*count;
  try {
    ult_spawn([body = std::move(body), on_error = std::move(on_error), ctx, obj, count,
               observation = thread_observation::capture()]() mutable noexcept {
      observation.begin();
      std::exception_ptr error;
      bool unwound = false;
      try {
        body();
      } catch (const thread_unwind&) {
        unwound = true;  // the program ends: say nothing
      } catch (...) {
        error = std::current_exception();
      }
      if (error) on_error(std::move(error), ctx);
      observation.end();
      if (count && --*count == 0 && !unwound && g_thread_owner.idle) g_thread_owner.idle(ctx, obj);
    });
  } catch (...) {
    if (count) --*count;
    throw;
  }
}

}  // namespace roam::detail
