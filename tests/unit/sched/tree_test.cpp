// Node-aware spanning trees: every PE is reached exactly once, parents and
// children agree, and a message crosses to each other node exactly once.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include <roam/sched/detail/tree.hpp>

namespace tree_test {

using roam::detail::member_tree;
using roam::detail::pe_tree;

namespace {

void check_pe_tree(std::uint32_t nodes, std::uint32_t ppn, std::uint32_t k) {
  pe_tree t{nodes * ppn, ppn, k};
  std::vector<int> reached(nodes * ppn, 0);
  std::uint32_t cross_node_edges = 0;
  std::vector<std::uint32_t> frontier{0};
  reached[0] = 1;
  while (!frontier.empty()) {
    std::uint32_t pe = frontier.back();
    frontier.pop_back();
    t.for_each_child(pe, [&](std::uint32_t c) {
      ASSERT_LT(c, nodes * ppn);
      EXPECT_EQ(t.parent(c), pe) << "child " << c << " of " << pe;
      ++reached[c];
      if (c / ppn != pe / ppn) ++cross_node_edges;
      frontier.push_back(c);
    });
  }
  for (std::uint32_t pe = 0; pe < nodes * ppn; ++pe) EXPECT_EQ(reached[pe], 1) << "pe " << pe;
  EXPECT_EQ(cross_node_edges, nodes - 1);
}

}  // namespace

TEST(pe_tree, reaches_every_pe_once_and_crosses_each_node_once) {
  for (std::uint32_t nodes : {1u, 2u, 3u, 5u, 17u})
    for (std::uint32_t ppn : {1u, 2u, 3u, 4u, 9u})
      for (std::uint32_t k : {2u, 4u}) check_pe_tree(nodes, ppn, k);
}

TEST(pe_tree, one_node_is_the_plain_kary_tree) {
  pe_tree t{10, 10, 4};
  roam::detail::kary_tree plain{10, 4};
  for (std::uint32_t pe = 1; pe < 10; ++pe) EXPECT_EQ(t.parent(pe), plain.parent(pe));
  for (std::uint32_t pe = 0; pe < 10; ++pe) EXPECT_EQ(t.child_count(pe), plain.child_count(pe));
}

TEST(member_tree, sparse_members_form_one_tree_with_one_edge_into_each_node) {
  const std::uint32_t ppn = 3;
  std::vector<std::uint32_t> members{1, 2, 4, 9, 10, 11, 12, 20, 23};  // nodes 0,0,1,3,3,3,4,6,7
  member_tree t{members, ppn, 2};
  std::vector<int> reached(members.size(), 0);
  reached[0] = 1;
  std::set<std::uint32_t> nodes_entered;
  std::vector<std::uint32_t> frontier{0};
  while (!frontier.empty()) {
    std::uint32_t r = frontier.back();
    frontier.pop_back();
    t.for_each_child(r, [&](std::uint32_t c) {
      EXPECT_EQ(t.parent(c), r);
      ++reached[c];
      if (members[c] / ppn != members[r] / ppn) {
        EXPECT_TRUE(nodes_entered.insert(members[c] / ppn).second);
      }
      frontier.push_back(c);
    });
  }
  for (std::size_t r = 0; r < members.size(); ++r) EXPECT_EQ(reached[r], 1) << "rank " << r;
  EXPECT_EQ(nodes_entered.size(), 5u);  // nodes 1, 3, 4, 6, 7
}

}  // namespace tree_test
