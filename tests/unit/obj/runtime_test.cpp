#include <gtest/gtest.h>

#include <sys/resource.h>

#include <atomic>
#include <chrono>

#include "support/run_roam.hpp"

namespace runtime_test {

using roam_test::run_on;

namespace {

struct exiter : roam::group_member<exiter> {
  void exit_if_last(int code) {
    if (roam::my_pe().value() == roam::num_pes() - 1) roam::exit(code);
  }
};

}  // namespace

TEST(runtime, returns_the_exit_code_given_on_any_pe) {
  for (unsigned pes : {1u, 2u, 4u}) {
    int rc = run_on(pes, [](const roam::args&) {
      auto g = roam::create_group<exiter>();
      g.send<&exiter::exit_if_last>(7);
    });
    EXPECT_EQ(rc, 7) << pes << " PEs";
  }
}

TEST(runtime, runs_main_on_pe_zero_with_the_requested_pe_count) {
  std::atomic<unsigned> seen_pes{0}, seen_pe{99};
  int rc = run_on(3, [&](const roam::args&) {
    seen_pes = roam::num_pes();
    seen_pe = roam::my_pe().value();
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(seen_pes.load(), 3u);
  EXPECT_EQ(seen_pe.load(), 0u);
}

TEST(runtime, removes_its_options_and_passes_the_rest_to_main) {
  std::vector<std::string> got;
  int rc = run_on(
      1,
      [&](const roam::args& a) {
        got.assign(a.begin(), a.end());
        roam::exit(0);
      },
      {"input.txt", "+busywait", "--flag", "+idlespin", "10"});
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(got, (std::vector<std::string>{"roam_test", "input.txt", "--flag"}));
}

TEST(runtime, rejects_an_unknown_plus_option_by_name) {
  testing::internal::CaptureStderr();
  int rc = run_on(1, [](const roam::args&) { roam::exit(0); }, {"+bogus"});
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 2);
  EXPECT_NE(err.find("'+bogus'"), std::string::npos) << err;
}

TEST(runtime, rejects_a_malformed_pe_count) {
  testing::internal::CaptureStderr();
  int rc = run_on(1, [](const roam::args&) { roam::exit(0); }, {"+p", "zero"});
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 2);
  EXPECT_NE(err.find("+p"), std::string::npos) << err;
}

TEST(runtime, reads_the_pe_count_from_the_environment) {
  setenv("ROAM_P", "3", 1);
  std::vector<std::string> words = {"t"};
  std::vector<char*> argv = {words[0].data(), nullptr};
  int argc = 1;
  std::atomic<unsigned> pes{0};
  int rc = roam::run(argc, argv.data(), [&](const roam::args&) {
    pes = roam::num_pes();
    roam::exit(0);
  });
  unsetenv("ROAM_P");
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(pes.load(), 3u);
}

TEST(runtime, help_lists_options_and_exits_zero) {
  testing::internal::CaptureStdout();
  bool ran = false;
  int rc = run_on(1, [&](const roam::args&) { ran = true; }, {"+help"});
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, 0);
  EXPECT_FALSE(ran);
  EXPECT_NE(out.find("+p N"), std::string::npos);
  EXPECT_NE(out.find("ROAM_BUSYWAIT"), std::string::npos);
}

TEST(runtime, timers_fire_after_their_delay_in_deadline_order) {
  std::vector<int> order;
  auto t0 = std::chrono::steady_clock::now();
  std::chrono::steady_clock::duration elapsed{};
  int rc = run_on(1, [&](const roam::args&) {
    roam::after(std::chrono::milliseconds(20), [&] {
      order.push_back(2);
      elapsed = std::chrono::steady_clock::now() - t0;
      roam::exit(0);
    });
    roam::after(std::chrono::milliseconds(5), [&] { order.push_back(1); });
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_GE(elapsed, std::chrono::milliseconds(20));
}

TEST(runtime, when_idle_runs_once_the_queue_is_empty) {
  std::vector<std::string> log;
  int rc = run_on(1, [&](const roam::args&) {
    roam::when_idle([&] {
      log.push_back("idle");
      roam::exit(0);
    });
    roam::after(std::chrono::milliseconds(0), [&] { log.push_back("timer"); });
    log.push_back("main");
  });
  EXPECT_EQ(rc, 0);
  ASSERT_FALSE(log.empty());
  EXPECT_EQ(log.front(), "main");
  EXPECT_EQ(log.back(), "idle");
}

TEST(runtime, a_coroutine_main_may_await_before_exiting) {
  struct echo : roam::chare<echo> {
    int twice(int x) { return 2 * x; }
  };
  int result = 0;
  int rc = run_on(2, [&](const roam::args&) -> roam::task<> {
    auto e = roam::create_chare_on<echo>(roam::pe_id{1});
    result = co_await e.call<&echo::twice>(21);
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(result, 42);
}

TEST(runtime, counts_every_message_created_and_processed) {
  struct ponger : roam::chare<ponger> {
    void hit(int left) {
      if (left > 0) this_proxy().send<&ponger::hit>(left - 1);
    }
  };
  std::uint64_t created = 0, processed = 0;
  int rc = run_on(1, [&](const roam::args&) {
    auto p = roam::create_chare_on<ponger>(roam::pe_id{0});
    p.send<&ponger::hit>(9);
    roam::when_idle([&] {
      created = roam::messages_created();
      processed = roam::messages_processed();
      roam::exit(0);
    });
  });
  EXPECT_EQ(rc, 0);
  // main + creation + 10 hits, all processed by the time the PE is idle.
  EXPECT_EQ(created, 12u);
  EXPECT_EQ(processed, 12u);
}

namespace {
double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}
}  // namespace

TEST(runtime, idle_pes_sleep_instead_of_spinning) {
  // Four PEs with nothing to do for 300 ms: spinning would burn about 0.6 s of
  // CPU on two cores; sleeping PEs burn a few milliseconds.
  double before = process_cpu_seconds();
  int rc = run_on(4, [](const roam::args&) { roam::after(std::chrono::milliseconds(300), [] { roam::exit(0); }); });
  double used = process_cpu_seconds() - before;
  EXPECT_EQ(rc, 0);
  EXPECT_LT(used, 0.15) << "idle PEs used " << used << " s of CPU in 0.3 s";
}

namespace {
struct rally : roam::chare<rally> {
  // Hits back and forth with `work` of busy work per hit: fine-grained rhythm
  // whose gaps teach the idle policy to spin longer.
  void hit(int left, roam::chare_proxy<rally> other, std::chrono::microseconds work, roam::callback<> done) {
    auto end = std::chrono::steady_clock::now() + work;
    while (std::chrono::steady_clock::now() < end) {
    }
    if (left == 0) return done.send();
    other.send<&rally::hit>(left - 1, this_proxy(), work, done);
  }
};
}  // namespace

TEST(runtime, pes_that_learned_a_long_spin_still_sleep_once_work_stops) {
  // Two PEs (one per core: the spin adapts) rally 400 hits with 100 us of
  // work each, so each idles ~100 us at a time and learns to spin through
  // such gaps; then nothing happens for 300 ms. They must fall asleep.
  double idle_cpu = -1;
  int rc = run_on(2, [&](const roam::args&) -> roam::task<> {
    auto a = roam::create_chare_on<rally>(roam::pe_id{0});
    auto b = roam::create_chare_on<rally>(roam::pe_id{1});
    auto [f, p] = roam::make_future<>();
    a.send<&rally::hit>(400, b, std::chrono::microseconds(100), roam::callback<>::to_future(p));
    co_await f;
    double before = process_cpu_seconds();
    roam::after(std::chrono::milliseconds(300), [&idle_cpu, before] {
      idle_cpu = process_cpu_seconds() - before;
      roam::exit(0);
    });
  });
  EXPECT_EQ(rc, 0);
  // Spinning through would burn 0.6 s; two PEs that spin their learned
  // budget (at most +idlespinmax, 500 us) a few times and then sleep, a few ms.
  EXPECT_GE(idle_cpu, 0.0);
  EXPECT_LT(idle_cpu, 0.1) << "idle PEs used " << idle_cpu << " s of CPU in 0.3 s after the rally";
}

TEST(runtime, a_sleeping_pe_is_woken_once_however_many_messages_reach_it_meanwhile) {
  // PE 1 sleeps (nothing to do for 20 ms); PE 0 then sends it 2000 messages
  // at once. The first sender to find it asleep claims the wake: PE 0 must
  // not make a system call per message while PE 1 is waking up.
  std::uint64_t wakes_sent = 0, sleeps = 0;
  int rc = run_on(2, [&](const roam::args&) -> roam::task<> {
    struct sink : roam::chare<sink> {
      int got = 0;
      void take(int) { ++got; }
      std::uint64_t sleeps() { return roam::detail::tls_pe->idle().slept; }
    };
    auto s = roam::create_chare_on<sink>(roam::pe_id{1});
    co_await s.call<&sink::sleeps>();  // built and answered: PE 1 has nothing left to do
    auto [f, p] = roam::make_future<>();
    roam::after(std::chrono::milliseconds(20), [s, p = p]() mutable {
      for (int i = 0; i < 2000; ++i) s.send<&sink::take>(i);
      p.set_value();
    });
    co_await f;
    sleeps = co_await s.call<&sink::sleeps>();
    wakes_sent = roam::detail::tls_pe->idle().wakes_sent;
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_GE(sleeps, 1u);
  // Each of PE 1's sleeps can be claimed by one wake (the exit's wake aside).
  EXPECT_LE(wakes_sent, sleeps + 1) << "PE 0 sent " << wakes_sent << " wakes for " << sleeps << " sleeps";
}

TEST(runtime, busywait_and_affinity_options_run_programs_correctly) {
  for (auto opts : {std::vector<std::string>{"+busywait"}, std::vector<std::string>{"+setcpuaffinity"}}) {
    int got = 0;
    int rc = run_on(2, [&](const roam::args&) -> roam::task<> {
      struct echo2 : roam::chare<echo2> {
        int twice(int x) { return 2 * x; }
      };
      auto e = roam::create_chare_on<echo2>(roam::pe_id{1});
      got = co_await e.call<&echo2::twice>(4);
      roam::exit(0);
    }, opts);
    EXPECT_EQ(rc, 0) << opts[0];
    EXPECT_EQ(got, 8) << opts[0];
  }
}

}  // namespace runtime_test
