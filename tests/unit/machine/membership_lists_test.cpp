// The node lists of membership frames (src/machine/membership_lists.hpp): a
// suspicion carries each node's reason to the process that decides, so its
// failure note says why (issue #35: it used to say only "reported by process
// 2"); malformed frames are refused, never read past their end.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "membership_lists.hpp"

namespace membership_lists_test {

using namespace roam::detail::membership_lists;

TEST(membership_lists, a_suspicion_carries_each_reason) {
  std::vector<std::string> reasons(4);
  reasons[1] = "node 1 (127.0.0.1:4000) connection error: Connection reset by peer";
  reasons[3] = "node 3 sent nothing, not even a heartbeat, for 1000 ms";
  const auto frame = suspicion_list({3, 1}, reasons);
  std::vector<std::uint32_t> nodes;
  std::vector<std::string> got;
  ASSERT_TRUE(parse_suspicions(frame, 4, nodes, got));
  EXPECT_EQ(nodes, (std::vector<std::uint32_t>{3, 1}));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], reasons[3]);
  EXPECT_EQ(got[1], reasons[1]);
}

TEST(membership_lists, an_empty_reason_and_an_empty_list_travel) {
  std::vector<std::string> reasons(2);
  std::vector<std::uint32_t> nodes;
  std::vector<std::string> got;
  ASSERT_TRUE(parse_suspicions(suspicion_list({0}, reasons), 2, nodes, got));
  EXPECT_EQ(got, (std::vector<std::string>{""}));
  ASSERT_TRUE(parse_suspicions(suspicion_list({}, reasons), 2, nodes, got));
  EXPECT_TRUE(nodes.empty());
  EXPECT_TRUE(got.empty());
}

TEST(membership_lists, malformed_suspicions_are_refused) {
  std::vector<std::string> reasons(3, "why");
  const auto frame = suspicion_list({0, 2}, reasons);
  std::vector<std::uint32_t> nodes;
  std::vector<std::string> got;
  // Every truncation, a trailing byte, a node out of range.
  for (std::size_t n = 0; n < frame.size(); ++n)
    EXPECT_FALSE(parse_suspicions(std::span(frame).first(n), 3, nodes, got)) << "truncated to " << n;
  auto longer = frame;
  longer.push_back(std::byte{0});
  EXPECT_FALSE(parse_suspicions(longer, 3, nodes, got));
  EXPECT_FALSE(parse_suspicions(frame, 2, nodes, got)) << "node 2 of 2";
  // A reason length past the end.
  auto lying = suspicion_list({1}, reasons);
  put32(lying.data() + 8, 1000);
  EXPECT_FALSE(parse_suspicions(lying, 3, nodes, got));
}

TEST(membership_lists, node_lists_round_trip_and_refuse_wrong_sizes) {
  const auto frame = node_list({5, 0, 7});
  std::vector<std::uint32_t> nodes;
  ASSERT_TRUE(parse_node_list(frame, 8, nodes));
  EXPECT_EQ(nodes, (std::vector<std::uint32_t>{5, 0, 7}));
  EXPECT_FALSE(parse_node_list(std::span(frame).first(frame.size() - 1), 8, nodes));
  EXPECT_FALSE(parse_node_list(frame, 7, nodes));
}

}  // namespace membership_lists_test
