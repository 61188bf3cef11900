// array_options::bind_to: elements of a bound array are made where the other
// array's elements with the same index live (its map, not their own), and
// migrate with them.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "support/run_roam.hpp"

namespace bind_to_test {

namespace {

constexpr int n = 8;
std::vector<std::uint32_t> g_before, g_after;  // written by the test's main coroutine only

struct leader : roam::element<leader> {
  leader() = default;
  explicit leader(roam::migrating) {}
  void pup(roam::pup_er&) {}
  std::uint32_t where() { return roam::my_pe().value(); }
  void hop(roam::callback<> done) {
    migrate_to(roam::pe_id{(roam::my_pe().value() + 1) % roam::num_pes()});
    contribute(done);
  }
};

struct follower : roam::element<follower> {
  follower() = default;
  explicit follower(roam::migrating) {}
  void pup(roam::pup_er&) {}
  std::uint32_t where() { return roam::my_pe().value(); }
};

// Where follower i is, minus where leader i is (0 everywhere when bound).
std::vector<std::uint32_t> places(unsigned pes, bool hop) {
  g_before.clear();
  g_after.clear();
  const int rc = roam_test::run_on(pes, [hop](const roam::args&) -> roam::task<> {
    // The leader is round-robin; the follower's own map (block) would put
    // index 1 on PE 0 on 2 PEs: bound, it must follow the leader's.
    auto leaders = roam::create_array<leader>(roam::array_options<1>(roam::index<1>{n}, roam::round_robin_map()));
    auto followers = roam::create_array<follower>(
        roam::array_options<1>(roam::index<1>{n}, roam::block_map()).bind_to(leaders));
    for (int i = 0; i < n; ++i) {
      g_before.push_back(co_await leaders[i].call<&leader::where>());
      g_before.push_back(co_await followers[i].call<&follower::where>());
    }
    if (hop) {
      auto [f, p] = roam::make_future<void>();
      leaders.send<&leader::hop>(roam::callback<>::to_future(p));
      co_await f;
      co_await roam::quiescence();
      for (int i = 0; i < n; ++i) {
        g_after.push_back(co_await leaders[i].call<&leader::where>());
        g_after.push_back(co_await followers[i].call<&follower::where>());
      }
    }
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  return g_before;
}

}  // namespace

TEST(bind_to, made_where_the_other_arrays_elements_live) {
  const auto before = places(2, false);
  ASSERT_EQ(before.size(), 2u * n);
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(before[2 * i], static_cast<std::uint32_t>(i % 2)) << "leader " << i << " (round robin)";
    EXPECT_EQ(before[2 * i + 1], before[2 * i]) << "follower " << i;
  }
}

TEST(bind_to, migrate_with_them) {
  places(3, true);
  ASSERT_EQ(g_after.size(), 2u * n);
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(g_after[2 * i], (g_before[2 * i] + 1) % 3) << "leader " << i << " moved one PE on";
    EXPECT_EQ(g_after[2 * i + 1], g_after[2 * i]) << "follower " << i << " moved with it";
  }
}

}  // namespace bind_to_test
