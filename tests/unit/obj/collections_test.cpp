#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <vector>

#include "support/run_roam.hpp"

namespace collections_test {

using roam_test::run_on;

namespace {

// Counts deliveries per element in a process-wide table the test inspects.
std::mutex g_mutex;
std::map<std::vector<int>, int> g_hits;
std::set<std::pair<std::vector<int>, unsigned>> g_where;

struct cell : roam::element<cell, roam::index<2>> {
  explicit cell(roam::chare_proxy<struct done_counter> d) : done_(d) {}
  void hit(int tag);
  roam::chare_proxy<struct done_counter> done_;
};

struct done_counter : roam::chare<done_counter> {
  explicit done_counter(int expected) : expected_(expected) {}
  void done() {
    if (++seen_ == expected_) roam::exit(0);
  }
  int expected_;
  int seen_ = 0;
};

void cell::hit(int tag) {
  {
    std::lock_guard lock(g_mutex);
    g_hits[{this_index()[0], this_index()[1], tag}]++;
    g_where.insert({{this_index()[0], this_index()[1]}, roam::my_pe().value()});
  }
  done_.send<&done_counter::done>();
}

std::uint32_t diagonal_map(const roam::index<2>& i, const roam::index<2>&, std::uint32_t pes) {
  return static_cast<std::uint32_t>(i[0] + i[1]) % pes;
}

}  // namespace

TEST(arrays, a_broadcast_reaches_every_element_exactly_once) {
  for (unsigned pes : {1u, 2u, 4u}) {
    for (auto map : {roam::block_map(), roam::round_robin_map(), roam::custom_map<&diagonal_map>()}) {
      g_hits.clear();
      g_where.clear();
      int rc = run_on(pes, [map](const roam::args&) {
        auto d = roam::create_chare_on<done_counter>(roam::pe_id{0}, 5 * 7 * 3);
        auto cells = roam::create_array<cell>(roam::array_options<2>({5, 7}, map), d);
        for (int tag = 0; tag < 3; ++tag) cells.send<&cell::hit>(tag);
      });
      ASSERT_EQ(rc, 0);
      EXPECT_EQ(g_hits.size(), 5u * 7u * 3u) << map.name << " on " << pes;
      for (auto& [key, count] : g_hits) EXPECT_EQ(count, 1) << map.name;
      // Each element lives where its map says.
      for (auto& [idx, pe] : g_where) {
        roam::index<2> i{idx[0], idx[1]};
        EXPECT_EQ(pe, map.fn(roam::detail::to_storage(i), roam::detail::to_storage(roam::index<2>{5, 7}), 2, pes));
      }
    }
  }
}

TEST(arrays, block_map_gives_contiguous_balanced_blocks) {
  roam::detail::index_storage shape;
  shape.v[0] = 10;
  std::vector<int> per_pe(4, 0);
  std::uint32_t last = 0;
  for (int i = 0; i < 10; ++i) {
    roam::detail::index_storage idx;
    idx.v[0] = i;
    std::uint32_t pe = roam::block_map().fn(idx, shape, 1, 4);
    EXPECT_GE(pe, last);
    last = pe;
    per_pe[pe]++;
  }
  for (int n : per_pe) EXPECT_TRUE(n == 2 || n == 3);
}

namespace {
struct member_counter : roam::group_member<member_counter> {
  member_counter(roam::chare_proxy<done_counter> d, int expected) : done_(d), expected_(expected) {}
  void ping(int from) {
    {
      std::lock_guard lock(g_mutex);
      g_hits[{static_cast<int>(roam::my_pe().value()), from}]++;
    }
    if (++received_ == expected_) done_.send<&done_counter::done>();
  }
  roam::chare_proxy<done_counter> done_;
  int expected_;
  int received_ = 0;
};

struct broadcaster : roam::group_member<broadcaster> {
  void fire(roam::group_proxy<member_counter> g, int times) {
    for (int i = 0; i < times; ++i) g.send<&member_counter::ping>(static_cast<int>(roam::my_pe().value()));
  }
};
}  // namespace

TEST(groups, broadcasts_from_every_pe_reach_every_member_exactly_once_each) {
  for (unsigned pes : {1u, 2u, 4u}) {
    g_hits.clear();
    int rc = run_on(pes, [pes](const roam::args&) {
      auto d = roam::create_chare_on<done_counter>(roam::pe_id{0}, static_cast<int>(pes));
      auto g = roam::create_group<member_counter>(d, static_cast<int>(pes) * 10);
      auto b = roam::create_group<broadcaster>();
      b.send<&broadcaster::fire>(g, 10);
    });
    ASSERT_EQ(rc, 0);
    EXPECT_EQ(g_hits.size(), pes * pes);
    for (auto& [k, v] : g_hits) EXPECT_EQ(v, 10);
  }
}

TEST(groups, local_member_exists_on_the_creating_pe_at_once) {
  bool has_local = false;
  int rc = run_on(2, [&](const roam::args&) {
    auto d = roam::create_chare_on<done_counter>(roam::pe_id{0}, 1);
    auto g = roam::create_group<member_counter>(d, 1);
    has_local = g.local() != nullptr;
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_TRUE(has_local);
}

namespace {
// Exits 0 when the last exclusive add saw an exact total and no overlap, else 3.
struct shared_counter : roam::nodegroup_member<shared_counter> {
  static constexpr auto exclusive_entries() { return roam::entry_list<&shared_counter::add>{}; }
  explicit shared_counter(int expected) : expected_(expected) {}
  void add(int n) {
    if (inside_.exchange(true)) overlapped_ = true;
    long v = value_;  // a deliberately non-atomic read-modify-write
    for (int i = 0; i < 50; ++i) asm volatile("" ::: "memory");
    value_ = v + n;
    inside_ = false;
    if (++calls_ == expected_) roam::exit(value_ == expected_ && !overlapped_ ? 0 : 3);
  }
  std::atomic<bool> inside_{false};
  bool overlapped_ = false;
  long value_ = 0;
  int calls_ = 0;
  int expected_;
};

struct adder : roam::group_member<adder> {
  void go(roam::nodegroup_proxy<shared_counter> ng, int times) {
    for (int i = 0; i < times; ++i) ng.send<&shared_counter::add>(1);
  }
};
}  // namespace

TEST(nodegroups, exclusive_entries_never_overlap_and_lose_no_update) {
  for (unsigned pes : {2u, 4u}) {
    const int per_pe = 5000;
    int rc = run_on(pes, [pes, per_pe](const roam::args&) {
      auto ng = roam::create_nodegroup<shared_counter>(static_cast<int>(pes) * per_pe);
      auto adders = roam::create_group<adder>();
      adders.send<&adder::go>(ng, per_pe);
    });
    EXPECT_EQ(rc, 0) << pes;
  }
}

namespace {
std::atomic<int> g_max_concurrent{0};
std::atomic<int> g_concurrent{0};
struct open_counter : roam::nodegroup_member<open_counter> {
  explicit open_counter(int expected) : expected_(expected) {}
  void work() {
    int now = ++g_concurrent;
    int seen = g_max_concurrent.load();
    while (now > seen && !g_max_concurrent.compare_exchange_weak(seen, now)) {
    }
    for (int i = 0; i < 2000; ++i) asm volatile("" ::: "memory");
    --g_concurrent;
    if (++calls_ == expected_) roam::exit(0);
  }
  std::atomic<int> calls_{0};
  int expected_;
};
struct work_sender : roam::group_member<work_sender> {
  void go(roam::nodegroup_proxy<open_counter> ng, int times) {
    for (int i = 0; i < times; ++i) ng.send<&open_counter::work>();
  }
};
}  // namespace

TEST(nodegroups, every_message_runs_once_on_some_pe_of_the_node) {
  const int per_pe = 3000;
  int rc = run_on(2, [per_pe](const roam::args&) {
    auto ng = roam::create_nodegroup<open_counter>(2 * per_pe);
    auto senders = roam::create_group<work_sender>();
    senders.send<&work_sender::go>(ng, per_pe);
  });
  EXPECT_EQ(rc, 0);
}

}  // namespace collections_test
