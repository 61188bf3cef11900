// CLCG4 as ROSS has it: the constants are what they claim to be, streams
// start where ROSS's do and draw the same numbers (known answers computed
// from ROSS's algorithm), and every draw is undone exactly.
#include <gtest/gtest.h>

#include <cmath>

#include <roam/pdes/rng.hpp>

namespace pdes = roam::pdes;

TEST(Clcg4, StepAndInverseAreWhatTheyClaim) {
  for (int j = 0; j < 4; ++j) {
    const std::int64_t m = pdes::clcg4_modulus[j], a = pdes::clcg4_multiplier[j];
    // a^(2^72) mod m: 72 squarings.
    std::int64_t step = a;
    for (int k = 0; k < 72; ++k) step = pdes::power_mod(step, 2, m);
    EXPECT_EQ(pdes::make_stream(1, {1, 1, 1, 1}).initial[j], step) << "component " << j;
    // One draw forward then back is the identity, so the inverse is right.
    pdes::rng_stream s = pdes::make_stream(5);
    const pdes::rng_stream before = s;
    (void)pdes::unif(s);
    pdes::reverse_unif(s);
    EXPECT_EQ(s, before);
  }
}

TEST(Clcg4, StreamsStartWhereRossStartsThem) {
  EXPECT_EQ(pdes::make_stream(0).initial, (std::array<std::int64_t, 4>{11111111, 22222222, 33333333, 44444444}));
  EXPECT_EQ(pdes::make_stream(1).initial, (std::array<std::int64_t, 4>{2121435502, 1887977043, 897632862, 446466865}));
  EXPECT_EQ(pdes::make_stream(79).initial, (std::array<std::int64_t, 4>{1490762735, 1257217438, 577213977, 1320367953}));
}

TEST(Clcg4, DrawsMatchRoss) {
  pdes::rng_stream s0 = pdes::make_stream(0);
  EXPECT_DOUBLE_EQ(pdes::unif(s0), 0.9058771825043734);
  EXPECT_DOUBLE_EQ(pdes::unif(s0), 0.4727911181220683);
  EXPECT_DOUBLE_EQ(pdes::unif(s0), 0.36845768553167524);
  pdes::rng_stream s1 = pdes::make_stream(1);
  EXPECT_DOUBLE_EQ(pdes::unif(s1), 0.8707139324367554);
  pdes::rng_stream s79 = pdes::make_stream(79);
  EXPECT_DOUBLE_EQ(pdes::unif(s79), 0.9892543976665183);
}

TEST(Clcg4, ThousandDrawsForwardThenBackReturnToTheStart) {
  pdes::rng_stream s = pdes::make_stream(42);
  const pdes::rng_stream start = s;
  double sum = 0;
  for (int i = 0; i < 1000; ++i) sum += pdes::unif(s);
  EXPECT_EQ(s.count, 1000);
  EXPECT_NEAR(sum / 1000, 0.5, 0.05);
  for (int i = 0; i < 1000; ++i) pdes::reverse_unif(s);
  EXPECT_EQ(s, start);
}

TEST(Clcg4, EachDistributionCostsOneDraw) {
  pdes::rng_stream s = pdes::make_stream(3);
  pdes::rng_stream same = s;
  const double u = pdes::unif(same);
  const long k = pdes::integer(s, 0, 79);
  EXPECT_EQ(k, static_cast<long>(u * 80));
  EXPECT_EQ(s, same);
  const double u2 = pdes::unif(same);
  EXPECT_DOUBLE_EQ(pdes::exponential(s, 0.9), -0.9 * std::log(u2));
  EXPECT_EQ(s.count, 2);
  pdes::reverse_unif(s);
  pdes::reverse_unif(s);
  EXPECT_EQ(s, pdes::make_stream(3));
  EXPECT_EQ(pdes::integer(s, 5, 4), 0);  // an empty range, as under ROSS
}
