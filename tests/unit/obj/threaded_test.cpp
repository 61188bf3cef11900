// Threaded entry methods (issue #6 item 5): entries listed in threaded_entries()
// run on user-level threads and may block on futures without blocking their PE.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <regex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "support/run_roam.hpp"

// A named namespace: error texts name these types the same way on every compiler.
namespace thr {

using roam_test::run_on;

// ---- many threads blocked at once -------------------------------------------

struct releaser : roam::group_member<releaser> {
  void release(std::vector<roam::promise<int>> ps, std::vector<int> values) {
    for (std::size_t i = 0; i < ps.size(); ++i) ps[i].set_value(values[i]);
  }
};

struct collector : roam::chare<collector> {
  collector(int n, unsigned seed, roam::group_proxy<releaser> r) : n_(n), rng_(seed), releasers_(r) {}
  // Once every waiter is blocked, the values go out in random order, each
  // through a random PE.
  void take(int idx, roam::promise<int> p) {
    waiting_.emplace_back(idx, p);
    if (static_cast<int>(waiting_.size()) < n_) return;
    std::shuffle(waiting_.begin(), waiting_.end(), rng_);
    std::uniform_int_distribution<std::uint32_t> pe(0, roam::num_pes() - 1);
    for (std::size_t i = 0; i < waiting_.size(); i += 7) {
      std::vector<roam::promise<int>> ps;
      std::vector<int> values;
      for (std::size_t k = i; k < std::min(i + 7, waiting_.size()); ++k) {
        ps.push_back(waiting_[k].second);
        values.push_back(waiting_[k].first * 3);
      }
      releasers_[roam::pe_id{pe(rng_)}].send<&releaser::release>(std::move(ps), std::move(values));
    }
  }
  void finished(bool ok) {
    ok_ += ok;
    if (++done_ == n_) roam::exit(ok_ == n_ ? 0 : 3);
  }

 private:
  int n_, done_ = 0, ok_ = 0;
  std::mt19937 rng_;
  roam::group_proxy<releaser> releasers_;
  std::vector<std::pair<int, roam::promise<int>>> waiting_;
};

struct waiter : roam::element<waiter> {
  static constexpr auto threaded_entries() { return roam::entry_list<&waiter::wait>{}; }
  void wait(roam::chare_proxy<collector> c) {
    auto [f, p] = roam::make_future<int>();
    c.send<&collector::take>(this_index()[0], p);
    int v = f.get();
    c.send<&collector::finished>(v == this_index()[0] * 3 && roam::in_user_thread());
  }
};

// ---- ping-pong on one PE ------------------------------------------------------

struct player : roam::element<player> {
  static constexpr auto threaded_entries() { return roam::entry_list<&player::serve, &player::volley>{}; }
  int volley(int x) {
    roam::this_thread_yield();  // a threaded entry may block before answering
    return x + 1;
  }
  void serve(int rounds, roam::promise<int> done) {
    auto other = this_array()[1 - this_index()[0]];
    int x = 0;
    for (int i = 0; i < rounds; ++i) x = other.call<&player::volley>(x).get();
    done.set_value(x);
  }
};

// ---- errors -------------------------------------------------------------------

struct bomb : roam::element<bomb> {
  static constexpr auto threaded_entries() { return roam::entry_list<&bomb::explode_later, &bomb::refuse>{}; }
  void explode_later(int at) {
    roam::this_thread_yield();
    if (this_index()[0] == at) throw std::runtime_error("boom after blocking");
  }
  int refuse(int x) {
    roam::this_thread_yield();
    throw std::invalid_argument("refused " + std::to_string(x));
  }
};

// ---- migration and destruction wait for the threads ----------------------------

struct mover : roam::element<mover> {
  static constexpr auto threaded_entries() { return roam::entry_list<&mover::block>{}; }
  mover() = default;
  explicit mover(roam::migrating) {}
  void pup(roam::pup_er& p) { p | thread_done | arrived; }

  // Hands main the promise that releases it, then blocks.
  void block(roam::promise<roam::promise<>> give) {
    auto [f, p] = roam::make_future<>();
    give.set_value(p);
    f.get();
    thread_done = roam::my_pe().value() == 0;  // still on PE 0 when it resumed
  }
  void go(std::uint32_t pe, roam::promise<std::vector<int>> arrival) {
    arrived = arrival;
    migrate_to(roam::pe_id{pe});  // deferred: block's thread holds this object
  }
  int where() const { return static_cast<int>(roam::my_pe().value()); }
  void after_migration() { arrived.set_value(std::vector<int>{static_cast<int>(roam::my_pe().value()), thread_done}); }

  bool thread_done = false;
  roam::promise<std::vector<int>> arrived;
};

struct nomad : roam::chare<nomad> {
  static constexpr auto threaded_entries() { return roam::entry_list<&nomad::block>{}; }
  nomad() = default;
  explicit nomad(roam::migrating) {}
  void pup(roam::pup_er& p) { p | thread_done | arrived; }

  void block(roam::promise<roam::promise<>> give) {
    auto [f, p] = roam::make_future<>();
    give.set_value(p);
    f.get();
    thread_done = roam::my_pe().value() == 0;
  }
  void go(std::uint32_t pe, roam::promise<std::vector<int>> arrival) {
    arrived = arrival;
    migrate_to(roam::pe_id{pe});  // deferred while block's thread runs
  }
  int where() const { return static_cast<int>(roam::my_pe().value()); }
  void after_migration() { arrived.set_value(std::vector<int>{static_cast<int>(roam::my_pe().value()), thread_done}); }

  bool thread_done = false;
  roam::promise<std::vector<int>> arrived;
};

inline int g_sleepers_destroyed = 0;
struct sleeper : roam::chare<sleeper> {
  static constexpr auto threaded_entries() { return roam::entry_list<&sleeper::nap>{}; }
  ~sleeper() { ++g_sleepers_destroyed; }
  void nap(roam::promise<roam::promise<>> give, roam::promise<int> woke) {
    auto [f, p] = roam::make_future<>();
    give.set_value(p);
    f.get();
    state_ = 42;  // the object must still exist: its destruction waited for this thread
    woke.set_value(state_ + g_sleepers_destroyed);
  }
  int state_ = 0;
};

std::uint32_t on_pe0(const roam::index<1>&, const roam::index<1>&, std::uint32_t) { return 0; }

TEST(threaded_entries, a_thousand_block_at_once_on_futures_fulfilled_from_other_pes_in_random_order) {
  unsigned seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  const int n = 1000;
  int rc = run_on(3, [seed, n](const roam::args&) {
    auto r = roam::create_group<releaser>();
    auto c = roam::create_chare_on<collector>(roam::pe_id{0}, n, seed, r);
    auto w = roam::create_array<waiter>(roam::index<1>{n});
    w.send<&waiter::wait>(c);  // a broadcast
  });
  EXPECT_EQ(rc, 0) << "seed " << seed;
}

TEST(threaded_entries, two_threaded_entries_on_one_pe_play_ping_pong_through_call_futures) {
  int result = 0;
  int rc = run_on(2, [&](const roam::args&) -> roam::task<> {
    auto players = roam::create_array<player>(roam::array_options<1>{{2}, roam::custom_map<&on_pe0>()});
    auto [f, p] = roam::make_future<int>();
    players[0].send<&player::serve>(100, p);
    result = co_await f;
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(result, 100);
}

TEST(threaded_entries, an_exception_after_blocking_names_pe_object_index_and_entry) {
  testing::internal::CaptureStderr();
  int rc = run_on(2, [](const roam::args&) {
    auto a = roam::create_array<bomb>(roam::index<1>{4});
    a.send<&bomb::explode_later>(3);  // a broadcast
  });
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 1);
  EXPECT_TRUE(std::regex_search(
      err, std::regex(R"(\[pe 1/2\] array thr::bomb\[3\] entry thr::bomb::explode_later: uncaught exception: boom after blocking)")))
      << err;
}

TEST(threaded_entries, an_exception_in_a_called_threaded_entry_reaches_the_callers_future) {
  std::string what;
  int rc = run_on(2, [&](const roam::args&) -> roam::task<> {
    auto a = roam::create_array<bomb>(roam::index<1>{2});
    try {
      (void)co_await a[1].call<&bomb::refuse>(5);
    } catch (const std::invalid_argument& e) {
      what = e.what();
    }
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(what, "refused 5");
}

TEST(threaded_entries, migration_requested_while_a_thread_is_blocked_waits_until_it_ends) {
  int where_while_blocked = -1;
  std::vector<int> arrival;
  int rc = run_on(2, [&](const roam::args&) -> roam::task<> {
    auto a = roam::create_array<mover>(roam::array_options<1>{{1}, roam::custom_map<&on_pe0>()});
    auto [got_release, give] = roam::make_future<roam::promise<>>();
    a[0].send<&mover::block>(give);
    roam::promise<> release = co_await got_release;  // the thread is blocked now
    auto [arrived, arrival_promise] = roam::make_future<std::vector<int>>();
    a[0].send<&mover::go>(1u, arrival_promise);
    where_while_blocked = co_await a[0].call<&mover::where>();
    release.set_value();
    arrival = co_await arrived;
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(where_while_blocked, 0) << "the element left while its thread was blocked";
  EXPECT_EQ(arrival, (std::vector<int>{1, 1})) << "it moved to PE 1 after its thread ended on PE 0";
}

TEST(threaded_entries, a_chare_destroyed_while_its_thread_is_blocked_dies_when_the_thread_ends) {
  g_sleepers_destroyed = 0;
  int woke = 0, destroyed_while_blocked = -1;
  int rc = run_on(1, [&](const roam::args&) -> roam::task<> {
    auto s = roam::create_chare_on<sleeper>(roam::pe_id{0});
    auto [got_release, give] = roam::make_future<roam::promise<>>();
    auto [woke_f, woke_p] = roam::make_future<int>();
    s.send<&sleeper::nap>(give, woke_p);
    roam::promise<> release = co_await got_release;
    s.destroy();
    auto [tick, tock] = roam::make_future<>();
    tock.set_value();
    co_await tick;  // the destroy message has run by now
    destroyed_while_blocked = g_sleepers_destroyed;
    release.set_value();
    woke = co_await woke_f;
    auto [tick2, tock2] = roam::make_future<>();
    tock2.set_value();
    co_await tick2;
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(destroyed_while_blocked, 0);
  EXPECT_EQ(woke, 42) << "the thread saw its object alive";
  EXPECT_EQ(g_sleepers_destroyed, 1);
}

TEST(threaded_entries, a_chare_asked_to_migrate_while_its_thread_is_blocked_moves_after_it_ends) {
  int where_while_blocked = -1;
  std::vector<int> arrival;
  int rc = run_on(2, [&](const roam::args&) -> roam::task<> {
    auto c = roam::create_chare_on<nomad>(roam::pe_id{0});
    auto [got_release, give] = roam::make_future<roam::promise<>>();
    c.send<&nomad::block>(give);
    roam::promise<> release = co_await got_release;
    auto [arrived, arrival_promise] = roam::make_future<std::vector<int>>();
    c.send<&nomad::go>(1u, arrival_promise);
    where_while_blocked = co_await c.call<&nomad::where>();
    release.set_value();
    arrival = co_await arrived;
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(where_while_blocked, 0);
  EXPECT_EQ(arrival, (std::vector<int>{1, 1}));
}

}  // namespace thr
