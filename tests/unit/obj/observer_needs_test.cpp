// What an observer declares it needs (roam/sched/observe.hpp, observer_needs)
// is what it gets, and no more: one that needs only begin times receives no
// entry_begin calls, and each entry_end carries the begin's reading, the end
// untimed (0) unless nested in another entry (a threaded entry's slice), which
// then is timed; sends are
// not numbered unless someone needs flows; identities stay empty unless
// needed. Beside it, an observer needing everything sees begins, timed ends
// and numbered flows, in the same run.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>

#include <roam/roam.hpp>
#include <roam/sched/observe.hpp>

#include "support/run_roam.hpp"

namespace observer_needs_test {

namespace {

constexpr int elements = 8;

struct lean : roam::runtime_observer {
  std::uint32_t extra = 0;  // needs beyond begin times
  std::atomic<long> begins{0}, ends{0}, top_untimed{0}, nested_timed{0}, bad{0}, flows{0}, sends{0};
  std::uint32_t needs() const noexcept override { return roam::need_begin_times | extra; }
  void entry_begin(const roam::entry_event&) noexcept override { ++begins; }
  void entry_end(const roam::entry_event& e) noexcept override {
    ++ends;
    if (e.begin_ticks == 0) ++bad;                                       // begins are timed
    if (!(extra & roam::need_identity) && e.object.kind != roam::object_kind::none) ++bad;
    if (e.nested) {
      if (e.ticks >= e.begin_ticks && e.ticks != 0) ++nested_timed;
      else ++bad;
    } else if (e.ticks == 0) {
      ++top_untimed;
    }
  }
  void message_sent(const roam::message_event& e) noexcept override {
    ++sends;
    if (e.flow != 0) ++flows;
  }
};

struct full : roam::runtime_observer {
  std::atomic<long> begins{0}, ends{0}, untimed_ends{0}, unnumbered{0}, sends{0}, wrong_nesting{0};
  void entry_begin(const roam::entry_event&) noexcept override { ++begins; }
  void entry_end(const roam::entry_event& e) noexcept override {
    ++ends;
    if (e.ticks == 0 || e.ticks < e.begin_ticks) ++untimed_ends;
    if ((e.how == roam::run_kind::thread) != e.nested) ++wrong_nesting;  // only thread slices nest here
  }
  void message_sent(const roam::message_event& e) noexcept override {
    ++sends;
    if (e.flow == 0) ++unnumbered;
  }
};

// A threaded entry starts its thread inside the entry that invokes it: the
// thread's first (here only) slice is nested in that entry.
struct nester : roam::element<nester> {
  static constexpr auto threaded_entries() { return roam::entry_list<&nester::outer>{}; }
  nester() = default;
  explicit nester(roam::migrating) {}
  void pup(roam::pup_er&) {}
  void outer(roam::callback<> done) { contribute(done); }
};

int run_program() {
  return roam_test::run_on(1, [](const roam::args&) -> roam::task<> {
    auto cells = roam::create_array<nester>(roam::array_options<1>({elements}));
    auto [f, p] = roam::make_future<>();
    cells.send<&nester::outer>(roam::callback<>::to_future(p));
    co_await f;
    roam::exit(0);
  });
}

TEST(observer_needs, an_observer_needing_begin_times_only_gets_ends_carrying_them) {
  lean l;
  ASSERT_TRUE(roam::add_observer(l));
  const int rc = run_program();
  roam::remove_observer(l);
  ASSERT_EQ(rc, 0);
  EXPECT_EQ(l.begins, 0) << "no entry_begin calls without need_begin_calls";
  EXPECT_GE(l.ends, 2 * elements);
  EXPECT_EQ(l.nested_timed, elements) << "each thread slice nested in its entry is timed";
  EXPECT_GE(l.top_untimed, elements) << "entries not nested end untimed";
  EXPECT_EQ(l.bad, 0);
  EXPECT_GT(l.sends, 0);
  EXPECT_EQ(l.flows, 0) << "sends are not numbered unless someone needs flows";
}

TEST(observer_needs, the_union_of_needs_is_what_every_observer_gets) {
  lean l;
  l.extra = roam::need_identity;
  full f;
  ASSERT_TRUE(roam::add_observer(l));
  ASSERT_TRUE(roam::add_observer(f));
  const int rc = run_program();
  roam::remove_observer(l);
  roam::remove_observer(f);
  ASSERT_EQ(rc, 0);
  EXPECT_EQ(f.begins, f.ends);
  EXPECT_EQ(l.begins, l.ends) << "begin calls go to every observer once anyone needs them";
  EXPECT_EQ(f.untimed_ends, 0);
  EXPECT_EQ(f.wrong_nesting, 0);
  EXPECT_EQ(f.unnumbered, 0);
  EXPECT_EQ(l.flows, l.sends) << "flows are numbered for everyone once anyone needs them";
  EXPECT_EQ(l.top_untimed, 0) << "ends are timed for everyone once anyone needs end times";
  EXPECT_EQ(l.bad, 0);
}

}  // namespace

}  // namespace observer_needs_test
