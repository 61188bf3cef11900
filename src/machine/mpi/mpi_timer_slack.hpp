#pragma once
// Precise short sleeps for wait()'s backoff. Linux rounds a thread's timed
// sleeps up by its timer slack (50 us by default), so an "8 us" backoff sleep
// really lasts ~60 us: longer than the spin phase, and then two nodes
// ping-ponging fall into a steady state where every hop waits for one
// sleeper. Tightening the slack only while the transport sleeps keeps the
// rest of the thread's (the runtime's) behaviour untouched.
#include <sys/prctl.h>

namespace roam::detail {

class scoped_timer_slack {
 public:
  explicit scoped_timer_slack(unsigned long nanoseconds) noexcept {
    int old = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    if (old > 0 && static_cast<unsigned long>(old) != nanoseconds &&
        prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0) == 0)
      restore_ = static_cast<unsigned long>(old);
  }
  ~scoped_timer_slack() {
    if (restore_ != 0) prctl(PR_SET_TIMERSLACK, restore_, 0, 0, 0);
  }
  scoped_timer_slack(const scoped_timer_slack&) = delete;
  scoped_timer_slack& operator=(const scoped_timer_slack&) = delete;

 private:
  unsigned long restore_ = 0;  // 0: nothing to restore
};

}  // namespace roam::detail
