// Mailboxes and their combinators: the semantics Structured Dagger programs
// rely on (messages before and after the await, reference numbers out of
// order, joins in every order, case/when_any leaving losers queued,
// overlap/when_all, nested loops, a task that throws, migration with
// buffered messages).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "support/run_roam.hpp"

namespace flowtest {

using roam_test::run_on;

std::vector<long> g_out;

// Receives `n` iterations of (iteration, value) strictly by reference number.
struct counter : roam::element<counter> {
  roam::mailbox<int, long> item;
  roam::mailbox<int> go;

  roam::task<> run(int n, roam::promise<std::vector<long>> done) {
    std::vector<long> seen;
    for (int it = 0; it < n; ++it) {
      auto [i, v] = co_await item.receive(it);
      if (i != it) seen.push_back(-1);
      seen.push_back(v);
    }
    done.set_value(seen);
  }
  roam::task<> first_then_any(roam::promise<std::vector<long>> done) {
    std::vector<long> log;
    log.push_back(co_await go);  // any message
    for (int round = 0; round < 3; ++round) {
      auto r = co_await roam::when_any(go.receive(), item.receive(7));
      if (r.index() == 0) log.push_back(100 + std::get<0>(r));
      else log.push_back(200 + std::get<1>(std::get<1>(r)));
    }
    log.push_back(static_cast<long>(go.size()));
    log.push_back(static_cast<long>(item.size()));
    done.set_value(log);
  }
  roam::task<> join(int rounds, roam::promise<std::vector<long>> done) {
    std::vector<long> sums;
    for (int r = 0; r < rounds; ++r) {
      auto [a, b] = co_await roam::when_all(item.receive(r), go.receive(r));
      sums.push_back(std::get<1>(a) + b);
    }
    done.set_value(sums);
  }
  roam::task<> overlap(roam::promise<std::vector<long>> done) {
    std::vector<long> order;
    auto left = [&]() -> roam::task<> {
      for (int k = 0; k < 3; ++k) order.push_back(10 + std::get<1>(co_await item.receive(k)));
    };
    auto right = [&]() -> roam::task<> {
      for (int k = 0; k < 3; ++k) order.push_back(20 + co_await go.receive(k));
    };
    auto [x, y] = co_await roam::when_all(left(), right());
    (void)x;
    (void)y;
    order.push_back(-9);  // only after both branches
    done.set_value(order);
  }
  roam::task<> nested(int outer, int inner, roam::promise<long> done) {
    long total = 0;
    for (int i = 0; i < outer; ++i)
      for (int j = 0; j < inner; ++j) total += std::get<1>(co_await item.receive(i * inner + j));
    done.set_value(total);
  }
  roam::task<> explode() {
    int v = co_await go;
    if (v == 13) throw std::runtime_error("unlucky message");
  }
  // Many receives on one mailbox at once: the first waiter's slot and the
  // list behind it, served by reference number, then in arrival order.
  roam::task<> crowd(roam::promise<std::vector<long>> done) {
    std::vector<long> log;
    auto [a, b, c, d] = co_await roam::when_all(item.receive(3), item.receive(2), item.receive(1), item.receive(0));
    log.push_back(std::get<1>(a));
    log.push_back(std::get<1>(b));
    log.push_back(std::get<1>(c));
    log.push_back(std::get<1>(d));
    // Two branches of a when_any on the same mailbox: the loser (the first
    // waiter) withdraws while the winner takes the message.
    auto r = co_await roam::when_any(item.receive(10), item.receive(11));
    log.push_back(static_cast<long>(r.index()));
    log.push_back(static_cast<long>(item.size()));
    // Two "any" receives: the older waiter gets the older message.
    auto [x, y] = co_await roam::when_all(item.receive(), item.receive());
    log.push_back(std::get<1>(x));
    log.push_back(std::get<1>(y));
    done.set_value(log);
  }
  void pup(roam::pup_er& p) { p | item | go; }
};

struct holder : roam::element<holder> {
  holder() = default;
  explicit holder(roam::migrating) {}
  roam::mailbox<int, long> item;
  void move_to(std::uint32_t pe) { migrate_to(roam::pe_id{pe}); }
  roam::task<> drain(int n, roam::promise<std::vector<long>> done) {
    std::vector<long> got;
    got.push_back(static_cast<long>(roam::my_pe().value()));
    got.push_back(static_cast<long>(item.size()));
    for (int i = n - 1; i >= 0; --i) got.push_back(std::get<1>(co_await item.receive(i)));
    done.set_value(got);
  }
  void pup(roam::pup_er& p) { p | item; }
};

// A task that waits on its mailbox while its element moves.
struct walker : roam::element<walker> {
  walker() = default;
  explicit walker(roam::migrating) {}
  roam::mailbox<int, int> step;  // (step number, where to go next)
  roam::task<> run(roam::promise<std::vector<long>> done) {
    std::vector<long> pes;
    for (int k = 0; k < 4; ++k) {
      auto [number, to] = co_await step.receive(k);
      (void)number;
      pes.push_back(static_cast<long>(roam::my_pe().value()));
      migrate_to(roam::pe_id{static_cast<std::uint32_t>(to)});  // carried out when this delivery returns
    }
    pes.push_back(static_cast<long>(roam::my_pe().value()));
    done.set_value(pes);
  }
  void where(roam::promise<std::vector<long>> p) { p.set_value(std::vector<long>{static_cast<long>(roam::my_pe().value())}); }
  void pup(roam::pup_er& p) { p | step; }
};

template <class F>
std::vector<long> run_vec(unsigned pes, F body, std::vector<std::string> extra = {}) {
  g_out.clear();
  int rc = run_on(pes, [body](const roam::args&) -> roam::task<> {
    auto [f, p] = roam::make_future<std::vector<long>>();
    body(p);
    g_out = co_await f;
    roam::exit(0);
  }, std::move(extra));
  EXPECT_EQ(rc, 0);
  return g_out;
}

TEST(mailbox, messages_before_and_after_the_await_are_matched_by_reference_number_out_of_order) {
  static constexpr int n = 200;
  std::vector<long> got = run_vec(2, [](roam::promise<std::vector<long>> p) {
    auto a = roam::create_array<counter>(roam::index<1>{1});
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937(5));
    // Half before the task starts, half after, in a scrambled order.
    for (int k = 0; k < n / 2; ++k) a[0].send<&counter::item>(order[k], static_cast<long>(order[k]) * 3);
    a[0].send<&counter::run>(n, p);
    for (int k = n / 2; k < n; ++k) a[0].send<&counter::item>(order[k], static_cast<long>(order[k]) * 3);
  });
  ASSERT_EQ(got.size(), static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) EXPECT_EQ(got[static_cast<std::size_t>(k)], k * 3);
}

TEST(mailbox, when_any_takes_one_message_and_leaves_the_losers_queued) {
  std::vector<long> got = run_vec(1, [](roam::promise<std::vector<long>> p) {
    auto a = roam::create_array<counter>(roam::index<1>{1});
    a[0].send<&counter::go>(1);
    a[0].send<&counter::item>(7, 70L);  // matches branch 1
    a[0].send<&counter::item>(8, 80L);  // matches nothing: stays
    a[0].send<&counter::go>(2);          // branch 0 is listed first: wins while both are ready
    a[0].send<&counter::first_then_any>(p);
    a[0].send<&counter::go>(3);
  });
  // go(1) by the plain await; then go(2) (first branch wins when both ready),
  // item(7) (go empty), go(3) (arrives while waiting); item(8) stays.
  EXPECT_EQ(got, (std::vector<long>{1, 102, 270, 103, 0, 1}));
}

TEST(mailbox, joins_complete_whichever_part_arrives_first) {
  static constexpr int rounds = 40;
  std::vector<long> got = run_vec(2, [](roam::promise<std::vector<long>> p) {
    auto a = roam::create_array<counter>(roam::index<1>{1});
    a[0].send<&counter::join>(rounds, p);
    std::mt19937 rng(11);
    for (int r = 0; r < rounds; ++r) {  // each round's parts in a random order
      if (rng() % 2) {
        a[0].send<&counter::item>(r, static_cast<long>(r) * 100);
        a[0].send<&counter::go>(r);
      } else {
        a[0].send<&counter::go>(r);
        a[0].send<&counter::item>(r, static_cast<long>(r) * 100);
      }
    }
  });
  ASSERT_EQ(got.size(), static_cast<std::size_t>(rounds));
  for (int r = 0; r < rounds; ++r) EXPECT_EQ(got[static_cast<std::size_t>(r)], r * 101);
}

TEST(mailbox, many_waiters_on_one_mailbox_take_their_own_messages) {
  std::vector<long> got = run_vec(1, [](roam::promise<std::vector<long>> p) {
    auto a = roam::create_array<counter>(roam::index<1>{1});
    a[0].send<&counter::crowd>(p);
    for (int k = 0; k < 4; ++k) a[0].send<&counter::item>(k, 100L + k);
    a[0].send<&counter::item>(11, 111L);
    a[0].send<&counter::item>(20, 7L);
    a[0].send<&counter::item>(21, 8L);
  });
  EXPECT_EQ(got, (std::vector<long>{103, 102, 101, 100, 1, 0, 7, 8}));
}

TEST(mailbox, when_all_interleaves_branches_and_completes_only_when_all_have) {
  std::vector<long> got = run_vec(1, [](roam::promise<std::vector<long>> p) {
    auto a = roam::create_array<counter>(roam::index<1>{1});
    a[0].send<&counter::overlap>(p);
    a[0].send<&counter::go>(0);
    a[0].send<&counter::item>(0, 1L);
    a[0].send<&counter::go>(1);
    a[0].send<&counter::go>(2);
    a[0].send<&counter::item>(2, 3L);  // early: waits for item 1
    a[0].send<&counter::item>(1, 2L);
  });
  EXPECT_EQ(got, (std::vector<long>{20, 11, 21, 22, 12, 13, -9}));
}

TEST(mailbox, nested_loops_consume_every_iteration_once) {
  static long total = 0;
  int rc = run_on(2, [](const roam::args&) -> roam::task<> {
    auto a = roam::create_array<counter>(roam::index<1>{1});
    auto [f, p] = roam::make_future<long>();
    a[0].send<&counter::nested>(6, 7, p);
    for (int k = 41; k >= 0; --k) a[0].send<&counter::item>(k, static_cast<long>(k));
    total = co_await f;
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(total, 41 * 42 / 2);
}

TEST(mailbox, a_task_that_throws_is_reported_naming_the_element_and_entry) {
  testing::internal::CaptureStderr();
  int rc = run_on(1, [](const roam::args&) {
    auto a = roam::create_array<counter>(roam::index<1>{2});
    a[1].send<&counter::explode>();
    a[1].send<&counter::go>(13);
  });
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 1);
  EXPECT_NE(err.find("flowtest::counter[1]"), std::string::npos) << err;
  EXPECT_NE(err.find("explode"), std::string::npos) << err;
  EXPECT_NE(err.find("unlucky message"), std::string::npos) << err;
}

TEST(mailbox, buffered_messages_travel_with_a_migrating_element) {
  for (const char* mode : {"", "+serialize"}) {
    std::vector<std::string> extra;
    if (*mode) extra.push_back(mode);
    std::vector<long> got = run_vec(2, [](roam::promise<std::vector<long>> p) {
      auto a = roam::create_array<holder>(roam::array_options<1>({1}, roam::block_map()));
      for (int i = 0; i < 5; ++i) a[0].send<&holder::item>(i, static_cast<long>(i) * 11);
      a[0].send<&holder::move_to>(1u);
      a[0].send<&holder::drain>(5, p);
    }, extra);
    EXPECT_EQ(got, (std::vector<long>{1, 5, 44, 33, 22, 11, 0})) << mode;
  }
}

TEST(mailbox, tasks_still_waiting_at_exit_are_torn_down_cleanly) {
  for (int i = 0; i < 10; ++i) {
    int rc = run_on(2, [](const roam::args&) -> roam::task<> {
      auto a = roam::create_array<counter>(roam::index<1>{2});
      auto [f, p] = roam::make_future<std::vector<long>>();
      a.send<&counter::join>(3, p);    // waits in a when_all forever
      a[0].send<&counter::item>(0, 5L);  // half of a join
      auto [f2, p2] = roam::make_future<std::vector<long>>();
      a[1].send<&counter::first_then_any>(p2);  // waits in a plain receive
      auto [fq, pq] = roam::make_future<>();
      roam::on_quiescence(roam::callback<>::to_future(pq));
      co_await fq;  // everything above is now waiting
      roam::exit(0);
    });
    EXPECT_EQ(rc, 0);
  }
}

TEST(mailbox, a_task_waiting_on_its_mailbox_moves_with_its_element_within_a_process) {
  std::vector<long> got = run_vec(3, [](roam::promise<std::vector<long>> p) {
    auto a = roam::create_array<walker>(roam::array_options<1>({1}, roam::block_map()));
    a[0].send<&walker::run>(p);
    // Each step names where to go next; the next step follows the element.
    a[0].send<&walker::step>(0, 2);
    a[0].send<&walker::step>(1, 1);
    a[0].send<&walker::step>(2, 2);
    a[0].send<&walker::step>(3, 0);
  });
  // Resumed on 0, moved to 2, resumed there, ... (the last entry runs where step 3 was taken).
  EXPECT_EQ(got, (std::vector<long>{0, 2, 1, 2, 2}));
}

TEST(mailbox, packing_an_element_whose_task_is_suspended_is_refused_clearly) {
  testing::internal::CaptureStderr();
  int rc = run_on(2, [](const roam::args&) {
    auto a = roam::create_array<walker>(roam::array_options<1>({1}, roam::block_map()));
    auto [f, p] = roam::make_future<std::vector<long>>();
    a[0].send<&walker::run>(p);
    a[0].send<&walker::step>(0, 1);  // moves while run() waits for step 1
  }, {"+serialize"});
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 1);
  EXPECT_NE(err.find("array flowtest::walker[0] on pe 0: cannot migrate to pe 1 while 1 of its entry tasks are suspended"),
            std::string::npos)
      << err;
}

}  // namespace flowtest
