#include <gtest/gtest.h>

#include <stdexcept>

#include "support/run_roam.hpp"

namespace futures_test {

using roam_test::run_on;

namespace {
struct calc : roam::chare<calc> {
  int square(int x) const { return x * x; }
  void nothing() {}
  int fail(int) { throw std::runtime_error("bad input"); }
  roam::task<std::string> later(std::string s, roam::chare_proxy<calc> other) {
    int sq = co_await other.call<&calc::square>(static_cast<int>(s.size()));
    co_return s + ":" + std::to_string(sq);
  }
};
}  // namespace

TEST(futures, call_returns_the_entry_result_from_another_pe) {
  for (unsigned pes : {1u, 2u, 4u}) {
    int got = 0;
    int rc = run_on(pes, [&, pes](const roam::args&) -> roam::task<> {
      auto c = roam::create_chare_on<calc>(roam::pe_id{pes - 1});
      got = co_await c.call<&calc::square>(12);
      co_await c.call<&calc::nothing>();
      roam::exit(0);
    });
    EXPECT_EQ(rc, 0);
    EXPECT_EQ(got, 144);
  }
}

TEST(futures, an_exception_in_the_callee_is_rethrown_at_the_caller) {
  std::string what;
  int rc = run_on(2, [&](const roam::args&) -> roam::task<> {
    auto c = roam::create_chare_on<calc>(roam::pe_id{1});
    try {
      co_await c.call<&calc::fail>(1);
    } catch (const std::runtime_error& e) {
      what = e.what();
    }
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(what, "bad input");
}

TEST(futures, a_coroutine_entry_may_await_other_calls_before_returning) {
  std::string got;
  int rc = run_on(2, [&](const roam::args&) -> roam::task<> {
    auto a = roam::create_chare_on<calc>(roam::pe_id{0});
    auto b = roam::create_chare_on<calc>(roam::pe_id{1});
    got = co_await a.call<&calc::later>(std::string("abc"), b);
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(got, "abc:9");
}

TEST(futures, a_promise_sent_away_is_fulfilled_on_the_futures_pe) {
  struct fulfiller : roam::group_member<fulfiller> {
    void answer(roam::promise<int> p) { p.set_value(static_cast<int>(roam::my_pe().value()) * 10); }
  };
  int sum = 0;
  int rc = run_on(4, [&](const roam::args&) -> roam::task<> {
    auto g = roam::create_group<fulfiller>();
    std::vector<roam::future<int>> fs;
    for (unsigned pe = 0; pe < 4; ++pe) {
      auto [f, p] = roam::make_future<int>();
      g[roam::pe_id{pe}].send<&fulfiller::answer>(p);
      fs.push_back(f);
    }
    for (auto& f : fs) sum += co_await f;
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(sum, 60);
}

TEST(futures, get_before_the_value_arrives_is_a_clear_error) {
  bool threw = false;
  int rc = run_on(1, [&](const roam::args&) {
    auto [f, p] = roam::make_future<int>();
    try {
      (void)f.get();
    } catch (const roam::future_error&) {
      threw = true;
    }
    p.set_value(1);
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_TRUE(threw);
}

TEST(futures, a_packed_exception_arrives_as_a_remote_error_with_its_text) {
  std::string what;
  bool remote = false;
  int rc = run_on(2, [&](const roam::args&) -> roam::task<> {
    auto c = roam::create_chare_on<calc>(roam::pe_id{1});
    try {
      co_await c.call<&calc::fail>(1);
    } catch (const roam::remote_error& e) {
      remote = true;
      what = e.what();
    }
    roam::exit(0);
  }, {"+serialize"});
  EXPECT_EQ(rc, 0);
  EXPECT_TRUE(remote);
  EXPECT_EQ(what, "bad input");
}

}  // namespace futures_test
