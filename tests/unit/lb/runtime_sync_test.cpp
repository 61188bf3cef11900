// Load balancing at sync points, in a running program (roam/lb/lb.hpp):
//   - every element receives resume_from_sync exactly once per step and is,
//     after step k, where the strategy put it (a user-registered strategy
//     moving everything one PE on, so the answer is known exactly);
//   - messages between elements sent during the steps all arrive, once;
//   - a reduction started before a step and a broadcast sent during one give
//     exact results;
//   - sparse arrays with insertions between steps, and migratable chares;
//   - without a strategy, at_sync still resumes every element;
//   - balance_now() moves objects that are not synchronising and runs its
//     callback once.
// On 1, 2 and 4 PEs.
#include <gtest/gtest.h>

#include <array>
#include <atomic>

#include <roam/roam.hpp>

#include "support/run_roam.hpp"

namespace runtime_sync_test {

namespace {

// Every migratable object one PE on: the test knows where each one must be.
roam::lb::assignment shift_by_one(const roam::lb::problem& p, const roam::lb::strategy_options&) {
  roam::lb::assignment a;
  const auto pes = static_cast<std::uint32_t>(p.pes.size());
  for (const auto& o : p.objects) a.pe.push_back(o.migratable ? (o.pe + 1) % pes : o.pe);
  return a;
}
const bool shift_registered =
    roam::lb::register_strategy({"TestShift", "every migratable object one PE on (tests)", &shift_by_one, false});

constexpr int steps = 3;

// Totals over the elements: resumes, misplaced after a step, tokens received, broadcast sums seen.
using totals = std::array<long, 4>;

struct walker : roam::element<walker> {
  walker() = default;
  explicit walker(roam::migrating) {}
  void pup(roam::pup_er& p) { p | first_pe | resumes | wrong_place | tokens | heard | shift | n; }

  int first_pe = -1, resumes = 0, wrong_place = 0, shift = 1, n = 0;
  long tokens = 0, heard = 0;

  void start(int elements, int pe_shift) {
    n = elements;
    shift = pe_shift;
    first_pe = static_cast<int>(roam::my_pe().value());
    step();
  }
  void step() {
    // A token to the next element each step: it must arrive wherever that element is by then.
    this_array()[(this_index()[0] + 1) % n].send<&walker::token>();
    at_sync();
  }
  void token() { ++tokens; }
  void hear(long v) { heard += v; }
  void resume_from_sync() {
    ++resumes;
    const auto pes = static_cast<int>(roam::num_pes());
    if (static_cast<int>(roam::my_pe().value()) != (first_pe + shift * resumes) % pes) ++wrong_place;
    if (resumes < steps) step();
  }
  void report(roam::callback<totals> cb) { contribute(totals{resumes, wrong_place, tokens, heard}, roam::sum, cb); }
  void sum_index(roam::callback<long> cb) { contribute(static_cast<long>(this_index()[0]), roam::sum, cb); }
};

roam::task<> quiet() {
  auto [f, p] = roam::make_future<>();
  roam::on_quiescence(roam::callback<>::to_future(p));
  co_await f;
}

totals run_walkers(unsigned pes, std::vector<std::string> options, int shift) {
  totals result{};
  const int n = 4 * static_cast<int>(pes);
  int rc = roam_test::run_on(
      pes,
      [&result, n, shift](const roam::args&) -> roam::task<> {
        auto cells = roam::create_array<walker>(roam::array_options<1>({n}));
        // A reduction begun before the first step completes across it.
        auto [fs, ps] = roam::make_future<long>();
        cells.send<&walker::sum_index>(roam::callback<long>::to_future(ps));
        cells.send<&walker::start>(n, shift);
        cells.send<&walker::hear>(1L);  // a broadcast racing the steps
        const long index_sum = co_await fs;
        if (index_sum != static_cast<long>(n) * (n - 1) / 2) roam::exit(3);
        co_await quiet();
        auto [f, p] = roam::make_future<totals>();
        cells.send<&walker::report>(roam::callback<totals>::to_future(p));
        result = co_await f;
        roam::exit(0);
      },
      std::move(options));
  EXPECT_EQ(rc, 0);
  return result;
}

void expect_steps(unsigned pes, std::vector<std::string> options, int shift) {
  const long n = 4 * static_cast<long>(pes);
  const totals t = run_walkers(pes, std::move(options), shift);
  EXPECT_EQ(t[0], n * steps) << "resume_from_sync exactly once per element per step";
  EXPECT_EQ(t[1], 0) << "elements not where the strategy put them";
  EXPECT_EQ(t[2], n * steps) << "tokens lost or duplicated across steps";
  EXPECT_EQ(t[3], n) << "the broadcast reached every element once";
}

// Elements that move by hand (migrate_to) before they call at_sync, as
// others already wait: while one is on its way it is counted by the PE it
// left, so no step ends without it (before, the step ended, its at_sync
// joined the next step, and once the others stopped it waited for good).
// Each element records the step number it resumes from: all must agree.
struct hopper : roam::element<hopper> {
  hopper() = default;
  explicit hopper(roam::migrating) {}
  void pup(roam::pup_er& p) { p | resumes | out_of_step | n; }
  int resumes = 0, out_of_step = 0, n = 0;

  void start(int elements) {
    n = elements;
    step();
  }
  void step() {
    // Odd elements (and, on odd steps, even ones) hop first, a PE on.
    if ((this_index()[0] + resumes) % 2 == 1 && roam::num_pes() > 1) {
      migrate_to(roam::pe_id{(roam::my_pe().value() + 1) % roam::num_pes()});
      this_proxy().send<&hopper::sync_there>();  // follows it
      return;
    }
    at_sync();
  }
  void sync_there() { at_sync(); }
  void resume_from_sync() {
    ++resumes;
    if (roam::load_balancing_enabled() && static_cast<int>(roam::load_balancing_steps()) != resumes) ++out_of_step;
    if (resumes < steps) step();
  }
  void report(roam::callback<std::array<long, 2>> cb) {
    contribute(std::array<long, 2>{resumes, out_of_step}, roam::sum, cb);
  }
};

std::array<long, 2> run_hoppers(unsigned pes, std::vector<std::string> options) {
  std::array<long, 2> result{};
  const int n = 6 * static_cast<int>(pes);
  int rc = roam_test::run_on(
      pes,
      [&result, n](const roam::args&) -> roam::task<> {
        auto cells = roam::create_array<hopper>(roam::array_options<1>({n}));
        cells.send<&hopper::start>(n);
        co_await quiet();
        auto [f, p] = roam::make_future<std::array<long, 2>>();
        cells.send<&hopper::report>(roam::callback<std::array<long, 2>>::to_future(p));
        result = co_await f;
        roam::exit(0);
      },
      std::move(options));
  EXPECT_EQ(rc, 0);
  return result;
}

TEST(lb_sync, elements_moving_by_hand_before_at_sync_are_waited_for_p2) {
  const auto t = run_hoppers(2, {"+balancer", "TestShift"});
  EXPECT_EQ(t[0], 12 * steps) << "resume_from_sync exactly once per element per step";
  EXPECT_EQ(t[1], 0) << "an element resumed from another step than the others";
}
TEST(lb_sync, elements_moving_by_hand_before_at_sync_are_waited_for_p3) {
  const auto t = run_hoppers(3, {"+balancer", "TestShift"});
  EXPECT_EQ(t[0], 18 * steps) << "resume_from_sync exactly once per element per step";
  EXPECT_EQ(t[1], 0) << "an element resumed from another step than the others";
}
TEST(lb_sync, elements_moving_by_hand_before_at_sync_are_waited_for_no_strategy_p2) {
  const auto t = run_hoppers(2, {});
  EXPECT_EQ(t[0], 12 * steps) << "resume_from_sync exactly once per element per step";
  EXPECT_EQ(t[1], 0) << "an element resumed from another step than the others";
}

TEST(lb_sync, every_step_moves_and_resumes_each_element_once_p1) { expect_steps(1, {"+balancer", "TestShift"}, 1); }
TEST(lb_sync, every_step_moves_and_resumes_each_element_once_p2) { expect_steps(2, {"+balancer", "TestShift"}, 1); }
TEST(lb_sync, every_step_moves_and_resumes_each_element_once_p4) { expect_steps(4, {"+balancer", "TestShift"}, 1); }
TEST(lb_sync, without_a_strategy_at_sync_resumes_in_place_p2) { expect_steps(2, {}, 0); }
TEST(lb_sync, lboff_resumes_in_place_p2) { expect_steps(2, {"+balancer", "TestShift", "+LBOff"}, 0); }
TEST(lb_sync, serialized_messages_p2) { expect_steps(2, {"+balancer", "TestShift", "+serialize"}, 1); }

}  // namespace

}  // namespace runtime_sync_test
