// The parallel schedulers against the sequential one: every LP's final state
// (an order-sensitive hash of the events it ran, its commit count) and the
// committed count must be the same under every scheduler, PE count and chare
// size, including with ties in time (zero-offset sends) and with rollbacks
// forced by slow LPs.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <roam/pdes/simulation.hpp>

#include "../../../tests/support/run_roam.hpp"

namespace {

namespace pdes = roam::pdes;

/// The inverse of an odd number modulo 2^64 (Newton's iteration).
constexpr std::uint64_t inverse_mod_2_64(std::uint64_t a) {
  std::uint64_t x = a;
  for (int i = 0; i < 6; ++i) x *= 2 - a * x;
  return x;
}
constexpr std::uint64_t hash_mul = 0x9e3779b97f4a7c15ull;
constexpr std::uint64_t hash_mul_inverse = inverse_mod_2_64(hash_mul);
static_assert(hash_mul * hash_mul_inverse == 1);

struct lp_state {
  std::uint64_t events = 0;   // forward minus reversed
  std::uint64_t commits = 0;  // commit handler calls (never reversed)
  std::uint64_t hash = 0;     // of the events in the order they ran
  friend bool operator==(const lp_state&, const lp_state&) = default;
  template <class P>
  void pup(P& p) {
    p | events | commits | hash;
  }
};

std::vector<lp_state> g_final;  // written by each LP's final handler (one writer per gid)

struct test_model {
  using state = lp_state;
  struct message {
    std::uint64_t hops = 0;
  };
  std::uint64_t lps = 16;
  double remote = 0.5;
  double zero_offset = 0.0;  // share of sends with offset 0 (ties in time)
  double lookahead = 0.1;
  std::uint32_t start = 4;
  std::uint64_t slow_lps = 0;  // the first slow_lps LPs spin slow_work iterations per event
  std::uint32_t slow_work = 0;

  static std::uint64_t item(const pdes::lp<test_model>& lp, const message& m) {
    std::uint64_t bits;
    const double t = lp.now();
    std::memcpy(&bits, &t, sizeof bits);
    return bits ^ (m.hops << 1) ^ 1;
  }
  void init(state&, pdes::lp<test_model>& lp) {
    for (std::uint32_t i = 0; i < start; ++i) lp.send(lp.gid(), lookahead + pdes::exponential(lp.rng(), 1.0), {0});
  }
  void event(state& s, pdes::bitfield& bf, message& m, pdes::lp<test_model>& lp) {
    ++s.events;
    s.hash = s.hash * hash_mul + item(lp, m);
    pdes::lp_id dest = lp.gid();
    if (pdes::unif(lp.rng()) < remote) {
      bf.c0 = 1;
      dest = static_cast<pdes::lp_id>(pdes::integer(lp.rng(), 0, static_cast<long>(lps) - 1));
    }
    double offset = 0;
    if (pdes::unif(lp.rng()) < zero_offset) bf.c1 = 1;
    else offset = lookahead + pdes::exponential(lp.rng(), 1.0);
    if (lp.gid() < slow_lps) {
      volatile std::uint64_t x = 0;
      for (std::uint32_t i = 0; i < slow_work; ++i) x = x + i;
    }
    lp.send(dest, offset, {m.hops + 1});
  }
  void reverse(state& s, pdes::bitfield& bf, message& m, pdes::lp<test_model>& lp) {
    const int draws = 2 + bf.c0 + (bf.c1 ? 0 : 1);
    for (int i = 0; i < draws; ++i) pdes::reverse_unif(lp.rng());
    s.hash = (s.hash - item(lp, m)) * hash_mul_inverse;
    --s.events;
  }
  void commit(state& s, pdes::bitfield&, message&, pdes::lp<test_model>&) { ++s.commits; }
  void final(state& s, pdes::lp<test_model>& lp) { g_final[lp.gid()] = s; }
  template <class P>
  void pup(P& p) {
    p | lps | remote | zero_offset | lookahead | start | slow_lps | slow_work;
  }
};

struct reference {
  pdes::run_stats stats;
  std::vector<lp_state> states;
};

reference sequential(const test_model& m, double end) {
  g_final.assign(m.lps, {});
  pdes::sequential_engine<test_model> e(m, m.lps, end);
  reference r;
  r.stats = e.run();
  r.states = g_final;
  return r;
}

pdes::run_stats parallel(const test_model& m, pdes::engine_options o, unsigned pes, std::vector<std::string> extra = {}) {
  g_final.assign(m.lps, {});
  pdes::run_stats out;
  const int rc = roam_test::run_on(pes, [&](const roam::args&) -> roam::task<> {
    out = co_await pdes::simulate(m, o);
    roam::exit(0);
  }, std::move(extra));
  EXPECT_EQ(rc, 0);
  return out;
}

/// The options of the tests' optimistic runs: all of m's LPs, GVT checked.
pdes::engine_options optimistic_options(const test_model& m, double end, pdes::lp_id per_chare) {
  pdes::engine_options o;
  o.lps = m.lps;
  o.end = end;
  o.mode = pdes::synch::optimistic;
  o.lookahead = m.lookahead;
  o.lps_per_chare = per_chare;
  o.check_gvt = true;
  return o;
}

void expect_same(const reference& ref, const pdes::run_stats& got, const char* what) {
  EXPECT_EQ(got.committed, ref.stats.committed) << what;
  EXPECT_EQ(got.past_end, ref.stats.past_end) << what;
  EXPECT_EQ(got.processed - got.rolled_back, got.committed) << what;
  ASSERT_EQ(g_final.size(), ref.states.size());
  for (std::size_t g = 0; g < g_final.size(); ++g) {
    EXPECT_EQ(g_final[g], ref.states[g]) << what << ": LP " << g;
    EXPECT_EQ(g_final[g].commits, g_final[g].events) << what << ": LP " << g;
  }
}

struct config {
  pdes::synch mode;
  unsigned pes;
  pdes::lp_id per_chare;
};

// GoogleTest prints a parameter in the test listing, which gtest_discover_tests
// copies into CTest's test name; without this it dumps the struct's bytes,
// padding included, and the names changed from build to build.
void PrintTo(const config& c, std::ostream* os) {
  *os << pdes::synch_name(c.mode) << "/p" << c.pes << "/chare" << c.per_chare;
}

class schedulers : public ::testing::TestWithParam<config> {};

TEST_P(schedulers, same_final_states_as_sequential) {
  const config c = GetParam();
  test_model m;
  m.lps = 24;
  const double end = 60;
  const reference ref = sequential(m, end);
  ASSERT_GT(ref.stats.committed, 1000u);
  pdes::engine_options o = optimistic_options(m, end, c.per_chare);
  o.mode = c.mode;
  const pdes::run_stats got = parallel(m, o, c.pes);
  expect_same(ref, got, pdes::synch_name(c.mode));
  if (c.mode == pdes::synch::conservative) {
    EXPECT_EQ(got.rolled_back, 0u);
  }
  if (c.mode == pdes::synch::optimistic_check) {
    EXPECT_EQ(got.checked, got.processed);
  }
}

std::vector<config> all_configs() {
  std::vector<config> v;
  for (auto mode : {pdes::synch::conservative, pdes::synch::optimistic, pdes::synch::optimistic_check}) {
    for (unsigned pes : {1u, 2u, 4u}) {
      for (pdes::lp_id per : {1u, 5u, 24u}) v.push_back({mode, pes, per});
    }
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(pdes, schedulers, ::testing::ValuesIn(all_configs()), [](const auto& param_info) {
  const config& c = param_info.param;
  std::string name = pdes::synch_name(c.mode);
  for (char& ch : name)
    if (ch == '-') ch = '_';
  return name + "_p" + std::to_string(c.pes) + "_chare" + std::to_string(c.per_chare);
});

// Ties: a third of the sends at offset 0, so many events share a timestamp
// and order by (source, send counter) alone; stragglers with equal times.
TEST(pdes_engine, ties_in_time_keep_the_order) {
  test_model m;
  m.lps = 12;
  m.zero_offset = 0.3;
  const double end = 40;
  const reference ref = sequential(m, end);
  for (unsigned pes : {1u, 2u, 4u}) {
    const pdes::run_stats got = parallel(m, optimistic_options(m, end, 1), pes);
    expect_same(ref, got, pes == 1 ? "ties p1" : pes == 2 ? "ties p2" : "ties p4");
  }
}

// Slow LPs on the first PE: the others run ahead and are rolled back by its
// events; with four PEs their anti-messages reach events already processed
// elsewhere (secondary rollbacks). The outcome must not change.
TEST(pdes_engine, forced_rollbacks_keep_the_result) {
  test_model m;
  m.lps = 32;
  m.remote = 1.0;
  m.slow_lps = 8;
  m.slow_work = 20000;
  const double end = 30;
  const reference ref = sequential(m, end);
  pdes::engine_options o = optimistic_options(m, end, 8);  // the slow LPs are chare 0, on PE 0
  o.batch = 64;
  const pdes::run_stats got = parallel(m, o, 4);
  std::printf("forced rollbacks: processed %llu, rolled back %llu, primary %llu, secondary %llu, anti-messages %llu\n",
              static_cast<unsigned long long>(got.processed), static_cast<unsigned long long>(got.rolled_back),
              static_cast<unsigned long long>(got.primary_rollbacks),
              static_cast<unsigned long long>(got.secondary_rollbacks),
              static_cast<unsigned long long>(got.anti_messages));
  expect_same(ref, got, "forced rollbacks");
  EXPECT_GT(got.rolled_back, 0u);
  EXPECT_GT(got.primary_rollbacks, 0u);
  EXPECT_GT(got.anti_messages, 0u);
  EXPECT_GT(got.secondary_rollbacks, 0u);
}

// Load balancing: the slow LPs' chares all start on PE 0; the balancer,
// measuring the time of each chare's events, moves chares; the LPs, rolled
// back to GVT at each step, go on where they land, with the same outcome.
TEST(pdes_engine, balancing_moves_chares_and_keeps_the_result) {
  test_model m;
  m.lps = 32;
  m.remote = 0.5;
  m.slow_lps = 8;
  m.slow_work = 5000;
  const double end = 150;
  const reference ref = sequential(m, end);
  pdes::engine_options o = optimistic_options(m, end, 4);  // 8 chares, 4 per PE; chares 0 and 1 slow, both on PE 0
  o.balance_every = 10;
  const pdes::run_stats got = parallel(m, o, 2, {"+balancer", "Greedy"});
  std::printf("balancing: %llu steps, %llu chares moved, %llu rolled back\n",
              static_cast<unsigned long long>(got.balancing_steps), static_cast<unsigned long long>(got.chares_moved),
              static_cast<unsigned long long>(got.rolled_back));
  expect_same(ref, got, "balancing");
  EXPECT_GT(got.balancing_steps, 1u);
  EXPECT_GT(got.chares_moved, 0u);
  // The same with every move packed and unpacked (as between processes).
  const pdes::run_stats packed = parallel(m, o, 2, {"+balancer", "Greedy", "+serialize"});
  expect_same(ref, packed, "balancing, +serialize");
  EXPECT_GT(packed.chares_moved, 0u);
}

// Without +balancer, balance_every does nothing (no step, no pause).
TEST(pdes_engine, no_balancer_no_steps) {
  test_model m;
  const double end = 30;
  const reference ref = sequential(m, end);
  pdes::engine_options o = optimistic_options(m, end, 0);
  o.balance_every = 2;
  const pdes::run_stats got = parallel(m, o, 2);
  expect_same(ref, got, "no balancer");
  EXPECT_EQ(got.balancing_steps, 0u);
}

TEST(pdes_engine, options_are_checked) {
  pdes::engine_options o;
  EXPECT_THROW(pdes::resolve(o), std::invalid_argument);  // no LPs
  o.lps = 4;
  EXPECT_THROW(pdes::resolve(o), std::invalid_argument);  // no end
  o.end = 10;
  o.mode = pdes::synch::conservative;
  EXPECT_THROW(pdes::resolve(o), std::invalid_argument);  // no lookahead
  o.lookahead = 0.5;
  o.batch = 0;
  EXPECT_THROW(pdes::resolve(o), std::invalid_argument);
  pdes::synch s{};
  EXPECT_FALSE(pdes::parse_synch("timewarp", s));
  EXPECT_TRUE(pdes::parse_synch("optimistic-check", s));
  EXPECT_EQ(s, pdes::synch::optimistic_check);
}

}  // namespace
