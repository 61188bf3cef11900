// The idle policy: how long an idle PE spins before it sleeps.
#include <gtest/gtest.h>

#include <roam/sched/detail/idle_policy.hpp>

namespace idle_policy_test {

using namespace std::chrono_literals;
using roam::detail::idle_policy;

TEST(idle_policy, a_fixed_policy_always_spins_its_minimum) {
  idle_policy p(50us, 500us, false);
  for (int i = 0; i < 10; ++i) p.episode(100us);
  EXPECT_EQ(p.budget(), std::chrono::nanoseconds(50us));
}

TEST(idle_policy, a_steady_rhythm_of_short_gaps_is_spun_through) {
  idle_policy p(50us, 500us, true);
  EXPECT_EQ(p.budget(), std::chrono::nanoseconds(50us));
  for (int i = 0; i < 20; ++i) p.episode(100us);
  // Twice the gap: work that comes back after 100 us never finds the PE asleep.
  EXPECT_EQ(p.budget(), std::chrono::nanoseconds(200us));
  for (int i = 0; i < 20; ++i) p.episode(400us);
  EXPECT_EQ(p.budget(), std::chrono::nanoseconds(500us));  // never beyond the maximum
  for (int i = 0; i < 40; ++i) p.episode(1us);
  EXPECT_EQ(p.budget(), std::chrono::nanoseconds(50us));  // never below the minimum
}

TEST(idle_policy, long_gaps_bring_the_spin_back_to_its_minimum_quickly) {
  idle_policy p(50us, 800us, true);
  for (int i = 0; i < 20; ++i) p.episode(400us);
  EXPECT_EQ(p.budget(), std::chrono::nanoseconds(800us));
  // Each gap longer than the maximum halves the budget: 800 -> 400 -> 200 -> 100 -> 50.
  int long_gaps = 0;
  while (p.budget() > std::chrono::nanoseconds(50us)) {
    p.episode(10ms);
    ++long_gaps;
  }
  EXPECT_EQ(long_gaps, 4);
  // And a rhythm that comes back is learned again.
  for (int i = 0; i < 30; ++i) p.episode(150us);
  EXPECT_NEAR(static_cast<double>(p.budget().count()), 300e3, 1e3);
}

TEST(idle_policy, a_few_instant_idles_between_real_waits_do_not_shrink_the_spin_below_them) {
  // A block idles for nothing a few times between its ghosts, then waits
  // ~100 us for the reduction: the spin must still cover that wait.
  idle_policy p(50us, 500us, true);
  for (int iteration = 0; iteration < 50; ++iteration) {
    for (int i = 0; i < 3; ++i) {
      p.episode(0us);
      if (iteration > 0) {  // once it has seen one real wait
        EXPECT_GE(p.budget(), std::chrono::nanoseconds(100us)) << "iteration " << iteration;
      }
    }
    p.episode(100us);
  }
}

TEST(idle_policy, a_maximum_below_the_minimum_means_a_fixed_spin) {
  idle_policy p(80us, 10us, true);
  for (int i = 0; i < 10; ++i) p.episode(60us);
  EXPECT_EQ(p.budget(), std::chrono::nanoseconds(80us));
}

}  // namespace idle_policy_test
