// The buddy ring of the in-memory checkpoints (machine/detail/hosts.hpp):
// every node keeps exactly one other's copy, on another host when possible.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <roam/machine/detail/hosts.hpp>

namespace buddy_ring_test {

using namespace roam::detail;

namespace {
// True if the ring is a permutation with no fixed point: every node keeps
// one other node's copy, and nobody keeps its own.
bool one_copy_each(const std::vector<std::uint32_t>& buddy) {
  std::vector<int> kept(buddy.size(), 0);
  for (std::size_t n = 0; n < buddy.size(); ++n) {
    if (buddy[n] >= buddy.size() || buddy[n] == n) return false;
    ++kept[buddy[n]];
  }
  return std::all_of(kept.begin(), kept.end(), [](int k) { return k == 1; });
}

std::size_t same_host_pairs(const std::vector<std::uint64_t>& hosts, const std::vector<std::uint32_t>& buddy) {
  std::size_t same = 0;
  for (std::size_t n = 0; n < hosts.size(); ++n) same += hosts[n] == hosts[buddy[n]];
  return same;
}
}  // namespace

TEST(buddy_ring, one_host_is_the_next_process) {
  const std::vector<std::uint64_t> hosts(5, 42);
  EXPECT_EQ(buddy_ring(hosts), (std::vector<std::uint32_t>{1, 2, 3, 4, 0}));
}

TEST(buddy_ring, two_processes_keep_each_other) {
  EXPECT_EQ(buddy_ring(std::vector<std::uint64_t>{7, 7}), (std::vector<std::uint32_t>{1, 0}));
  EXPECT_EQ(buddy_ring(std::vector<std::uint64_t>{7, 9}), (std::vector<std::uint32_t>{1, 0}));
}

TEST(buddy_ring, consecutive_processes_on_one_host_get_buddies_elsewhere) {
  // Hosts a a b b (roamrun --hosts with each host listed twice): the plain
  // ring would pair 0 with 1 and 2 with 3, losing both copies with a host.
  const std::vector<std::uint64_t> hosts{1, 1, 2, 2};
  const auto buddy = buddy_ring(hosts);
  EXPECT_EQ(buddy, (std::vector<std::uint32_t>{2, 3, 1, 0}));
  EXPECT_TRUE(one_copy_each(buddy));
  EXPECT_EQ(same_host_pairs(hosts, buddy), 0u);
}

TEST(buddy_ring, every_even_layout_has_no_pair_on_one_host) {
  // 2..4 hosts with 1..4 processes each, in blocks and round-robin.
  for (std::uint64_t h = 2; h <= 4; ++h)
    for (std::uint64_t per = 1; per <= 4; ++per) {
      std::vector<std::uint64_t> blocks, round_robin;
      for (std::uint64_t i = 0; i < h * per; ++i) {
        blocks.push_back(100 + i / per);
        round_robin.push_back(100 + i % h);
      }
      for (const auto& hosts : {blocks, round_robin}) {
        const auto buddy = buddy_ring(hosts);
        EXPECT_TRUE(one_copy_each(buddy)) << h << " hosts x " << per;
        EXPECT_EQ(same_host_pairs(hosts, buddy), 0u) << h << " hosts x " << per;
      }
    }
}

TEST(buddy_ring, uneven_hosts_still_give_one_copy_each) {
  // Three processes on one host and one on another: the ring has two edges
  // touching the lone host; the other two cannot avoid sharing a host.
  const std::vector<std::uint64_t> hosts{5, 5, 5, 6};
  const auto buddy = buddy_ring(hosts);
  EXPECT_TRUE(one_copy_each(buddy));
  EXPECT_EQ(same_host_pairs(hosts, buddy), 2u);
  EXPECT_TRUE(buddy_ring(std::vector<std::uint64_t>{}).empty());
  EXPECT_EQ(buddy_ring(std::vector<std::uint64_t>{3}), (std::vector<std::uint32_t>{0}));
}

}  // namespace buddy_ring_test
