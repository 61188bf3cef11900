#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>

#include "support/run_roam.hpp"

namespace section_test {

using roam_test::run_on;

namespace {

std::mutex g_mutex;
std::map<int, std::vector<int>> g_received;  // element -> tags, in arrival order

struct member : roam::element<member> {
  void tag(int t) {
    std::lock_guard lock(g_mutex);
    g_received[this_index()[0]].push_back(t);
  }
  // Reduce the element index over a section; each member of the section contributes.
  void reduce_over(roam::section_proxy<member> s, roam::callback<long> cb) {
    contribute(s, static_cast<long>(this_index()[0]), roam::sum, cb);
  }
};

std::uint32_t scatter(const roam::index<1>& i, const roam::index<1>&, std::uint32_t pes) {
  return static_cast<std::uint32_t>(i[0] * 7 + 3) % pes;
}

}  // namespace

TEST(sections, overlapping_multicasts_reach_exactly_their_members_in_one_order) {
  for (unsigned pes : {1u, 2u, 4u}) {
    g_received.clear();
    constexpr int n = 40;
    std::set<int> evens, thirds;
    for (int i = 0; i < n; i += 2) evens.insert(i);
    for (int i = 0; i < n; i += 3) thirds.insert(i);
    long even_sum = 0, third_sum = 0;
    for (int i : evens) even_sum += i;
    for (int i : thirds) third_sum += i;
    long got_even = 0, got_third = 0;
    int rc = run_on(pes, [&](const roam::args&) -> roam::task<> {
      auto a = roam::create_array<member>(roam::array_options<1>({n}, roam::custom_map<&scatter>()));
      auto even = roam::section_proxy<member>::where(a, [](const roam::index<1>& i) { return i[0] % 2 == 0; });
      std::vector<roam::index<1>> list;
      for (int i : thirds) list.push_back({i});
      auto third = roam::section_proxy<member>::of(a, list);
      for (int t = 0; t < 50; ++t) {
        even.send<&member::tag>(t);
        third.send<&member::tag>(1000 + t);
      }
      auto [fe, pe] = roam::make_future<long>();
      auto [ft, pt] = roam::make_future<long>();
      even.send<&member::reduce_over>(even, roam::callback<long>::to_future(pe));
      third.send<&member::reduce_over>(third, roam::callback<long>::to_future(pt));
      got_even = co_await fe;
      got_third = co_await ft;
      roam::exit(0);
    });
    ASSERT_EQ(rc, 0);
    EXPECT_EQ(got_even, even_sum) << pes;
    EXPECT_EQ(got_third, third_sum) << pes;
    for (int i = 0; i < n; ++i) {
      std::vector<int> expect;
      for (int t = 0; t < 50; ++t) {
        if (evens.count(i)) expect.push_back(t);
      }
      std::vector<int> got_plain, got_third_tags;
      for (int t : g_received[i]) (t < 1000 ? got_plain : got_third_tags).push_back(t);
      EXPECT_EQ(got_plain, expect) << "element " << i;
      EXPECT_EQ(got_third_tags.size(), thirds.count(i) ? 50u : 0u) << "element " << i;
      for (std::size_t k = 0; k < got_third_tags.size(); ++k) EXPECT_EQ(got_third_tags[k], 1000 + static_cast<int>(k));
    }
  }
}

namespace {
std::vector<long> g_results;
void take_result(long v) { g_results.push_back(v); }
struct flooder : roam::element<flooder> {
  void flood(roam::section_proxy<flooder> s, int times, roam::callback<long> cb) {
    for (int k = 0; k < times; ++k) contribute(s, static_cast<long>(k) * this_index()[0], roam::sum, cb);
  }
};
}  // namespace

TEST(sections, many_section_reductions_in_flight_come_out_in_order) {
  g_results.clear();
  int rc = run_on(2, [](const roam::args&) {
    auto a = roam::create_array<flooder>({30});
    auto s = roam::section_proxy<flooder>::where(a, [](const roam::index<1>& i) { return i[0] >= 10; });
    s.send<&flooder::flood>(s, 100, roam::callback<long>::function<&take_result>(roam::pe_id{0}));
    roam::on_quiescence(roam::callback<>::function<&roam_test::exit_zero>(roam::pe_id{0}));
  });
  EXPECT_EQ(rc, 0);
  ASSERT_EQ(g_results.size(), 100u);
  long index_sum = 0;
  for (int i = 10; i < 30; ++i) index_sum += i;
  for (long k = 0; k < 100; ++k) EXPECT_EQ(g_results[k], k * index_sum);
}

namespace {
std::atomic<int> g_group_hits{0};
struct gmember : roam::group_member<gmember> {
  void hit(roam::group_section_proxy<gmember> s, roam::callback<std::vector<std::uint32_t>> cb) {
    ++g_group_hits;
    contribute(s, roam::my_pe().value(), roam::concat, cb);
  }
};
}  // namespace

TEST(sections, a_group_section_multicasts_and_reduces_over_its_pes_only) {
  g_group_hits = 0;
  std::vector<std::uint32_t> got;
  int rc = run_on(4, [&](const roam::args&) -> roam::task<> {
    auto g = roam::create_group<gmember>();
    auto s = roam::group_section_proxy<gmember>::of(g, {roam::pe_id{3}, roam::pe_id{1}});
    auto [f, p] = roam::make_future<std::vector<std::uint32_t>>();
    s.send<&gmember::hit>(s, roam::callback<std::vector<std::uint32_t>>::to_future(p));
    got = co_await f;
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(got, (std::vector<std::uint32_t>{1, 3}));
  EXPECT_EQ(g_group_hits.load(), 2);
}

// ---- the multicast tree is rooted at the PE that made the section ---------------

namespace {
std::mutex g_rooted_mutex;
std::map<int, std::vector<int>> g_rooted;  // member -> tags, in arrival order

struct listener : roam::element<listener> {
  void tag(int t) {
    std::lock_guard lock(g_rooted_mutex);
    g_rooted[this_index()[0]].push_back(t);
  }
};

// One per PE (block map over as many elements as PEs).
struct maker : roam::element<maker> {
  // Makes a section of every listener and reports the PE its tree starts at.
  void make(roam::array_proxy<listener> all, int n, roam::callback<std::vector<std::vector<int>>> where) {
    std::vector<roam::index<1>> members;
    for (int i = 0; i < n; ++i) members.push_back({i});
    auto s = roam::section_proxy<listener>::of(all, members);
    const auto* d = s.descriptor();
    contribute(std::vector<int>{static_cast<int>(roam::my_pe().value()), static_cast<int>(d->pes[d->root])},
               roam::concat, where);
  }
  // Every maker multicasts to the same section: `count` tags of its own.
  void flood(roam::section_proxy<listener> s, int count) {
    for (int t = 0; t < count; ++t) s.send<&listener::tag>(this_index()[0] * 1000 + t);
  }
};
}  // namespace

TEST(sections, a_multicast_tree_starts_where_the_section_was_made_and_keeps_one_order_p4) {
  constexpr int n = 24, per_sender = 30;
  const unsigned pes = 4;
  g_rooted.clear();
  std::vector<std::vector<int>> roots;
  int rc = run_on(pes, [&](const roam::args&) -> roam::task<> {
    auto listeners = roam::create_array<listener>(roam::array_options<1>({n}, roam::custom_map<&scatter>()));
    auto makers = roam::create_array<maker>(roam::index<1>{static_cast<int>(pes)});
    auto [fr, pr] = roam::make_future<std::vector<std::vector<int>>>();
    makers.send<&maker::make>(listeners, n, roam::callback<std::vector<std::vector<int>>>::to_future(pr));
    roots = co_await fr;
    // One section (made here, on PE 0), flooded from every PE at once.
    std::vector<roam::index<1>> members;
    for (int i = 0; i < n; ++i) members.push_back({i});
    auto shared = roam::section_proxy<listener>::of(listeners, members);
    makers.send<&maker::flood>(shared, per_sender);
    co_await roam::quiescence();
    roam::exit(0);
  });
  ASSERT_EQ(rc, 0);
  ASSERT_EQ(roots.size(), pes);
  for (const auto& r : roots) EXPECT_EQ(r[0], r[1]) << "the section made on pe " << r[0] << " starts its tree elsewhere";
  // Four senders on four PEs, one section: every listener sees all 120 tags,
  // each sender's in its order, and all listeners the same interleaving.
  ASSERT_EQ(g_rooted.size(), static_cast<std::size_t>(n));
  for (const auto& [i, tags] : g_rooted) {
    EXPECT_EQ(tags.size(), static_cast<std::size_t>(pes * per_sender)) << "listener " << i;
    EXPECT_EQ(tags, g_rooted.begin()->second) << "listener " << i << " saw another order";
    std::map<int, int> next;
    for (int t : tags) EXPECT_EQ(t % 1000, next[t / 1000]++) << "listener " << i;
  }
}

}  // namespace section_test
