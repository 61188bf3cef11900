// The per-PE count of array elements by next reduction number
// (src/coll/state.hpp), against a plain histogram: the flush of reduction r
// waits for every local element whose next number is at or below r.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>

#include "state.hpp"

namespace next_numbers_test {

using roam::detail::next_numbers;

namespace {

struct reference {
  std::map<std::uint32_t, std::int64_t> by_next;
  void add(std::uint32_t next, std::int64_t n) { by_next[next] += n; }
  std::int64_t owing(std::uint32_t seq) const {
    std::int64_t n = 0;
    for (auto it = by_next.begin(); it != by_next.end() && it->first <= seq; ++it) n += it->second;
    return n;
  }
};

}  // namespace

TEST(next_numbers, a_contribution_moves_its_element_on_to_the_next_reduction) {
  next_numbers h;
  for (int e = 0; e < 4; ++e) h.add(0, 1);
  EXPECT_EQ(h.owing(0), 4);
  for (int e = 0; e < 3; ++e) h.step(0);
  EXPECT_EQ(h.owing(0), 1);
  h.step(0);
  EXPECT_EQ(h.owing(0), 0);
  EXPECT_EQ(h.owing(1), 4);
}

TEST(next_numbers, a_late_arrival_owes_every_reduction_from_its_own_on) {
  next_numbers h;
  h.add(10, 2);
  EXPECT_EQ(h.owing(9), 0);
  EXPECT_EQ(h.owing(10), 2);
  h.step(10);
  h.step(10);
  EXPECT_EQ(h.owing(10), 0);
  EXPECT_EQ(h.owing(11), 2);
  h.add(3, 1);  // arrived having contributed up to 2 only
  EXPECT_EQ(h.owing(11), 3);
  for (std::uint32_t r = 3; r < 10; ++r) h.step(r);
  EXPECT_EQ(h.owing(11), 3);
  h.step(10);  // now at 11 with the others
  EXPECT_EQ(h.owing(11), 3);
  h.add(11, -1);  // one left (or died) owing 11
  EXPECT_EQ(h.owing(11), 2);
}

TEST(next_numbers, an_element_far_ahead_is_counted_when_its_reduction_comes) {
  next_numbers h;
  h.add(0, 1);
  for (std::uint32_t r = 0; r < 1000; ++r) h.step(r);  // one element ran 1000 reductions ahead
  h.add(0, 1);
  for (std::uint32_t r = 0; r < 1000; ++r) {
    EXPECT_EQ(h.owing(r), 1) << r;
    h.step(r);
  }
  EXPECT_EQ(h.owing(1000), 2);
}

TEST(next_numbers, owing_matches_a_plain_histogram_under_random_moves) {
  std::mt19937 rng(12345);
  for (int round = 0; round < 20; ++round) {
    next_numbers h;
    reference ref;
    std::uint32_t asked = 0;
    for (int op = 0; op < 4000; ++op) {
      int what = static_cast<int>(rng() % 10);
      std::uint32_t lo = asked > 40 ? asked - 40 : 0;
      std::uint32_t next = lo + static_cast<std::uint32_t>(rng() % 200);
      if (what < 5) {
        h.step(next);
        ref.add(next, -1);
        ref.add(next + 1, 1);
      } else if (what < 8) {
        std::int64_t n = (rng() % 2) ? 1 : -1;
        h.add(next, n);
        ref.add(next, n);
      } else {
        asked += static_cast<std::uint32_t>(rng() % (what == 9 ? 70 : 2));
        ASSERT_EQ(h.owing(asked), ref.owing(asked)) << "round " << round << " op " << op;
      }
    }
  }
}

}  // namespace next_numbers_test
