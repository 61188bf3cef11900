// The observer list: subscription, the slot limit, removal and reuse, and
// the one flag the hot paths test. (What observers see is checked by
// tests/integration/programs/observer_check.cpp on 1-4 PEs, TCP and MPI.)
#include <gtest/gtest.h>

#include <array>

#include <roam/sched/observe.hpp>

namespace observe_test {

namespace {

struct quiet : roam::runtime_observer {};

TEST(observers, nobody_subscribed_means_not_observed) { EXPECT_FALSE(roam::detail::observed()); }

TEST(observers, subscribe_once_remove_and_reuse_the_slot) {
  quiet a, b;
  EXPECT_TRUE(roam::add_observer(a));
  EXPECT_FALSE(roam::add_observer(a)) << "a second subscription of the same observer";
  EXPECT_TRUE(roam::detail::observed());
  EXPECT_TRUE(roam::add_observer(b));
  int seen = 0;
  roam::detail::for_each_observer([&](roam::runtime_observer& o) {
    EXPECT_TRUE(&o == &a || &o == &b);
    ++seen;
  });
  EXPECT_EQ(seen, 2);
  roam::remove_observer(a);
  roam::remove_observer(a);  // not subscribed any more: nothing happens
  EXPECT_TRUE(roam::detail::observed());
  roam::remove_observer(b);
  EXPECT_FALSE(roam::detail::observed());
}

TEST(observers, at_most_max_observers) {
  std::array<quiet, roam::max_observers + 1> many;
  for (std::size_t i = 0; i < roam::max_observers; ++i) EXPECT_TRUE(roam::add_observer(many[i]));
  EXPECT_FALSE(roam::add_observer(many[roam::max_observers]));
  roam::remove_observer(many[3]);
  EXPECT_TRUE(roam::add_observer(many[roam::max_observers])) << "a freed slot is reused";
  for (auto& o : many) roam::remove_observer(o);
  EXPECT_FALSE(roam::detail::observed());
}

}  // namespace

}  // namespace observe_test
