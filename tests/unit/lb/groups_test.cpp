// The distributed hierarchical step's decisions (src/lb/groups.cpp), run the
// way the leaders run them but in one function: group totals, transfers
// planned between groups, objects offered by donors, each group balanced by
// its inner strategy over what stayed and what arrived. On the ramp problems
// of 64 and 1024 simulated PEs (groups of 8 and 32) the result must be within
// 5% of flat Greedy's max/avg, moving fewer objects (10% with groups of one
// PE, where nothing balances inside); transfers must only go from groups above
// their share to groups below it.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <random>

#include <roam/lb/strategy.hpp>

#include "balancer.hpp"

namespace groups_test {

namespace {

using namespace roam::lb;
using namespace roam::lb::detail;

problem ramp_problem(std::uint32_t pes, std::size_t objects, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> load(0.1, 1.0);
  problem p;
  p.pes.resize(pes);
  for (std::size_t i = 0; i < objects; ++i)
    p.objects.push_back({1000 + i, load(gen) * (1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(objects)),
                         static_cast<std::uint32_t>(i * pes / objects), true});
  return p;
}

// Every group balanced inside by GreedyRefine over the objects that stayed (`members`) and those that
// arrive (`arriving`, starting on its PEs in turn), as each leader does (src/lb/groups.cpp).
assignment place_groups(const problem& p, std::uint32_t group_pes, const std::vector<group_load>& groups,
                        const std::vector<std::vector<std::size_t>>& members,
                        const std::vector<std::vector<std::size_t>>& arriving) {
  assignment a = stay(p);
  for (std::uint32_t g = 0; g < groups.size(); ++g) {
    const std::uint32_t base = g * group_pes, n = groups[g].pes;
    problem sub;
    sub.pes.resize(n);
    std::vector<std::size_t> index;
    for (std::size_t i : members[g]) {
      sub.objects.push_back({index.size(), p.objects[i].load, p.objects[i].pe - base, true});
      index.push_back(i);
    }
    std::uint32_t next = 0;
    for (std::size_t i : arriving[g]) {
      sub.objects.push_back({index.size(), p.objects[i].load, next++ % n, true});
      index.push_back(i);
    }
    const assignment inner = find_strategy("GreedyRefine")->run(sub, strategy_options{});
    for (std::size_t k = 0; k < index.size(); ++k) a.pe[index[k]] = base + inner.pe[k];
  }
  return a;
}

// What the leaders decide together, for groups of `group_pes` consecutive PEs.
assignment distributed(const problem& p, std::uint32_t group_pes) {
  const auto pes = static_cast<std::uint32_t>(p.pes.size());
  const std::uint32_t groups = (pes + group_pes - 1) / group_pes;
  std::vector<group_load> loads(groups);
  for (std::uint32_t g = 0; g < groups; ++g) loads[g] = {g, 0, std::min(pes, (g + 1) * group_pes) - g * group_pes};
  for (const object_load& o : p.objects) loads[o.pe / group_pes].load += o.load;
  std::vector<std::uint32_t> offers_to;
  const auto sends = plan_transfers(loads, groups, offers_to);
  // Transfers go from above-share groups to below-share ones only.
  double total = 0;
  for (const group_load& g : loads) total += g.load;
  for (std::uint32_t g = 0; g < groups; ++g)
    for (const group_transfer& t : sends[g]) {
      EXPECT_GT(loads[g].load, total / pes * loads[g].pes) << "group " << g << " gives but is not above its share";
      EXPECT_LT(loads[t.to_group].load, total / pes * loads[t.to_group].pes);
    }
  std::vector<std::vector<std::size_t>> members(groups);  // object indices per group after the transfers
  for (std::size_t i = 0; i < p.objects.size(); ++i) members[p.objects[i].pe / group_pes].push_back(i);
  std::vector<std::vector<std::size_t>> arriving(groups);
  for (std::uint32_t g = 0; g < groups; ++g) {
    std::vector<offered_object> candidates;
    for (std::size_t i : members[g]) candidates.push_back({{}, p.objects[i].load, static_cast<std::uint32_t>(i)});
    const auto offers = pick_offers(candidates, sends[g]);  // `pe` carries the object's index here
    std::vector<bool> gone(p.objects.size(), false);
    for (std::size_t t = 0; t < offers.size(); ++t)
      for (const offered_object& o : offers[t]) {
        arriving[sends[g][t].to_group].push_back(o.pe);
        gone[o.pe] = true;
      }
    std::erase_if(members[g], [&](std::size_t i) { return gone[i]; });
  }
  return place_groups(p, group_pes, loads, members, arriving);
}

TEST(lb_groups, distributed_hierarchical_is_within_5_percent_of_flat_greedy) {
  struct shape {
    std::uint32_t pes, group_pes;
    std::size_t objects;
  };
  for (const shape s : {shape{64, 8, 64 * 12}, shape{1024, 32, 1024 * 8}, shape{64, 1, 64 * 12}}) {
    const std::uint64_t seed = 701 + s.pes + s.group_pes;
    std::cout << "[ seed ] " << seed << " pes " << s.pes << " groups of " << s.group_pes << "\n";
    const problem p = ramp_problem(s.pes, s.objects, seed);
    const balance_stats greedy = evaluate(p, find_strategy("Greedy")->run(p, strategy_options{}));
    const balance_stats dist = evaluate(p, distributed(p, s.group_pes));
    // Groups of one PE have no inner balancing: only whole objects picked to fit the transfers, so
    // 10% is asked there; real groups (8, 32 PEs) must be within 5%.
    const double bound = s.group_pes == 1 ? 1.10 : 1.05;
    EXPECT_LE(dist.max_over_avg, greedy.max_over_avg * bound) << s.pes << " PEs in groups of " << s.group_pes;
    EXPECT_LT(dist.migrations, greedy.migrations) << s.pes << " PEs";
  }
}

// Three levels, as the super-group leaders run them: PE 0 plans among super-groups of `fanout`
// groups; each super-group plans among its groups against the global average, hands what it must
// send elsewhere to its groups with surplus left, and spreads what it receives over its groups with
// room left; then every group balances inside.
assignment three_levels(const problem& p, std::uint32_t group_pes, std::uint32_t fanout) {
  const auto pes = static_cast<std::uint32_t>(p.pes.size());
  const std::uint32_t groups = (pes + group_pes - 1) / group_pes, supers = (groups + fanout - 1) / fanout;
  std::vector<group_load> leaves(groups);
  for (std::uint32_t g = 0; g < groups; ++g) leaves[g] = {g, 0, std::min(pes, (g + 1) * group_pes) - g * group_pes};
  for (const object_load& o : p.objects) leaves[o.pe / group_pes].load += o.load;
  std::vector<group_load> tops(supers);
  double total = 0;
  for (std::uint32_t u = 0; u < supers; ++u) tops[u] = {u, 0, 0};
  for (const group_load& g : leaves) tops[g.group / fanout].load += g.load, tops[g.group / fanout].pes += g.pes, total += g.load;
  const double per_pe = total / pes;
  std::vector<std::uint32_t> top_offers;
  const auto top_sends = plan_transfers(tops, supers, top_offers);
  // Per group: transfers to groups (inside the super-group) and to super-groups; room for arrivals.
  std::vector<std::vector<group_transfer>> sends(groups), cross(groups);
  std::vector<std::vector<std::pair<double, std::uint32_t>>> room(supers);
  for (std::uint32_t u = 0; u < supers; ++u) {
    std::vector<group_load> mine(leaves.begin() + u * fanout, leaves.begin() + std::min(groups, (u + 1) * fanout));
    std::vector<std::uint32_t> offers_to;
    std::vector<std::pair<double, std::uint32_t>> donors_left;
    auto inside = plan_transfers(mine, groups, offers_to, per_pe, &donors_left, &room[u]);
    for (std::uint32_t g = 0; g < groups; ++g)
      for (const group_transfer& t : inside[g]) sends[g].push_back(t);
    std::size_t d = 0;
    for (const group_transfer& t : top_sends[u]) {
      double left = t.load;
      while (left > 0 && d < donors_left.size()) {
        const double amount = std::min(left, donors_left[d].first);
        cross[donors_left[d].second].push_back({t.to_group, amount});
        left -= amount;
        donors_left[d].first -= amount;
        if (donors_left[d].first <= 0) ++d;
      }
    }
  }
  std::vector<std::vector<std::size_t>> members(groups), arriving(groups);
  std::vector<std::vector<std::size_t>> to_super(supers);
  for (std::size_t i = 0; i < p.objects.size(); ++i) members[p.objects[i].pe / group_pes].push_back(i);
  for (std::uint32_t g = 0; g < groups; ++g) {
    std::vector<offered_object> candidates;
    for (std::size_t i : members[g]) candidates.push_back({{}, p.objects[i].load, static_cast<std::uint32_t>(i)});
    std::vector<group_transfer> all = sends[g];
    all.insert(all.end(), cross[g].begin(), cross[g].end());
    const auto offers = pick_offers(candidates, all);
    std::vector<bool> gone(p.objects.size(), false);
    for (std::size_t t = 0; t < offers.size(); ++t)
      for (const offered_object& o : offers[t]) {
        (t < sends[g].size() ? arriving[all[t].to_group] : to_super[all[t].to_group]).push_back(o.pe);
        gone[o.pe] = true;
      }
    std::erase_if(members[g], [&](std::size_t i) { return gone[i]; });
  }
  for (std::uint32_t u = 0; u < supers; ++u) {  // arrivals from other super-groups: heaviest to most room
    std::sort(to_super[u].begin(), to_super[u].end(),
              [&](std::size_t x, std::size_t y) { return p.objects[x].load > p.objects[y].load; });
    auto r = room[u];
    if (r.empty())
      for (std::uint32_t g = u * fanout; g < std::min(groups, (u + 1) * fanout); ++g) r.push_back({0, g});
    for (std::size_t i : to_super[u]) {
      auto most = std::max_element(r.begin(), r.end());
      arriving[most->second].push_back(i);
      most->first -= p.objects[i].load;
    }
  }
  return place_groups(p, group_pes, leaves, members, arriving);
}

TEST(lb_groups, three_levels_are_within_5_percent_of_flat_greedy) {
  struct shape {
    std::uint32_t pes, group_pes, fanout;
    std::size_t objects;
  };
  for (const shape s : {shape{64, 4, 4, 64 * 12}, shape{1024, 8, 16, 1024 * 8}}) {
    const std::uint64_t seed = 907 + s.pes;
    std::cout << "[ seed ] " << seed << " pes " << s.pes << " groups of " << s.group_pes << " in " << s.fanout << "s\n";
    const problem p = ramp_problem(s.pes, s.objects, seed);
    const balance_stats greedy = evaluate(p, find_strategy("Greedy")->run(p, strategy_options{}));
    const balance_stats three = evaluate(p, three_levels(p, s.group_pes, s.fanout));
    EXPECT_LE(three.max_over_avg, greedy.max_over_avg * 1.05) << s.pes << " PEs";
    EXPECT_LT(three.migrations, greedy.migrations) << s.pes << " PEs";
  }
}

TEST(lb_groups, balanced_groups_send_nothing) {
  std::vector<group_load> loads = {{0, 10, 4}, {1, 10.05, 4}, {2, 9.95, 4}};
  std::vector<std::uint32_t> offers_to;
  const auto sends = plan_transfers(loads, 3, offers_to);
  for (const auto& s : sends) EXPECT_TRUE(s.empty());
  for (std::uint32_t n : offers_to) EXPECT_EQ(n, 0u);
}

TEST(lb_groups, offers_take_the_heaviest_objects_that_fit) {
  std::vector<offered_object> c = {{{}, 5, 0}, {{}, 3, 1}, {{}, 2, 2}, {{}, 1, 3}};
  const auto offers = pick_offers(c, {{1, 4.5}, {2, 2.5}});
  ASSERT_EQ(offers.size(), 2u);
  ASSERT_EQ(offers[0].size(), 2u);  // 3 then 1 (5 does not fit 4.5)
  EXPECT_EQ(offers[0][0].load, 3);
  EXPECT_EQ(offers[0][1].load, 1);
  ASSERT_EQ(offers[1].size(), 1u);  // 2
  EXPECT_EQ(offers[1][0].load, 2);
}

}  // namespace

}  // namespace groups_test
