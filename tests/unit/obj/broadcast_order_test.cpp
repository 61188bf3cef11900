#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <vector>

#include "support/run_roam.hpp"

namespace broadcast_order_test {

using roam_test::run_on;

namespace {

std::mutex g_mutex;
std::map<std::vector<int>, std::vector<std::pair<int, int>>> g_logs;  // member -> (sender, seq) in arrival order

struct finish_line : roam::chare<finish_line> {
  explicit finish_line(int expected) : expected_(expected) {}
  void arrived() {
    if (++seen_ == expected_) roam::exit(0);
  }
  int expected_, seen_ = 0;
};

struct listener : roam::element<listener, roam::index<1>> {
  listener(roam::chare_proxy<finish_line> f, int expected) : finish_(f), expected_(expected) {}
  void news(int sender, int seq) {
    std::lock_guard lock(g_mutex);
    g_logs[{this_index()[0]}].emplace_back(sender, seq);
    if (++received_ == expected_) finish_.send<&finish_line::arrived>();
  }
  roam::chare_proxy<finish_line> finish_;
  int expected_, received_ = 0;
};

struct group_listener : roam::group_member<group_listener> {
  group_listener(roam::chare_proxy<finish_line> f, int expected) : finish_(f), expected_(expected) {}
  void news(int sender, int seq) {
    std::lock_guard lock(g_mutex);
    g_logs[{-1, static_cast<int>(roam::my_pe().value())}].emplace_back(sender, seq);
    if (++received_ == expected_) finish_.send<&finish_line::arrived>();
  }
  roam::chare_proxy<finish_line> finish_;
  int expected_, received_ = 0;
};

struct announcer : roam::group_member<announcer> {
  void go(roam::array_proxy<listener> a, roam::group_proxy<group_listener> g, int count) {
    int me = static_cast<int>(roam::my_pe().value());
    for (int i = 0; i < count; ++i) {
      a.send<&listener::news>(me, i);
      g.send<&group_listener::news>(me, i);
    }
  }
};

}  // namespace

TEST(broadcasts, from_several_pes_reach_every_member_once_in_one_common_order) {
  for (unsigned pes : {1u, 2u, 4u}) {
    for (std::string bfactor : {"2", "4"}) {
      g_logs.clear();
      constexpr int per_sender = 200;
      constexpr int elements = 13;
      int expected = per_sender * static_cast<int>(pes);
      int rc = run_on(pes, [&](const roam::args&) {
        auto f = roam::create_chare_on<finish_line>(roam::pe_id{0}, elements + static_cast<int>(pes));
        auto a = roam::create_array<listener>(roam::array_options<1>({elements}, roam::round_robin_map()), f, expected);
        auto g = roam::create_group<group_listener>(f, expected);
        auto senders = roam::create_group<announcer>();
        senders.send<&announcer::go>(a, g, per_sender);
      }, {"+bfactor", bfactor});
      ASSERT_EQ(rc, 0) << pes << " PEs";
      ASSERT_EQ(g_logs.size(), static_cast<std::size_t>(elements) + pes);
      // Within one collection every member saw the same order, and each
      // sender's broadcasts in its send order. (Keys {-1, pe} are group members.)
      const auto& group_reference = g_logs.begin()->second;
      const auto& array_reference = g_logs.rbegin()->second;
      for (const auto* reference : {&group_reference, &array_reference}) {
        ASSERT_EQ(reference->size(), static_cast<std::size_t>(expected));
        std::map<int, int> next;
        for (auto [sender, seq] : *reference) EXPECT_EQ(seq, next[sender]++);
      }
      for (const auto& [member, log] : g_logs)
        EXPECT_EQ(log, member[0] < 0 ? group_reference : array_reference) << "member " << member[0];
    }
  }
}

}  // namespace broadcast_order_test
