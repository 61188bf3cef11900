// What a task can await besides its mailboxes (futures, timers, quiescence,
// reduction results), and how a task waiting on one of them holds its
// object: the object neither moves nor dies until the task resumes, and the
// task resumes as the object's entry would (on its PE, its requests carried
// out after).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "support/run_roam.hpp"

namespace awaittest {

using roam_test::run_on;
using namespace std::chrono_literals;

std::vector<long> g_log;

struct answerer : roam::element<answerer> {
  answerer() = default;
  explicit answerer(roam::migrating) {}
  long twice(long v) { return 2 * v; }
  void pup(roam::pup_er&) {}
};

// Waits on a future (a call to another array), then reports where it is.
struct waiter : roam::element<waiter> {
  waiter() = default;
  explicit waiter(roam::migrating) {}
  roam::mailbox<int> go;
  void move_to(std::uint32_t pe) { migrate_to(roam::pe_id{pe}); }
  void die() { destroy_self(); }
  long here() { return static_cast<long>(roam::my_pe().value()); }

  // Asks for a move and a reply; the move waits for the reply.
  roam::task<> ask(roam::array_proxy<answerer> other, roam::promise<std::vector<long>> done) {
    std::vector<long> log;
    log.push_back(static_cast<long>(roam::my_pe().value()));
    // The reply comes after the requests queued behind this entry (to move, to die).
    log.push_back(co_await other[0].call<&answerer::twice>(21L));
    log.push_back(static_cast<long>(roam::my_pe().value()));  // still here: it was held
    done.set_value(log);
  }
  // Resumed by a future, it asks to move itself: carried out after it suspends again.
  roam::task<> hop_after(roam::promise<roam::promise<long>> handout, roam::promise<std::vector<long>> done) {
    auto [f, p] = roam::make_future<long>();
    handout.set_value(p);
    std::vector<long> log;
    log.push_back(co_await std::move(f));
    migrate_to(roam::pe_id{1});
    log.push_back(static_cast<long>(roam::my_pe().value()));
    (void)co_await go;  // delivered where it moved to
    log.push_back(static_cast<long>(roam::my_pe().value()));
    done.set_value(log);
  }
  roam::task<> nap(int ms, roam::promise<std::vector<long>> done) {
    auto t0 = std::chrono::steady_clock::now();
    long pe = static_cast<long>(roam::my_pe().value());
    co_await roam::sleep_for(std::chrono::milliseconds(ms));
    auto slept = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    done.set_value(std::vector<long>{pe, static_cast<long>(roam::my_pe().value()), slept >= ms ? 1L : 0L});
  }
  roam::task<> sleep_forever() { co_await roam::sleep_for(1h); }
  void pup(roam::pup_er& p) { p | go; }
};

// The same for a singleton chare.
struct roamer : roam::chare<roamer> {
  roamer() = default;
  explicit roamer(roam::migrating) {}
  void move_to(std::uint32_t pe) { migrate_to(roam::pe_id{pe}); }
  long here() { return static_cast<long>(roam::my_pe().value()); }
  roam::task<> ask(roam::array_proxy<answerer> other, roam::promise<std::vector<long>> done) {
    std::vector<long> log;
    log.push_back(co_await other[0].call<&answerer::twice>(8L));
    log.push_back(static_cast<long>(roam::my_pe().value()));
    done.set_value(log);
  }
  void pup(roam::pup_er&) {}
};

// Every element sums its index over several reductions awaited in its task.
struct summer : roam::element<summer> {
  roam::mailbox<long> total;  // the reduction result, broadcast into the mailbox
  roam::task<> run(int rounds, roam::promise<std::vector<long>> done) {
    std::vector<long> got;
    for (int r = 0; r < rounds; ++r) {
      contribute(static_cast<long>(this_index()[0]) + r, roam::sum, roam::callback<long>::broadcast<&summer::total>(this_array()));
      got.push_back(co_await total);
    }
    if (this_index()[0] == 0) done.set_value(got);
  }
  roam::task<> once(roam::callback<long> cb) {
    contribute(static_cast<long>(this_index()[0]) * 10, roam::sum, cb);
    co_return;
  }
};

struct pinger : roam::element<pinger> {
  void ping(int left) {
    ++g_pings;
    if (left > 0) this_array()[(this_index()[0] + 1) % 4].send<&pinger::ping>(left - 1);
  }
  static inline std::atomic<long> g_pings{0};
};

// Several reductions in flight at once, each result tagged with its round
// (SDAG's reduction refnum) and taken out of order by reference number.
struct tagged_summer : roam::element<tagged_summer> {
  roam::mailbox<int, long> sums;  // (round, total)
  roam::mailbox<int> synced;      // a barrier's round
  roam::task<> run(int rounds, roam::promise<std::vector<long>> done) {
    for (int r = 0; r < rounds; ++r)
      contribute(static_cast<long>(this_index()[0]) * (r + 1), roam::sum,
                 roam::callback<long>::broadcast<&tagged_summer::sums>(this_array(), r));
    contribute(roam::callback<>::broadcast<&tagged_summer::synced>(this_array(), 77));
    std::vector<long> got;
    for (int r = rounds - 1; r >= 0; --r) {
      auto [round, total] = co_await sums.receive(r);
      got.push_back(round * 1000 + total);
    }
    got.push_back(co_await synced.receive(77));
    if (this_index()[0] == 0) done.set_value(got);
  }
};

// Counts copies, to check that awaiting an rvalue future moves its value.
struct counted {
  counted() = default;
  counted(const counted& o) : v(o.v) { ++copies; }
  counted(counted&&) noexcept = default;
  counted& operator=(const counted& o) {
    v = o.v;
    ++copies;
    return *this;
  }
  counted& operator=(counted&&) noexcept = default;
  std::vector<long> v;
  void pup(roam::pup_er& p) { p | v; }
  static inline int copies = 0;
};

template <class F>
std::vector<long> run_vec(unsigned pes, F body, std::vector<std::string> extra = {}) {
  g_log.clear();
  int rc = run_on(pes, [body](const roam::args&) -> roam::task<> {
    auto [f, p] = roam::make_future<std::vector<long>>();
    body(p);
    g_log = co_await f;
    roam::exit(0);
  }, std::move(extra));
  EXPECT_EQ(rc, 0);
  return g_log;
}

TEST(awaitables, a_task_waiting_on_a_future_holds_its_element_until_it_resumes) {
  for (const char* mode : {"", "+serialize"}) {
    std::vector<std::string> extra;
    if (*mode) extra.push_back(mode);
    static std::vector<long> log;
    static long after = -1;
    log.clear();
    after = -1;
    int rc = run_on(2, [](const roam::args&) -> roam::task<> {
      auto other = roam::create_array<answerer>(roam::array_options<1>({1}, roam::block_map()));
      auto a = roam::create_array<waiter>(roam::array_options<1>({1}, roam::block_map()));
      auto [f, p] = roam::make_future<std::vector<long>>();
      a[0].send<&waiter::ask>(other, p);
      a[0].send<&waiter::move_to>(1u);  // arrives while ask() waits: deferred, even packed
      log = co_await std::move(f);
      after = co_await a[0].call<&waiter::here>();  // the deferred move happened after ask() ended
      roam::exit(0);
    }, extra);
    EXPECT_EQ(rc, 0);
    EXPECT_EQ(log, (std::vector<long>{0, 42, 0})) << mode;
    EXPECT_EQ(after, 1) << mode;
  }
}

TEST(awaitables, a_chare_task_waiting_on_a_future_holds_the_chare_until_it_resumes) {
  static std::vector<long> log;
  static long after = -1;
  log.clear();
  int rc = run_on(2, [](const roam::args&) -> roam::task<> {
    auto other = roam::create_array<answerer>(roam::array_options<1>({1}, roam::block_map()));
    auto c = roam::create_chare_on<roamer>(roam::pe_id{0});
    auto [f, p] = roam::make_future<std::vector<long>>();
    c.send<&roamer::ask>(other, p);
    c.send<&roamer::move_to>(1u);  // deferred while ask() waits
    log = co_await std::move(f);
    after = co_await c.call<&roamer::here>();
    roam::exit(0);
  }, {"+serialize"});
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(log, (std::vector<long>{16, 0}));
  EXPECT_EQ(after, 1);
}

TEST(awaitables, a_task_resumed_by_a_future_runs_in_its_elements_context_and_its_move_follows) {
  static std::vector<long> log;
  log.clear();
  int rc = run_on(2, [](const roam::args&) -> roam::task<> {
    auto a = roam::create_array<waiter>(roam::array_options<1>({1}, roam::block_map()));
    auto [h, hp] = roam::make_future<roam::promise<long>>();
    auto [f, p] = roam::make_future<std::vector<long>>();
    a[0].send<&waiter::hop_after>(hp, p);
    roam::promise<long> wake = co_await std::move(h);
    wake.set_value(7L);
    a[0].send<&waiter::go>(0);  // sent after the move was asked for: follows the element to pe 1
    log = co_await std::move(f);
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(log, (std::vector<long>{7, 0, 1}));
}

TEST(awaitables, a_destroy_asked_while_a_task_waits_on_a_future_happens_after_it_resumes) {
  static long reply = 0;
  int rc = run_on(2, [](const roam::args&) -> roam::task<> {
    auto other = roam::create_array<answerer>(roam::array_options<1>({1}, roam::block_map()));
    auto a = roam::create_array<waiter>(roam::array_options<1>({1}, roam::block_map()));
    auto [f, p] = roam::make_future<std::vector<long>>();
    a[0].send<&waiter::ask>(other, p);
    a[0].send<&waiter::die>();  // deferred: ask() holds the element
    auto log = co_await std::move(f);
    reply = log.at(1);
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(reply, 42);
}

TEST(awaitables, sleep_for_resumes_on_the_same_pe_no_sooner_than_asked) {
  std::vector<long> got = run_vec(2, [](roam::promise<std::vector<long>> p) {
    auto a = roam::create_array<waiter>(roam::array_options<1>({2}, roam::block_map()));
    a[1].send<&waiter::nap>(30, p);
  });
  EXPECT_EQ(got, (std::vector<long>{1, 1, 1}));
}

TEST(awaitables, sleepers_wake_in_deadline_order) {
  static std::vector<int> order;
  order.clear();
  int rc = run_on(1, [](const roam::args&) -> roam::task<> {
    auto sleeper = [](int ms) -> roam::task<> {
      co_await roam::sleep_for(std::chrono::milliseconds(ms));
      order.push_back(ms);
    };
    co_await roam::when_all(sleeper(40), sleeper(10), sleeper(25), sleeper(0));
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(order, (std::vector<int>{0, 10, 25, 40}));
}

TEST(awaitables, tasks_sleeping_or_waiting_on_futures_at_exit_are_torn_down_cleanly) {
  for (int i = 0; i < 5; ++i) {
    int rc = run_on(2, [](const roam::args&) -> roam::task<> {
      auto a = roam::create_array<waiter>(roam::index<1>{4});
      a[0].send<&waiter::sleep_forever>();
      a[1].send<&waiter::sleep_forever>();
      auto [f, p] = roam::make_future<long>();
      (void)p;  // never fulfilled
      co_await roam::sleep_for(5ms);
      co_await roam::quiescence();
      roam::exit(0);
    });
    EXPECT_EQ(rc, 0);
  }
}

TEST(awaitables, quiescence_can_be_awaited_after_a_burst_of_messages) {
  static long seen = -1;
  pinger::g_pings = 0;
  int rc = run_on(2, [](const roam::args&) -> roam::task<> {
    auto a = roam::create_array<pinger>(roam::index<1>{4});
    for (int k = 0; k < 4; ++k) a[k].send<&pinger::ping>(50);
    co_await roam::quiescence();
    seen = pinger::g_pings;
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(seen, 4 * 51);
}

TEST(awaitables, elements_await_each_reduction_result_in_their_task) {
  std::vector<long> got = run_vec(2, [](roam::promise<std::vector<long>> p) {
    auto a = roam::create_array<summer>(roam::index<1>{6});
    a.send<&summer::run>(4, p);
  });
  // Round r: sum over i of (i + r) = 15 + 6r.
  EXPECT_EQ(got, (std::vector<long>{15, 21, 27, 33}));
}

TEST(awaitables, tagged_reduction_results_are_taken_by_round_while_several_are_in_flight) {
  for (const char* mode : {"", "+serialize"}) {
    std::vector<std::string> extra;
    if (*mode) extra.push_back(mode);
    std::vector<long> got = run_vec(2, [](roam::promise<std::vector<long>> p) {
      auto a = roam::create_array<tagged_summer>(roam::index<1>{6});
      a.send<&tagged_summer::run>(4, p);
    }, extra);
    // Round r: sum over i of i * (r + 1) = 15 (r + 1); taken last round first; then the barrier's 77.
    EXPECT_EQ(got, (std::vector<long>{3060, 2045, 1030, 15, 77})) << mode;
  }
}

TEST(awaitables, a_task_awaits_a_reduction_through_a_future_callback) {
  static long total = 0;
  int rc = run_on(2, [](const roam::args&) -> roam::task<> {
    auto a = roam::create_array<summer>(roam::index<1>{5});
    auto [done, cb] = roam::make_future_callback<long>();
    a.send<&summer::once>(cb);
    total = co_await std::move(done);
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(total, 100);
}

TEST(awaitables, awaiting_an_rvalue_future_moves_its_value_out) {
  static int copies = -1;
  static std::size_t size = 0;
  int rc = run_on(1, [](const roam::args&) -> roam::task<> {
    auto [f, p] = roam::make_future<counted>();
    counted c;
    c.v.assign(1000, 3);
    p.set_value(std::move(c));
    counted::copies = 0;
    counted got = co_await std::move(f);
    copies = counted::copies;
    size = got.v.size();
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(size, 1000u);
  EXPECT_EQ(copies, 0);
}

// ---- restartable tasks: packed moves of objects whose run() is suspended ----

// Sums the values of steps 0..n-1, each from its own message, moving to the
// next PE after every `hop` steps. Everything run() needs to carry on is in
// the pupped state, so after a packed move it simply starts again.
struct stepper : roam::element<stepper> {
  static constexpr auto restart_entry() { return &stepper::run; }
  stepper() = default;
  explicit stepper(roam::migrating) {}
  stepper(int n, int hop, roam::promise<std::vector<long>> done) : n_(n), hop_(hop), done_(done) {}

  roam::mailbox<int, long> value;  // (step, value)

  roam::task<> run() {
    ++starts_;
    while (step_ < n_) {
      auto [s, v] = co_await value.receive(step_);
      sum_ += v * (s + 1);
      ++step_;
      if (step_ % hop_ == 0 && step_ < n_) {
        pes_.push_back(static_cast<long>(roam::my_pe().value()));
        migrate_to(roam::pe_id{(roam::my_pe().value() + 1) % roam::num_pes()});
      }
    }
    done_.set_value(std::vector<long>{sum_, starts_, arrivals_});
  }
  void after_migration() { ++arrivals_; }
  void pup(roam::pup_er& p) { p | n_ | hop_ | done_ | step_ | sum_ | starts_ | arrivals_ | pes_ | value; }

  int n_ = 0, hop_ = 1;
  roam::promise<std::vector<long>> done_;
  int step_ = 0;
  long sum_ = 0;
  long starts_ = 0;
  long arrivals_ = 0;
  std::vector<long> pes_;
};

struct restart_chare : roam::chare<restart_chare> {
  static constexpr auto restart_entry() { return &restart_chare::run; }
  restart_chare() = default;
  explicit restart_chare(roam::migrating) {}
  explicit restart_chare(roam::promise<std::vector<long>> done) : done_(done) {}
  roam::mailbox<int> poke;
  roam::task<> run() {
    ++starts_;
    while (pokes_ < 3) {
      int to = co_await poke;
      ++pokes_;
      migrate_to(roam::pe_id{static_cast<std::uint32_t>(to)});
    }
    done_.set_value(std::vector<long>{pokes_, starts_, static_cast<long>(roam::my_pe().value())});
  }
  void pup(roam::pup_er& p) { p | done_ | pokes_ | starts_ | poke; }
  roam::promise<std::vector<long>> done_;
  long pokes_ = 0, starts_ = 0;
};

// Not restartable: a second task, started by a plain entry, is also suspended.
struct half_restartable : roam::element<half_restartable> {
  half_restartable() = default;
  explicit half_restartable(roam::migrating) {}
  roam::mailbox<int> a, b;
  roam::task<> run() { (void)co_await a; }
  static constexpr auto restart_entry = &half_restartable::run;  // the data-member form, after run
  roam::task<> other() { (void)co_await b; }
  void move_to(std::uint32_t pe) { migrate_to(roam::pe_id{pe}); }
  void pup(roam::pup_er& p) { p | a | b; }
};

TEST(restartable, a_suspended_restart_entry_task_moves_packed_and_carries_on_from_the_pupped_state) {
  static constexpr int n = 60;
  for (const char* mode : {"+serialize", ""}) {
    std::vector<std::string> extra;
    if (*mode) extra.push_back(mode);
    std::vector<long> got = run_vec(3, [](roam::promise<std::vector<long>> p) {
      auto a = roam::create_array<stepper>(roam::array_options<1>({1}, roam::block_map()), n, 7, p);
      a[0].send<&stepper::run>();
      // Values come early, late and out of order; they wait in the mailbox,
      // travel with the element, and follow it.
      for (int s = n - 1; s >= n / 2; --s) a[0].send<&stepper::value>(s, 1L);
      for (int s = 0; s < n / 2; ++s) a[0].send<&stepper::value>(s, 1L);
    }, extra);
    long expect = static_cast<long>(n) * (n + 1) / 2;
    // Packed: one start plus one restart per move; as itself: the task just
    // moves along. (Requests made between two suspensions make one move.)
    ASSERT_EQ(got.size(), 3u) << mode;
    EXPECT_EQ(got[0], expect) << mode;
    EXPECT_GE(got[2], 1) << mode;
    EXPECT_EQ(got[1], *mode ? 1 + got[2] : 1) << mode;
  }
}

TEST(restartable, a_chare_restart_entry_task_moves_packed) {
  std::vector<long> got = run_vec(3, [](roam::promise<std::vector<long>> p) {
    auto c = roam::create_chare_on<restart_chare>(roam::pe_id{0}, p);
    c.send<&restart_chare::run>();
    c.send<&restart_chare::poke>(2);
    c.send<&restart_chare::poke>(1);
    c.send<&restart_chare::poke>(0);
  }, {"+serialize"});
  // Three pokes, the last two restarted it after packed moves (the third
  // finished it: its move happened after run() ended), ending on pe 1.
  EXPECT_EQ(got, (std::vector<long>{3, 3, 1}));
}

TEST(restartable, a_packed_move_is_refused_while_a_task_other_than_the_restart_entry_is_suspended) {
  testing::internal::CaptureStderr();
  int rc = run_on(2, [](const roam::args&) {
    auto a = roam::create_array<half_restartable>(roam::array_options<1>({1}, roam::block_map()));
    a[0].send<&half_restartable::run>();
    a[0].send<&half_restartable::other>();
    a[0].send<&half_restartable::move_to>(1u);
  }, {"+serialize"});
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 1);
  EXPECT_NE(err.find("array awaittest::half_restartable[0] on pe 0: cannot migrate to pe 1 while 1 of its entry tasks "
                     "are suspended"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("restart_entry"), std::string::npos) << err;
}

}  // namespace awaittest
