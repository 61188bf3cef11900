#pragma once
/// \file
/// Timers for tasks: `co_await roam::sleep_for(5ms);` suspends the task and
/// resumes it on the same PE once the time has passed (no sooner; later when
/// the PE is busy with a long entry). The PE runs other work meanwhile.
///
/// - A task of a chare or array element holds its object in place while it
///   sleeps (no migration, no destruction until it resumes), as it does
///   while awaiting a future; docs/design/flow.md.
/// - A sleeping task is not a message in flight: quiescence may be detected
///   while it sleeps.
/// - Destroying the task (its object ended, or the program) cancels the wake-up.
#include <chrono>
#include <coroutine>
#include <memory>
#include <stdexcept>
#include <utility>

#include <roam/sched/detail/pe_state.hpp>
#include <roam/sched/task.hpp>

namespace roam {

namespace detail {
/// Shared by the awaiting frame and the PE's timer, whichever goes first.
struct timer_wait {
  std::coroutine_handle<> waiter;  ///< null once resumed or cancelled
  task_roots* held = nullptr;
};
}  // namespace detail

/// Awaitable: resumes the awaiting task at or after `when`.
class sleep_op {
 public:
  using clock = std::chrono::steady_clock;
  explicit sleep_op(clock::time_point when) noexcept : when_(when) {}
  sleep_op(sleep_op&& o) noexcept : when_(o.when_), wait_(std::move(o.wait_)) {}
  sleep_op& operator=(sleep_op&&) = delete;
  ~sleep_op() {
    if (wait_ && wait_->waiter) {  // destroyed while asleep: nobody is to be woken
      wait_->waiter = {};
      detail::drop_hold(std::exchange(wait_->held, nullptr));
    }
  }

  bool await_ready() const {
    if (!detail::tls_pe) throw std::logic_error("roam::sleep_for awaited outside a PE");
    return detail::timer_now() >= when_;
  }
  void await_suspend(std::coroutine_handle<> h) {
    wait_ = std::make_shared<detail::timer_wait>();
    wait_->waiter = h;
    wait_->held = detail::hold_current_owner();
    detail::tls_pe->add_timer(when_, [w = wait_]() {
      auto due = std::exchange(w->waiter, {});
      if (due) detail::resume_held(std::exchange(w->held, nullptr), due);
    });
  }
  void await_resume() const noexcept {}

 private:
  clock::time_point when_;
  std::shared_ptr<detail::timer_wait> wait_;
};

/// Resumes the awaiting task after `d` (see the file comment).
template <class Rep, class Period>
sleep_op sleep_for(std::chrono::duration<Rep, Period> d) {
  return sleep_op(detail::timer_now() + std::chrono::duration_cast<sleep_op::clock::duration>(d));
}
/// Resumes the awaiting task at `t` (steady clock).
inline sleep_op sleep_until(sleep_op::clock::time_point t) { return sleep_op(t); }

}  // namespace roam
