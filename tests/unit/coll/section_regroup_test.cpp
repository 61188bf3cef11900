// Section multicasts after members migrate: the root regroups the tree by
// where the members are now (src/obj/section_regroup.cpp), every member
// still sees every multicast exactly once and, while it stays put, in order;
// the newest layout places each member on the PE it lives on.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <roam/obj/detail/sections.hpp>

#include "support/run_roam.hpp"

namespace section_regroup_test {

using roam_test::run_on;

namespace {

struct receipt {
  int tag;
  std::uint32_t pe;
};

std::mutex g_mutex;
std::map<int, std::vector<receipt>> g_got;  // member -> what it received, in order

struct roamer : roam::element<roamer> {
  roamer() = default;
  explicit roamer(roam::migrating) {}
  void tag(int t) {
    std::lock_guard lock(g_mutex);
    g_got[this_index()[0]].push_back({t, roam::my_pe().value()});
  }
  void move_to(std::uint32_t pe) { migrate_to(roam::pe_id{pe}); }
  // Moves on the first tag of every `every` (while multicasts flow).
  void tag_and_move(int t, int every) {
    tag(t);
    if (t % every == 0)
      migrate_to(roam::pe_id{(roam::my_pe().value() + 1 + static_cast<std::uint32_t>(this_index()[0])) % roam::num_pes()});
  }
  void pup(roam::pup_er&) {}
};

// The newest multicast layout of a section in this process.
const roam::detail::section_layout* newest_layout(const roam::detail::section_desc* d) {
  const roam::detail::section_layout* last = nullptr;
  for (std::uint32_t v = 0;; ++v) {
    const roam::detail::section_layout* l = roam::detail::find_section_layout(d, v);
    if (!l) return last;
    last = l;
  }
}

struct outcome {
  int rc = -1;
  std::uint32_t version = 0;  ///< newest layout's version
  std::map<int, std::uint32_t> placed;  ///< member -> PE of the newest layout
};

// 16 members of 24 on `pes` PEs; two rounds of (move every member, then
// `casts` + 1 multicasts), each step ended by quiescence.
outcome move_then_multicast(unsigned pes, int casts, std::vector<std::string> extra = {}) {
  g_got.clear();
  outcome out;
  out.rc = run_on(
      pes,
      [&](const roam::args&) -> roam::task<> {
        auto a = roam::create_array<roamer>(roam::index<1>{24});
        std::vector<roam::index<1>> members;
        for (int i = 0; i < 24; ++i)
          if (i % 3 != 1) members.push_back({i});
        auto sec = roam::section_proxy<roamer>::of(a, members);
        for (int round = 0; round < 2; ++round) {
          for (int i = 0; i < 24; ++i)
            a[i].send<&roamer::move_to>(static_cast<std::uint32_t>(i + 1 + round) % roam::num_pes());
          co_await roam::quiescence();
          for (int t = 0; t < casts; ++t) sec.send<&roamer::tag>(round * (casts + 1) + t);
          co_await roam::quiescence();
          // The members' reports may all have reached the root after the
          // last multicast: this one closes the version then.
          sec.send<&roamer::tag>(round * (casts + 1) + casts);
          co_await roam::quiescence();
        }
        const roam::detail::section_layout* l = newest_layout(sec.descriptor());
        out.version = l->version;
        for (std::size_t r = 0; r < l->tree_pes.size(); ++r)
          for (const auto& key : l->keys[r]) out.placed[key.v[0]] = l->tree_pes[r];
        roam::exit(0);
      },
      std::move(extra));
  return out;
}

void expect_every_tag_once_in_order(int members_total, int tags) {
  for (int i = 0; i < members_total; ++i) {
    const std::vector<receipt>& got = g_got[i];
    if (i % 3 == 1) {
      EXPECT_TRUE(got.empty()) << "element " << i << " is not a member";
      continue;
    }
    ASSERT_EQ(got.size(), static_cast<std::size_t>(tags)) << "member " << i;
    for (int t = 0; t < tags; ++t) EXPECT_EQ(got[t].tag, t) << "member " << i;
  }
}

}  // namespace

TEST(section_regroup, moved_members_are_reached_where_they_are_exactly_once_in_order) {
  for (unsigned pes : {2u, 4u}) {
    SCOPED_TRACE("+p" + std::to_string(pes));
    constexpr int casts = 40;
    outcome o = move_then_multicast(pes, casts);
    ASSERT_EQ(o.rc, 0);
    expect_every_tag_once_in_order(24, 2 * (casts + 1));
    // Each round moved the members: each regrouped the tree once (the
    // members then stay where the new layout says).
    EXPECT_EQ(o.version, 2u);
    // The newest layout puts each member where it received its last tag.
    ASSERT_EQ(o.placed.size(), 16u);
    for (const auto& [i, pe] : o.placed) EXPECT_EQ(pe, g_got[i].back().pe) << "member " << i;
  }
}

TEST(section_regroup, through_the_wire_format) {
  outcome o = move_then_multicast(3, 25, {"+serialize"});
  ASSERT_EQ(o.rc, 0);
  expect_every_tag_once_in_order(24, 52);
  EXPECT_EQ(o.version, 2u);
  for (const auto& [i, pe] : o.placed) EXPECT_EQ(pe, g_got[i].back().pe) << "member " << i;
}

TEST(section_regroup, deterministic_driver_replays_the_protocol_races_from_seeds) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE("+deterministic " + std::to_string(seed));
    outcome o = move_then_multicast(4, 12, {"+deterministic", std::to_string(seed)});
    ASSERT_EQ(o.rc, 0);
    expect_every_tag_once_in_order(24, 26);
    EXPECT_EQ(o.version, 2u);
    for (const auto& [i, pe] : o.placed) EXPECT_EQ(pe, g_got[i].back().pe) << "member " << i;
  }
}

// Members move while multicasts and regroups are under way. Moving on the
// first tag of every batch of 10 (the tag that closes the version the batch
// before reported stale), markers chase members that are leaving and the
// rest of the batch waits at the root; moving every 20 tags, the layouts
// follow them. Every member still gets every tag exactly once (order is
// promised only to members that stay put, as for any messages to an object
// that moves meanwhile).
TEST(section_regroup, members_moving_during_multicasts_get_each_exactly_once) {
  for (int every : {10, 20})
    for (unsigned pes : {2u, 4u}) {
      SCOPED_TRACE("+p" + std::to_string(pes) + ", moving every " + std::to_string(every) + " tags");
      g_got.clear();
      constexpr int casts = 80;
      std::uint32_t version = 0;
      int rc = run_on(pes, [&](const roam::args&) -> roam::task<> {
        auto a = roam::create_array<roamer>(roam::index<1>{24});
        std::vector<roam::index<1>> members;
        for (int i = 0; i < 24; ++i)
          if (i % 3 != 1) members.push_back({i});
        auto sec = roam::section_proxy<roamer>::of(a, members);
        for (int t = 0; t < casts; ++t) {
          sec.send<&roamer::tag_and_move>(t, every);
          if (t % 10 == 9) co_await roam::quiescence();
        }
        version = newest_layout(sec.descriptor())->version;
        roam::exit(0);
      });
      ASSERT_EQ(rc, 0);
      for (int i = 0; i < 24; ++i) {
        if (i % 3 == 1) continue;
        std::vector<int> tags;
        for (const receipt& r : g_got[i]) tags.push_back(r.tag);
        std::sort(tags.begin(), tags.end());
        ASSERT_EQ(tags.size(), static_cast<std::size_t>(casts)) << "member " << i;
        for (int t = 0; t < casts; ++t) EXPECT_EQ(tags[t], t) << "member " << i;
      }
      // Moving every 10 tags on 2 PEs, a member that moves is back on its
      // home PE each time a regroup looks for it: the layout need not change.
      if (every == 20 || pes == 4) {
        EXPECT_GE(version, 2u) << "the members moved, the tree did not follow";
      }
    }
}

}  // namespace section_regroup_test
