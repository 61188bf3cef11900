// The public face of user-level threads (include/roam/sched/thread.hpp).
#include <roam/sched/thread.hpp>

#include <stdexcept>

#include <roam/sched/detail/post.hpp>

namespace roam {

bool in_user_thread() noexcept { return detail::ult_current() != nullptr; }

void this_thread_yield() {
  detail::ult* self = detail::ult_current();
  if (!self) throw std::logic_error("roam::this_thread_yield() called outside a user-level thread (nothing to yield to)");
  // Behind what is queued now: a message like any other, so the yield is fair
  // and counted for quiescence detection.
  detail::ult_ready_later(self);
  detail::ult_suspend();
}

}  // namespace roam
