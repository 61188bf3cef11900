// A migratable thread blocked in future::get moves with its element and the
// future's outcome follows it (roam/msg/detail/future_follow.hpp): a value,
// an exception, after several moves (home and back), with the value there
// before the thread says where it went; home lets go once the thread has it.
// A future the outcome cannot follow (kept in the owner) pins the thread;
// a checkpoint of a thread waiting in get is refused with the reason.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <regex>
#include <stdexcept>
#include <string>

#include <roam/ft/checkpoint.hpp>
#include <roam/iso/thread.hpp>
#include <roam/sched/detail/pe_state.hpp>

#include "support/run_roam.hpp"

namespace followed_future_test {

using roam_test::run_on;

int here() { return static_cast<int>(roam::my_pe().value()); }

std::atomic<int> g_outcome{0};  // what the thread saw: 1 right, negative a failure's number
std::atomic<int> g_woke_on{-1};

// The thread waits for a value the element (which holds the promise) gives
// after it moved along `route` (PEs, in order), from wherever it is then.
struct traveller : roam::element<traveller> {
  static constexpr bool pup_on_migration = true;
  traveller() = default;
  explicit traveller(roam::migrating) {}

  void begin(std::vector<int> route, bool fail, bool answer_on_leaving) {
    route_ = std::move(route);
    fail_ = fail;
    answer_on_leaving_ = answer_on_leaving;
    thread.start(this, [] {
      auto [f, p] = roam::make_future<long>();
      traveller& t = roam::this_thread_owner<traveller>();
      t.promise_ = p;
      t.this_proxy().send<&traveller::next>();
      try {
        const long v = f.get();  // the element moves meanwhile
        g_outcome = v == 4242 ? 1 : -1;
      } catch (const roam::remote_error& e) {
        g_outcome = std::string(e.what()) == "no answer today" ? 2 : -2;
      } catch (...) {
        g_outcome = -3;
      }
      g_woke_on = here();
    });
  }
  void next() {
    if (route_.empty()) {
      answer();
      return;
    }
    const int to = route_.front();
    route_.erase(route_.begin());
    migrate_to(roam::pe_id{static_cast<std::uint32_t>(to)});
  }
  void before_migration() {
    if (answer_on_leaving_ && route_.empty()) answer();  // the value reaches home before the thread's report
  }
  void after_migration() { this_proxy().send<&traveller::next>(); }
  void answer() {
    if (!promise_.valid()) return;
    // One exception object for the whole run: a temporary's message (a
    // copy-on-write string shared with the copy that travels) would be freed
    // here after home read it, ordered by libstdc++'s atomic count, which
    // ThreadSanitizer does not see (the library is not instrumented).
    static const std::exception_ptr no_answer = std::make_exception_ptr(std::runtime_error("no answer today"));
    if (fail_) promise_.set_exception(no_answer);
    else promise_.set_value(4242L);
    promise_ = {};
  }
  void pup(roam::pup_er& p) { p | route_ | fail_ | answer_on_leaving_ | promise_ | thread; }

  roam::migratable_thread thread;
  std::vector<int> route_;
  bool fail_ = false, answer_on_leaving_ = false;
  roam::promise<long> promise_;
};

// Home's records of followed futures, counted on each PE.
struct census : roam::group_member<census> {
  int followed() { return static_cast<int>(roam::detail::tls_pe->followed_futures.size()); }
};

int travel(unsigned pes, std::vector<int> route, bool fail, bool on_leaving, std::vector<std::string> extra = {}) {
  g_outcome = 0;
  g_woke_on = -1;
  return run_on(
      pes,
      [route, fail, on_leaving](const roam::args&) -> roam::task<> {
        auto g = roam::create_group<census>();
        roam::create_array<traveller>(roam::index<1>{1})[0].send<&traveller::begin>(route, fail, on_leaving);
        co_await roam::quiescence();
        int left = 0;
        for (unsigned pe = 0; pe < roam::num_pes(); ++pe) left += co_await g[roam::pe_id{pe}].call<&census::followed>();
        roam::exit(left == 0 ? 0 : 7);  // 7: a PE still follows a future for a thread that has its outcome
      },
      std::move(extra));
}

TEST(followed_future, a_value_follows_the_thread_to_another_pe) {
  EXPECT_EQ(travel(2, {1}, false, false), 0);
  EXPECT_EQ(g_outcome.load(), 1);
  EXPECT_EQ(g_woke_on.load(), 1);
}

TEST(followed_future, an_exception_follows_as_its_text) {
  EXPECT_EQ(travel(2, {1}, true, false), 0);
  EXPECT_EQ(g_outcome.load(), 2);
  EXPECT_EQ(g_woke_on.load(), 1);
}

TEST(followed_future, the_value_follows_through_several_moves_and_home_again) {
  EXPECT_EQ(travel(3, {1, 2, 0, 2}, false, false), 0);
  EXPECT_EQ(g_outcome.load(), 1);
  EXPECT_EQ(g_woke_on.load(), 2);
  EXPECT_EQ(travel(2, {1, 0}, false, false), 0);  // back home: the value still comes as a followed one
  EXPECT_EQ(g_outcome.load(), 1);
  EXPECT_EQ(g_woke_on.load(), 0);
}

TEST(followed_future, a_value_at_home_before_the_thread_says_where_it_is_waits_for_that) {
  EXPECT_EQ(travel(2, {1}, false, true), 0);
  EXPECT_EQ(g_outcome.load(), 1);
  EXPECT_EQ(g_woke_on.load(), 1);
}

TEST(followed_future, the_value_follows_a_packed_move) {
  EXPECT_EQ(travel(3, {2, 1}, false, false, {"+serialize"}), 0);
  EXPECT_EQ(g_outcome.load(), 1);
  EXPECT_EQ(g_woke_on.load(), 1);
}

// Two futures pending at once: the thread waits on the first while its
// element moves; the second is fulfilled meanwhile (its outcome follows the
// thread too, though nobody waits on it) and is ready after the next move.
struct juggler : roam::element<juggler> {
  static constexpr bool pup_on_migration = true;
  juggler() = default;
  explicit juggler(roam::migrating) {}
  void begin() {
    thread.start(this, [] {
      auto [first, first_p] = roam::make_future<int>();
      auto [second, second_p] = roam::make_future<std::string>();
      juggler& j = roam::this_thread_owner<juggler>();
      j.first_ = first_p;
      j.second_ = second_p;
      j.this_proxy().send<&juggler::hop>(1);
      const int a = first.get();  // on pe 1
      const int woke = here();
      roam::this_thread_owner<juggler>().this_proxy().send<&juggler::hop>(2);
      roam::suspend_this_thread();  // until the element is on pe 2
      const bool ok = a == 11 && woke == 1 && here() == 2 && second.ready() && second.get() == "second answer";
      g_outcome = ok ? 1 : -1;
    });
  }
  void hop(int to) {
    if (to == 1) second_.set_value("second answer");  // fulfilled at home (pe 0) while the thread leaves
    migrate_to(roam::pe_id{static_cast<std::uint32_t>(to)});
  }
  void after_migration() {
    if (here() == 1) first_.set_value(11);
    else thread.resume();
  }
  void pup(roam::pup_er& p) { p | first_ | second_ | thread; }
  roam::migratable_thread thread;
  roam::promise<int> first_;
  roam::promise<std::string> second_;
};

TEST(followed_future, every_pending_future_of_the_thread_follows_it) {
  g_outcome = 0;
  const int rc = run_on(3, [](const roam::args&) -> roam::task<> {
    auto g = roam::create_group<census>();
    roam::create_array<juggler>(roam::index<1>{1})[0].send<&juggler::begin>();
    co_await roam::quiescence();
    int left = 0;
    for (unsigned pe = 0; pe < roam::num_pes(); ++pe) left += co_await g[roam::pe_id{pe}].call<&census::followed>();
    roam::exit(left == 0 ? 0 : 7);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(g_outcome.load(), 1);
}

// A thread that ends (after a move) with a future it made still pending:
// the late fulfilment finds a tombstone at home and is dropped quietly.
struct quitter : roam::element<quitter> {
  static constexpr bool pup_on_migration = true;
  quitter() = default;
  explicit quitter(roam::migrating) {}
  void begin(bool move_first) {
    thread.start(this, [] {
      auto [f, p] = roam::make_future<int>();
      roam::this_thread_owner<quitter>().promise_ = p;
      roam::suspend_this_thread();
      g_outcome = 1;
    });
    if (move_first) migrate_to(roam::pe_id{1});
    else this_proxy().send<&quitter::finish>();
  }
  void after_migration() { this_proxy().send<&quitter::finish>(); }
  void finish() {
    thread.resume();                        // the thread ends; its future was never fulfilled
    this_proxy().send<&quitter::late>();
  }
  void late() { promise_.set_value(3); }  // to a future that is gone
  void pup(roam::pup_er& p) { p | promise_ | thread; }
  roam::migratable_thread thread;
  roam::promise<int> promise_;
};

TEST(followed_future, a_late_value_for_a_thread_that_ended_is_dropped_quietly) {
  for (const bool move_first : {false, true}) {
    g_outcome = 0;
    testing::internal::CaptureStderr();
    const int rc = run_on(2, [move_first](const roam::args&) -> roam::task<> {
      auto g = roam::create_group<census>();
      roam::create_array<quitter>(roam::index<1>{1})[0].send<&quitter::begin>(move_first);
      co_await roam::quiescence();
      int left = 0;
      for (unsigned pe = 0; pe < roam::num_pes(); ++pe) left += co_await g[roam::pe_id{pe}].call<&census::followed>();
      roam::exit(left == 0 ? 0 : 7);
    });
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(rc, 0) << (move_first ? "moved first: " : "stayed: ") << err;
    EXPECT_EQ(g_outcome.load(), 1);
    EXPECT_EQ(err.find("fulfilled twice"), std::string::npos) << err;
  }
}

// ---- what cannot follow --------------------------------------------------------------

// A future made outside the thread (by its element's entry, in the process
// heap): its value comes back to this PE, so the thread is pinned while it
// waits, and a move says why.
struct anchored : roam::element<anchored> {
  static constexpr bool pup_on_migration = true;
  anchored() = default;
  explicit anchored(roam::migrating) {}
  void begin() {
    auto [f, p] = roam::make_future<int>();
    pending_ = f;
    promise_ = p;
    thread.start(this, [] {
      anchored& a = roam::this_thread_owner<anchored>();
      a.this_proxy().send<&anchored::leave>();
      (void)a.pending_.get();
    });
  }
  void leave() { migrate_to(roam::pe_id{1}); }
  void pup(roam::pup_er& p) { p | thread; }
  roam::migratable_thread thread;
  roam::future<int> pending_;
  roam::promise<int> promise_;
};

TEST(followed_future, a_future_made_outside_the_thread_pins_it_and_the_move_says_why) {
  testing::internal::CaptureStderr();
  const int rc = run_on(2, [](const roam::args&) { roam::create_array<anchored>(roam::index<1>{1})[0].send<&anchored::begin>(); });
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(rc, 0);
  EXPECT_TRUE(std::regex_search(
      err, std::regex(R"(cannot pack the migratable thread of followed_future_test::anchored \(last on pe 0\): it waits in future::get on a future it did not make)")))
      << err;
}

// A checkpoint while the thread waits: refused (a restarted run would not
// know where the value goes), and the run goes on: the value still comes.
struct waiting : roam::element<waiting> {
  waiting() = default;
  explicit waiting(roam::migrating) {}
  void begin() {
    thread.start(this, [] {
      auto [f, p] = roam::make_future<int>();
      roam::this_thread_owner<waiting>().promise_ = p;
      g_outcome = f.get() == 5 ? 1 : -1;
    });
  }
  void answer() { promise_.set_value(5); }
  void pup(roam::pup_er& p) { p | thread; }
  roam::migratable_thread thread;
  roam::promise<int> promise_;
};

TEST(followed_future, a_checkpoint_of_a_thread_waiting_in_get_is_refused_with_the_reason) {
  g_outcome = 0;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("roam-followed-future-" + std::to_string(::getpid()));
  std::string error;
  const int rc = run_on(2, [&dir, &error](const roam::args&) -> roam::task<> {
    auto w = roam::create_array<waiting>(roam::index<1>{1});
    w[0].send<&waiting::begin>();
    co_await roam::quiescence();
    auto [saved, done] = roam::make_future_callback<roam::checkpoint_result>();
    roam::checkpoint(dir.string(), done);
    const roam::checkpoint_result r = co_await saved;
    error = r.error;
    w[0].send<&waiting::answer>();
    co_await roam::quiescence();
    roam::exit(r.ok ? 9 : 0);
  });
  std::filesystem::remove_all(dir);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(g_outcome.load(), 1);
  EXPECT_NE(error.find("made futures that are not fulfilled yet"), std::string::npos) << error;
}

}  // namespace followed_future_test
