// User-level threads inside a running roam program: blocking on futures,
// yielding, stack reuse, unwinding at exit, per-thread exception state.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include <roam/sched/detail/ult.hpp>

#include "support/run_roam.hpp"

namespace ult_test {

using roam_test::run_on;

TEST(user_threads, a_thread_blocks_on_a_future_while_its_pe_runs_other_messages) {
  std::vector<std::string> log;
  int rc = run_on(1, [&](const roam::args&) {
    auto [f, p] = roam::make_future<int>();
    roam::start_thread([&log, f = f] {
      log.push_back("thread starts");
      int v = f.get();
      log.push_back("thread got " + std::to_string(v));
      roam::exit(0);
    });
    log.push_back("main continues");  // the thread blocked: main runs on
    roam::when_idle([&log, p = p] {
      log.push_back("fulfil");
      p.set_value(7);
    });
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(log, (std::vector<std::string>{"thread starts", "main continues", "fulfil", "thread got 7"}));
}

TEST(user_threads, yielding_threads_take_turns_with_each_other) {
  std::string order;
  int rc = run_on(1, [&](const roam::args&) {
    for (char c : {'a', 'b'})
      roam::start_thread([&order, c] {
        for (int i = 0; i < 3; ++i) {
          EXPECT_TRUE(roam::in_user_thread());
          order += c;
          roam::this_thread_yield();
        }
        if (c == 'b') roam::exit(0);
      });
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(order, "ababab");
}

TEST(user_threads, yield_and_get_outside_a_thread_are_clear_errors) {
  std::string yield_error, get_error;
  int rc = run_on(1, [&](const roam::args&) {
    EXPECT_FALSE(roam::in_user_thread());
    try {
      roam::this_thread_yield();
    } catch (const std::logic_error& e) {
      yield_error = e.what();
    }
    auto [f, p] = roam::make_future<int>();
    try {
      (void)f.get();
    } catch (const roam::future_error& e) {
      get_error = e.what();
    }
    p.set_value(1);
    roam::when_idle([f = f] {
      EXPECT_EQ(f.get(), 1);  // ready: get() needs no thread
      roam::exit(0);
    });
  });
  EXPECT_EQ(rc, 0);
  EXPECT_NE(yield_error.find("outside a user-level thread"), std::string::npos) << yield_error;
  EXPECT_NE(get_error.find("outside a user-level thread"), std::string::npos) << get_error;
}

TEST(user_threads, finished_threads_give_their_stacks_back_for_reuse) {
  roam::detail::ult_stats after_serial, after_parallel, after_more;
  int rc = run_on(1, [&](const roam::args&) {
    // One at a time: every thread runs to its end at start, so one stack serves all.
    for (int i = 0; i < 100; ++i) roam::start_thread([] {});
    after_serial = roam::detail::ult_statistics();
    // Ten blocked at once need ten stacks; once they end, ten more reuse them.
    std::vector<roam::promise<>> ps;
    for (int i = 0; i < 10; ++i) {
      auto [f, p] = roam::make_future<>();
      ps.push_back(p);
      roam::start_thread([f = f] { f.get(); });
    }
    after_parallel = roam::detail::ult_statistics();
    for (auto& p : ps) p.set_value();
    roam::when_idle([&] {
      for (int i = 0; i < 10; ++i) roam::start_thread([] { roam::this_thread_yield(); });
      roam::when_idle([&] {
        after_more = roam::detail::ult_statistics();
        roam::exit(0);
      });
    });
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(after_serial.stacks_mapped_total, 1u);
  EXPECT_EQ(after_serial.live, 0u);
  EXPECT_EQ(after_parallel.live, 10u);
  EXPECT_EQ(after_parallel.stacks_mapped_total, 10u);
  EXPECT_EQ(after_more.live, 0u);
  EXPECT_EQ(after_more.stacks_mapped_total, 10u) << "the second ten reused the first ten's stacks";
}

namespace {
struct counted {
  static inline int alive = 0;
  counted() { ++alive; }
  ~counted() { --alive; }
};
}  // namespace

TEST(user_threads, threads_still_blocked_at_exit_are_unwound) {
  counted::alive = 0;
  bool reached_after_get = false;
  int rc = run_on(2, [&](const roam::args&) {
    for (int i = 0; i < 5; ++i) {
      auto [f, p] = roam::make_future<int>();
      roam::start_thread([f = f, p = p, &reached_after_get] {
        counted c;
        auto keep = std::make_unique<std::vector<int>>(1000);  // LeakSanitizer sees it freed
        (void)f.get();  // never fulfilled
        reached_after_get = true;
      });
    }
    EXPECT_EQ(counted::alive, 5);
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(counted::alive, 0) << "the blocked threads' frames were destroyed";
  EXPECT_FALSE(reached_after_get);
}

TEST(user_threads, a_thread_may_block_inside_a_catch_block_while_others_throw) {
  std::string rethrown;
  int rc = run_on(1, [&](const roam::args&) {
    auto [f, p] = roam::make_future<>();
    roam::start_thread([&rethrown, f = f] {
      try {
        throw std::runtime_error("first");
      } catch (const std::exception&) {
        f.get();  // other code throws and catches meanwhile
        try {
          throw;  // still ours
        } catch (const std::exception& e) {
          rethrown = e.what();
        }
      }
      EXPECT_EQ(std::uncaught_exceptions(), 0);
      roam::exit(0);
    });
    roam::start_thread([] {
      try {
        throw std::logic_error("second");
      } catch (const std::exception&) {
        // Blocked inside its own catch block while the first thread resumes and rethrows.
        roam::this_thread_yield();
        roam::this_thread_yield();
      }
    });
    try {
      throw std::runtime_error("third");
    } catch (...) {
      p.set_value();
    }
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(rethrown, "first");
}

TEST(user_threads, an_exception_escaping_a_thread_is_reported) {
  testing::internal::CaptureStderr();
  int rc = run_on(1, [](const roam::args&) { roam::start_thread([] { throw std::runtime_error("kaput"); }); });
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 1);
  EXPECT_NE(err.find("[pe 0/1] user-level thread: uncaught exception: kaput"), std::string::npos) << err;
}

TEST(user_threads, ulstack_sets_the_stack_size_and_rejects_nonsense) {
  std::size_t size = 0;
  int rc = run_on(1, [&](const roam::args&) {
    roam::start_thread([&] {
      size = roam::detail::ult_statistics().stack_size;
      roam::exit(0);
    });
  }, {"+ulstack", "64K"});
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(size, 65536u);
  testing::internal::CaptureStderr();
  rc = run_on(1, [](const roam::args&) { roam::exit(0); }, {"+ulstack", "100"});
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 2);
  EXPECT_NE(err.find("+ulstack"), std::string::npos) << err;
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
namespace {
int deep(int n) {
  volatile char pad[1024];
  pad[0] = static_cast<char>(n);
  return n == 0 ? pad[0] : deep(n - 1) + pad[0];
}
}  // namespace

TEST(user_threads_death, overflowing_a_thread_stack_is_a_segfault_on_its_guard_page) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(run_on(1, [](const roam::args&) { roam::start_thread([] { (void)deep(1000); }); }, {"+ulstack", "64K"}),
              testing::KilledBySignal(SIGSEGV), "");
}
#endif

}  // namespace ult_test
