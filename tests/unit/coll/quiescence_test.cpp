// Quiescence detection: roam::on_quiescence(cb) fires once, when no message is
// in flight and no PE is busy. A random message storm (seeded; the seed is in
// every failure message, and ROAM_TEST_SEED=<n> replays one) must be fully
// processed before it fires; with no traffic it fires too; and any number of
// pending requests each fire exactly once.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "support/run_roam.hpp"

namespace quiescence_test {

using roam_test::run_on;

namespace {

std::uint64_t test_seed() {
  if (const char* s = std::getenv("ROAM_TEST_SEED")) return std::strtoull(s, nullptr, 10);
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// Ends a run that would otherwise hang with exit code 3.
void arm_watchdog() {
  roam::after(std::chrono::seconds(60), [] { roam::exit(3); });
}

// --- The storm -------------------------------------------------------------------
//
// A message with budget b counts itself and hands b - 1 on to between one and
// three children (each with a positive share), sent to random group members
// and array elements. So a root with budget b makes exactly b messages,
// whatever the random choices: K roots of budget B make K * B.

std::atomic<long> g_sent{0};
std::atomic<long> g_processed{0};

struct storm_targets;

struct storm_member : roam::group_member<storm_member> {
  void hop(std::uint64_t seed, int budget, storm_targets t);
};
struct storm_cell : roam::element<storm_cell> {
  void hop(std::uint64_t seed, int budget, storm_targets t);
};

struct storm_targets {
  roam::group_proxy<storm_member> members;
  roam::array_proxy<storm_cell> cells;
  template <class P>
  void pup(P& p) {
    p | members | cells;
  }
};

void storm_step(std::uint64_t seed, int budget, const storm_targets& t);
void storm_member::hop(std::uint64_t seed, int budget, storm_targets t) { storm_step(seed, budget, t); }
void storm_cell::hop(std::uint64_t seed, int budget, storm_targets t) { storm_step(seed, budget, t); }

constexpr int storm_cells = 16;

void send_hop(std::uint64_t& rng, int budget, const storm_targets& t) {
  std::uint64_t child_seed = splitmix(rng);
  std::uint64_t where = splitmix(rng);
  ++g_sent;
  if (where % 2 == 0) {
    auto pe = static_cast<std::uint32_t>((where >> 1) % roam::num_pes());
    t.members[roam::pe_id{pe}].send<&storm_member::hop>(child_seed, budget, t);
  } else {
    auto i = static_cast<std::int32_t>((where >> 1) % storm_cells);
    t.cells[i].send<&storm_cell::hop>(child_seed, budget, t);
  }
}

void storm_step(std::uint64_t seed, int budget, const storm_targets& t) {
  ++g_processed;
  int rest = budget - 1;
  if (rest == 0) return;
  std::uint64_t rng = seed;
  int children = 1 + static_cast<int>(splitmix(rng) % static_cast<std::uint64_t>(std::min(3, rest)));
  for (int c = 0; c < children; ++c) {
    int left = children - c - 1;  // children still to come, each needs at least 1
    int share = left == 0 ? rest : 1 + static_cast<int>(splitmix(rng) % static_cast<std::uint64_t>(rest - left));
    rest -= share;
    send_hop(rng, share, t);
  }
}

constexpr int storm_roots = 32;
constexpr int storm_budget = 400;
constexpr long storm_messages = long{storm_roots} * storm_budget;

storm_targets make_storm_targets() {
  return {roam::create_group<storm_member>(), roam::create_array<storm_cell>({storm_cells})};
}

void start_storm(std::uint64_t seed, const storm_targets& t) {
  std::uint64_t rng = seed;
  for (int r = 0; r < storm_roots; ++r) send_hop(rng, storm_budget, t);
}

// --- One storm, one quiescence, a second storm, a second quiescence ---------------------

struct fire_record {
  int fires = 0;
  long processed = -1;
  long sent = -1;
};
// Written only on PE 0 (the callbacks run there); read after the run.
fire_record g_first, g_second;
int g_first_fires_at_end = -1;
storm_targets g_targets;  // set on PE 0 by main, used on PE 0 only
std::uint64_t g_seed = 0;

void second_quiescence() {
  ++g_second.fires;
  g_second.processed = g_processed.load();
  g_second.sent = g_sent.load();
  // A repeated delivery of either callback would show up within this delay.
  roam::after(std::chrono::milliseconds(30), [] {
    g_first_fires_at_end = g_first.fires;
    roam::exit(0);
  });
}

void first_quiescence() {
  ++g_first.fires;
  g_first.processed = g_processed.load();
  g_first.sent = g_sent.load();
  if (g_first.fires != 1) return;
  // New traffic after quiescence, and a new request: it must wait for the second storm.
  start_storm(g_seed ^ 0x5555555555555555ull, g_targets);
  roam::on_quiescence(roam::callback<>::function<&second_quiescence>(roam::pe_id{0}));
}

}  // namespace

TEST(quiescence, fires_once_after_each_random_message_storm_and_only_once_every_message_was_processed) {
  for (unsigned pes : {1u, 2u, 4u}) {
    std::uint64_t seed = test_seed();
    SCOPED_TRACE("seed " + std::to_string(seed) + " (ROAM_TEST_SEED replays it), " + std::to_string(pes) + " pes");
    g_sent = 0;
    g_processed = 0;
    g_first = {};
    g_second = {};
    g_first_fires_at_end = -1;
    g_seed = seed;
    int rc = run_on(pes, [](const roam::args&) {
      arm_watchdog();
      g_targets = make_storm_targets();
      start_storm(g_seed, g_targets);
      // Requested while the storm is in full flight.
      roam::on_quiescence(roam::callback<>::function<&first_quiescence>(roam::pe_id{0}));
    });
    ASSERT_EQ(rc, 0);
    EXPECT_EQ(g_first.fires, 1);
    EXPECT_EQ(g_first_fires_at_end, 1);
    EXPECT_EQ(g_first.processed, storm_messages);
    EXPECT_EQ(g_first.sent, storm_messages);
    EXPECT_EQ(g_second.fires, 1);
    EXPECT_EQ(g_second.processed, 2 * storm_messages);
    EXPECT_EQ(g_second.sent, 2 * storm_messages);
    EXPECT_EQ(g_processed.load(), 2 * storm_messages);
  }
}

// The same storms under the deterministic driver (+deterministic SEED), over
// 40 seeds on 4 PEs: the PE order of every run is the seed's, so a failure
// replays exactly (ROAM_TEST_SEED=<seed> runs that seed alone).
TEST(quiescence, deterministic_driver_fires_once_after_each_storm_for_every_seed) {
  std::uint64_t first = 1, last = 40;
  if (const char* s = std::getenv("ROAM_TEST_SEED")) first = last = std::strtoull(s, nullptr, 10);
  for (std::uint64_t seed = first; seed <= last; ++seed) {
    SCOPED_TRACE("+deterministic " + std::to_string(seed) + " (ROAM_TEST_SEED=" + std::to_string(seed) + " replays it)");
    g_sent = 0;
    g_processed = 0;
    g_first = {};
    g_second = {};
    g_first_fires_at_end = -1;
    g_seed = seed * 0x9e3779b97f4a7c15ull;
    int rc = run_on(
        4,
        [](const roam::args&) {
          arm_watchdog();
          g_targets = make_storm_targets();
          start_storm(g_seed, g_targets);
          roam::on_quiescence(roam::callback<>::function<&first_quiescence>(roam::pe_id{0}));
        },
        {"+deterministic", std::to_string(seed)});
    ASSERT_EQ(rc, 0);
    ASSERT_EQ(g_first.fires, 1);
    ASSERT_EQ(g_first_fires_at_end, 1);
    ASSERT_EQ(g_first.processed, storm_messages);
    ASSERT_EQ(g_second.fires, 1);
    ASSERT_EQ(g_second.processed, 2 * storm_messages);
  }
}

// --- No traffic at all -------------------------------------------------------------------

namespace {
std::atomic<int> g_quiet_fires{0};
void quiet() { ++g_quiet_fires; }
}  // namespace

TEST(quiescence, fires_once_with_no_traffic_at_all) {
  for (unsigned pes : {1u, 2u, 4u}) {
    SCOPED_TRACE(std::to_string(pes) + " pes");
    g_quiet_fires = 0;
    int fires_seen_by_main = -1;
    int rc = run_on(pes, [&fires_seen_by_main](const roam::args&) -> roam::task<> {
      arm_watchdog();
      auto [f, p] = roam::make_future<void>();
      roam::on_quiescence(roam::callback<>::to_future(p));
      roam::on_quiescence(roam::callback<>::function<&quiet>(roam::pe_id{roam::num_pes() - 1}));
      co_await f;
      // A second fulfilment of the first future would be a fatal error (exit code 1);
      // another quiescence gives it every chance to happen.
      auto [g, q] = roam::make_future<void>();
      roam::on_quiescence(roam::callback<>::to_future(q));
      co_await g;
      fires_seen_by_main = g_quiet_fires.load();
      roam::exit(0);
    });
    ASSERT_EQ(rc, 0);
    EXPECT_EQ(fires_seen_by_main, 1);
    EXPECT_EQ(g_quiet_fires.load(), 1);
  }
}

// --- Many requests pending at once --------------------------------------------------------

namespace {

constexpr int requesters = 12;
std::atomic<int> g_request_fires{0};
std::atomic<int> g_fired_early{0};  // fired before the storm was fully processed
int g_requests_expected = 0;
std::atomic<int> g_final_fires{0};
std::vector<std::atomic<int>> g_fires_by_requester(requesters);
std::vector<std::atomic<int>> g_fires_by_pe(4);

void final_quiescence() {
  ++g_final_fires;
  roam::after(std::chrono::milliseconds(30), [] { roam::exit(0); });
}

void note_request_fired() {
  if (g_processed.load() != storm_messages) ++g_fired_early;
  if (++g_request_fires == g_requests_expected)
    roam::on_quiescence(roam::callback<>::function<&final_quiescence>(roam::pe_id{0}));
}

struct requester : roam::element<requester> {
  // Two requests each: one to this element's entry, one to a function on its PE.
  void request() {
    roam::on_quiescence(roam::callback<>::to<&requester::fired>(this_proxy()));
    roam::on_quiescence(roam::callback<>::function<&on_pe_fired>(roam::my_pe()));
  }
  void fired() {
    ++g_fires_by_requester[static_cast<std::size_t>(this_index()[0])];
    note_request_fired();
  }
  static void on_pe_fired() {
    ++g_fires_by_pe[roam::my_pe().value()];
    note_request_fired();
  }
};

struct quiet_member : roam::group_member<quiet_member> {
  void all_quiet() {
    ++g_fires_by_pe[roam::my_pe().value()];
    note_request_fired();
  }
};

std::atomic<int> g_future_fires{0};

}  // namespace

TEST(quiescence, many_requests_pending_at_once_from_every_pe_each_fire_exactly_once_after_the_storm) {
  for (unsigned pes : {1u, 2u, 4u}) {
    std::uint64_t seed = test_seed();
    SCOPED_TRACE("seed " + std::to_string(seed) + " (ROAM_TEST_SEED replays it), " + std::to_string(pes) + " pes");
    g_sent = 0;
    g_processed = 0;
    g_request_fires = 0;
    g_fired_early = 0;
    g_final_fires = 0;
    g_future_fires = 0;
    for (auto& f : g_fires_by_requester) f = 0;
    for (auto& f : g_fires_by_pe) f = 0;
    // 2 per requester, 1 broadcast reaching every PE's member, and main's future.
    g_requests_expected = 2 * requesters + static_cast<int>(pes) + 1;
    g_seed = seed;
    int rc = run_on(pes, [](const roam::args&) -> roam::task<> {
      arm_watchdog();
      auto targets = make_storm_targets();
      start_storm(g_seed, targets);
      auto reqs = roam::create_array<requester>(roam::array_options<1>({requesters}, roam::round_robin_map()));
      reqs.send<&requester::request>();  // made on every PE while the storm runs
      auto members = roam::create_group<quiet_member>();
      roam::on_quiescence(roam::callback<>::broadcast<&quiet_member::all_quiet>(members));
      auto [f, p] = roam::make_future<void>();
      roam::on_quiescence(roam::callback<>::to_future(p));
      co_await f;
      ++g_future_fires;
      note_request_fired();
    });
    ASSERT_EQ(rc, 0);
    EXPECT_EQ(g_processed.load(), storm_messages);
    EXPECT_EQ(g_fired_early.load(), 0);
    EXPECT_EQ(g_request_fires.load(), g_requests_expected);
    EXPECT_EQ(g_final_fires.load(), 1);
    EXPECT_EQ(g_future_fires.load(), 1);
    for (int r = 0; r < requesters; ++r) EXPECT_EQ(g_fires_by_requester[static_cast<std::size_t>(r)].load(), 1) << r;
    // Per PE: the function requests of the requesters it hosts, plus its group member's broadcast.
    for (unsigned pe = 0; pe < pes; ++pe) {
      int hosted = 0;
      for (int r = 0; r < requesters; ++r) hosted += static_cast<unsigned>(r) % pes == pe ? 1 : 0;
      EXPECT_EQ(g_fires_by_pe[pe].load(), hosted + 1) << "pe " << pe;
    }
  }
}

// --- Busy PEs and fan-out --------------------------------------------------------------------

namespace {

std::atomic<bool> g_tail_done{false};
std::atomic<int> g_busy_fires{0};
bool g_tail_done_at_fire = false;

struct tail_chare : roam::chare<tail_chare> {
  void tail() { g_tail_done = true; }
};

struct busy_chare : roam::chare<busy_chare> {
  // Keeps its PE busy with no message in flight, then sends one.
  void work(roam::chare_proxy<tail_chare> t) {
    auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
    while (std::chrono::steady_clock::now() < until) {
    }
    t.send<&tail_chare::tail>();
  }
};

void busy_quiescence() {
  ++g_busy_fires;
  g_tail_done_at_fire = g_tail_done.load();
  roam::after(std::chrono::milliseconds(20), [] { roam::exit(0); });
}

}  // namespace

TEST(quiescence, waits_for_a_pe_busy_in_a_long_entry_method_and_the_message_it_sends_at_the_end) {
  for (unsigned pes : {1u, 2u, 4u}) {
    SCOPED_TRACE(std::to_string(pes) + " pes");
    g_tail_done = false;
    g_busy_fires = 0;
    g_tail_done_at_fire = false;
    int rc = run_on(pes, [](const roam::args&) {
      arm_watchdog();
      auto t = roam::create_chare_on<tail_chare>(roam::pe_id{0});
      auto b = roam::create_chare_on<busy_chare>(roam::pe_id{roam::num_pes() - 1});
      b.send<&busy_chare::work>(t);
      roam::on_quiescence(roam::callback<>::function<&busy_quiescence>(roam::pe_id{0}));
    });
    ASSERT_EQ(rc, 0);
    EXPECT_EQ(g_busy_fires.load(), 1);
    EXPECT_TRUE(g_tail_done_at_fire);
  }
}

namespace {

constexpr int fan_cells = 1000;
constexpr int fan_sends = 3;
std::atomic<long> g_fan_processed{0};
std::atomic<int> g_fan_fires{0};
long g_fan_processed_at_fire = -1;

struct fan_cell : roam::element<fan_cell> {
  void spread() {
    ++g_fan_processed;
    std::uint64_t rng = static_cast<std::uint64_t>(this_index()[0]);
    for (int k = 0; k < fan_sends; ++k)
      this_array()[static_cast<std::int32_t>(splitmix(rng) % fan_cells)].send<&fan_cell::land>();
  }
  void land() { ++g_fan_processed; }
};

void fan_quiescence() {
  ++g_fan_fires;
  g_fan_processed_at_fire = g_fan_processed.load();
  roam::after(std::chrono::milliseconds(20), [] { roam::exit(0); });
}

}  // namespace

TEST(quiescence, waits_for_a_broadcast_to_fan_out_and_for_every_message_it_causes) {
  for (unsigned pes : {1u, 2u, 4u}) {
    SCOPED_TRACE(std::to_string(pes) + " pes");
    g_fan_processed = 0;
    g_fan_fires = 0;
    g_fan_processed_at_fire = -1;
    int rc = run_on(pes, [](const roam::args&) {
      arm_watchdog();
      auto cells = roam::create_array<fan_cell>({fan_cells});
      // Requested before the broadcast is even sent.
      roam::on_quiescence(roam::callback<>::function<&fan_quiescence>(roam::pe_id{0}));
      cells.send<&fan_cell::spread>();
    });
    ASSERT_EQ(rc, 0);
    EXPECT_EQ(g_fan_fires.load(), 1);
    EXPECT_EQ(g_fan_processed_at_fire, long{fan_cells} * (1 + fan_sends));
  }
}

}  // namespace quiescence_test
