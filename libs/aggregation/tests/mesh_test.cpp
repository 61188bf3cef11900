// The virtual mesh: factorisation, routing (every route ends at its
// destination in at most `dims` hops, each hop to a peer), node-aware layout.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include <roam/aggregation/mesh.hpp>

using roam::aggregation::balanced_factors;
using roam::aggregation::virtual_mesh;

TEST(BalancedFactors, EvenWhereTheDivisorsAllow) {
  EXPECT_EQ(balanced_factors(16, 2), (std::vector<std::uint32_t>{4, 4}));
  EXPECT_EQ(balanced_factors(12, 2), (std::vector<std::uint32_t>{4, 3}));
  EXPECT_EQ(balanced_factors(8, 3), (std::vector<std::uint32_t>{2, 2, 2}));
  EXPECT_EQ(balanced_factors(64, 3), (std::vector<std::uint32_t>{4, 4, 4}));
  EXPECT_EQ(balanced_factors(7, 2), (std::vector<std::uint32_t>{7, 1}));
  EXPECT_EQ(balanced_factors(1, 3), (std::vector<std::uint32_t>{1, 1, 1}));
  EXPECT_EQ(balanced_factors(6, 1), (std::vector<std::uint32_t>{6}));
  EXPECT_THROW(balanced_factors(0, 2), std::invalid_argument);
}

TEST(VirtualMesh, RejectsExtentsThatDoNotFit) {
  EXPECT_THROW(virtual_mesh(std::vector<std::uint32_t>{}), std::invalid_argument);
  EXPECT_THROW(virtual_mesh(std::vector<std::uint32_t>{2, 0}), std::invalid_argument);
  EXPECT_THROW(virtual_mesh::automatic(8, 4), std::invalid_argument);
  EXPECT_EQ(virtual_mesh(std::vector<std::uint32_t>{3, 2}).describe(), "3x2");
}

// Every pair, every mesh shape: the route reaches its destination, each hop
// goes to a peer, hops change one coordinate each and never exceed dims.
TEST(VirtualMesh, EveryRouteArrivesThroughPeers) {
  for (auto extents : std::vector<std::vector<std::uint32_t>>{{1}, {5}, {2, 2}, {3, 4}, {2, 3, 2}, {4, 1, 3}, {2, 2, 2}}) {
    virtual_mesh m(extents);
    for (std::uint32_t from = 0; from < m.size(); ++from) {
      const auto peers = m.peers(from);
      const std::set<std::uint32_t> peer_set(peers.begin(), peers.end());
      std::size_t expected_peers = 0;
      for (auto e : extents) expected_peers += e - 1;
      EXPECT_EQ(peers.size(), expected_peers);
      for (std::uint32_t to = 0; to < m.size(); ++to) {
        std::uint32_t at = from, hops = 0;
        while (at != to) {
          const std::uint32_t next = m.next_hop(at, to);
          const auto at_peers = m.peers(at);
          ASSERT_TRUE(std::find(at_peers.begin(), at_peers.end(), next) != at_peers.end())
              << m.describe() << ": " << at << " -> " << next << " is not a peer";
          at = next;
          ASSERT_LE(++hops, extents.size()) << m.describe() << ": " << from << " -> " << to;
        }
        EXPECT_EQ(hops, m.hops(from, to));
      }
      EXPECT_EQ(m.next_hop(from, from), from);
    }
  }
}

TEST(VirtualMesh, AutomaticShapes) {
  EXPECT_EQ(virtual_mesh::automatic(4).describe(), "4");
  EXPECT_EQ(virtual_mesh::automatic(4, 2).describe(), "2x2");
  EXPECT_EQ(virtual_mesh::automatic(8, 3).describe(), "2x2x2");
  EXPECT_EQ(virtual_mesh::automatic(128).describe(), "16x8");
  EXPECT_EQ(virtual_mesh::automatic(8192).describe(), "32x16x16");
  EXPECT_EQ(virtual_mesh::automatic(1, 3).describe(), "1x1x1");
}

// Node-aware: PEs of one process are the fastest dimension, so the first hop
// changes the process (keeping the rank inside it) and the last fans out.
TEST(VirtualMesh, NodeAwareCrossesProcessesFirst) {
  const virtual_mesh m = virtual_mesh::automatic(8, 0, 2);  // 4 processes of 2 PEs
  EXPECT_EQ(m.describe(), "2x4");
  // PE 1 (process 0, rank 1) to PE 6 (process 3, rank 0): via PE 7 (process 3, rank 1).
  EXPECT_EQ(m.next_hop(1, 6), 7u);
  EXPECT_EQ(m.next_hop(7, 6), 6u);
  // One peer per other process plus the other PE of its own.
  EXPECT_EQ(m.peers(1), (std::vector<std::uint32_t>{0, 3, 5, 7}));
  EXPECT_EQ(virtual_mesh::automatic(8, 0, 2, false).describe(), "8");
  EXPECT_EQ(virtual_mesh::automatic(4, 0, 4).describe(), "4");  // one process: nothing to cross
  EXPECT_EQ(virtual_mesh::automatic(16, 3, 2).describe(), "2x4x2");
}
