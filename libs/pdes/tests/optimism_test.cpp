// The engine's data structures and its optimism control, without a runtime:
// the pending heap pops in key order (ties by arrival) whatever the order of
// pushes; the control halves the slice before it narrows the window, never
// narrows below the lookahead, and widens both back when rollbacks are rare.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include <roam/pdes/detail/event.hpp>
#include <roam/pdes/detail/optimism.hpp>

namespace pdes_optimism_test {

namespace pdes = roam::pdes;
using pdes::detail::optimism_control;

pdes::engine_options options(double lookahead = 0.1) {
  pdes::engine_options o;
  o.mode = pdes::synch::optimistic;
  o.batch = 64;
  o.lookahead = lookahead;
  return o;
}

constexpr std::uint64_t n = optimism_control::every;

TEST(OptimismControl, StartsUnboundedAtTheFullSlice) {
  optimism_control c(options());
  EXPECT_EQ(c.batch(), 64u);
  EXPECT_EQ(c.window(), pdes::infinite_time);
}

TEST(OptimismControl, TooFewEventsChangeNothing) {
  optimism_control c(options());
  c.observe(n - 1, n - 1, 100, 1);  // every event undone, but too few to judge
  EXPECT_EQ(c.batch(), 64u);
}

TEST(OptimismControl, HalvesTheSliceFirstThenNarrowsTheWindowFromWhereThePeRan) {
  optimism_control c(options());
  std::uint64_t p = 0, r = 0;
  auto look = [&](double share, double furthest, double gvt) {
    p += n;
    r += static_cast<std::uint64_t>(share * n);
    c.observe(p, r, furthest, gvt);
  };
  look(0.05, 12, 10);
  EXPECT_EQ(c.batch(), 32u);
  EXPECT_EQ(c.window(), pdes::infinite_time);
  look(0.05, 12, 10);
  EXPECT_EQ(c.batch(), 16u);  // a quarter of the batch: the least slice
  look(0.05, 12, 10);
  EXPECT_EQ(c.batch(), 16u);
  EXPECT_DOUBLE_EQ(c.window(), 0.8 * 2);  // from how far beyond GVT it ran (12 - 10)
  look(0.05, 12, 11);
  EXPECT_DOUBLE_EQ(c.window(), 0.8 * 0.8 * 2);
  EXPECT_EQ(c.batch_halvings(), 2u);
  EXPECT_EQ(c.window_narrowings(), 2u);
  for (int i = 0; i < 100; ++i) look(0.5, 12, 11);
  EXPECT_DOUBLE_EQ(c.window(), 0.1);  // never below the lookahead
}

TEST(OptimismControl, WidensBackWhenRollbacksAreRareAndTheWindowHeld) {
  optimism_control c(options());
  std::uint64_t p = 0, r = 0;
  for (int i = 0; i < 4; ++i) c.observe(p += n, r += n / 10, 3, 1);
  ASSERT_EQ(c.batch(), 16u);
  const double w = c.window();
  ASSERT_LT(w, pdes::infinite_time);
  c.observe(p += n, r, 3, 1);  // nothing undone, the window did not hold: only the slice grows
  EXPECT_EQ(c.batch(), 32u);
  EXPECT_DOUBLE_EQ(c.window(), w);
  c.held();
  c.observe(p += n, r, 3, 1);
  EXPECT_EQ(c.batch(), 64u);
  EXPECT_DOUBLE_EQ(c.window(), 1.2 * w);
  c.observe(p += n, r + n / 100, 3, 1);  // 1 %: within the budget (2 %), over half of it: nothing moves
  EXPECT_EQ(c.batch(), 64u);
  EXPECT_DOUBLE_EQ(c.window(), 1.2 * w);
}

TEST(OptimismControl, FixedSliceAndFixedWindowAreLeftAlone) {
  pdes::engine_options o = options();
  o.adaptive_batch = false;
  o.max_optimism = 5;
  optimism_control c(o);
  std::uint64_t p = 0;
  for (int i = 0; i < 10; ++i) {
    p += n;
    c.observe(p, p / 2, 100, 1);
  }
  EXPECT_EQ(c.batch(), 64u);
  EXPECT_EQ(c.window(), pdes::infinite_time);  // the manager applies max_optimism itself
}

TEST(OptimismControl, StepsOfTheEngineDoNotCount) {
  optimism_control c(options());
  c.skip_to(n, n);  // a balancing step rolled everything back
  c.observe(2 * n, n, 3, 1);
  EXPECT_EQ(c.batch(), 64u);
}

TEST(PendingHeap, PopsInKeyOrderWithTiesByArrival) {
  const unsigned seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  using ev = pdes::detail::event<long>;
  std::vector<ev> events(5000);
  pdes::detail::pending_heap<long> heap;
  std::vector<ev*> order;
  // Few distinct timestamps so that ties are common; equal keys too.
  std::uniform_int_distribution<int> ts(0, 40), src(0, 3);
  for (std::size_t i = 0; i < events.size(); ++i) {
    events[i].key = {ts(rng) * 0.25, 0, static_cast<pdes::lp_id>(src(rng)), 0};
    events[i].message = static_cast<long>(i);
  }
  std::size_t pushed = 0;
  std::vector<ev*> popped;
  // Interleave pushes and pops, as the engine does.
  while (pushed < events.size() || !heap.empty()) {
    if (pushed < events.size() && (heap.empty() || rng() % 3 != 0)) {
      heap.push(&events[pushed++]);
    } else {
      ASSERT_EQ(heap.top().e->key.ts, heap.top_time());
      ev* e = heap.pop();
      // Nothing still in the heap orders before what came out.
      for (const auto& entry : heap.entries()) {
        ASSERT_FALSE(entry.e->key < e->key) << "seed " << seed;
        if (entry.e->key == e->key) {
          ASSERT_GT(entry.e->arrival, e->arrival) << "seed " << seed;
        }
      }
      popped.push_back(e);
    }
  }
  EXPECT_EQ(popped.size(), events.size());
}

}  // namespace pdes_optimism_test
