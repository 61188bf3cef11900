// Reports of suspended tasks (roam/obj/task_report.hpp): what each object's
// tasks wait for, per mailbox and reference number, on request and at exit.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "support/run_roam.hpp"

namespace reporttest {

using roam_test::run_on;

struct stuck : roam::element<stuck> {
  roam::mailbox<int, double> ghost;
  roam::mailbox<std::string, int> named;
  roam::mailbox<int> go;

  roam::task<> wait_for(int ref) { (void)co_await ghost.receive(ref); }
  roam::task<> wait_for_name(std::string name) { (void)co_await named.receive(std::move(name)); }
  roam::task<> race() { (void)co_await roam::when_any(go.receive(), ghost.receive(3)); }
  int here() const { return static_cast<int>(roam::my_pe().value()); }
};

struct holder : roam::chare<holder> {
  roam::task<> hold() {
    auto [f, p] = roam::make_future<int>();
    pending.push_back(p);
    (void)co_await std::move(f);
  }
  static inline std::vector<roam::promise<int>> pending;
};

std::string g_report;

TEST(task_report, names_the_element_its_mailbox_the_awaited_and_the_kept_reference_numbers) {
  g_report.clear();
  int rc = run_on(1, [](const roam::args&) -> roam::task<> {
    auto a = roam::create_array<stuck>({2});
    a[1].send<&stuck::wait_for>(17);
    a[1].send<&stuck::ghost>(19, 1.0);
    a[1].send<&stuck::ghost>(18, 2.0);
    a[1].send<&stuck::named>(std::string("late"), 1);
    co_await roam::quiescence();
    g_report = roam::detail::waiting_tasks_here();
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(g_report,
            "[pe 0/1] 2 unfinished tasks:\n"
            "  array reporttest::stuck[1]: 1 task\n"
            "    mailbox reporttest::stuck::ghost: 1 receive waits (ref 17); 2 messages kept (refs 19, 18)\n"
            "    mailbox reporttest::stuck::named: 0 receives wait; 1 message kept (ref \"late\")\n"
            "  1 task of no object (main's, or started outside an entry of a chare or element)\n");
}

TEST(task_report, lists_both_branches_of_a_when_any_and_string_references) {
  g_report.clear();
  int rc = run_on(1, [](const roam::args&) -> roam::task<> {
    auto a = roam::create_array<stuck>({1});
    a[0].send<&stuck::race>();
    a[0].send<&stuck::wait_for_name>(std::string("left"));
    co_await roam::quiescence();
    g_report = roam::detail::waiting_tasks_here();
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_NE(g_report.find("  array reporttest::stuck[0]: 2 tasks\n"), std::string::npos) << g_report;
  EXPECT_NE(g_report.find("    mailbox reporttest::stuck::ghost: 1 receive waits (ref 3); 0 messages kept\n"), std::string::npos) << g_report;
  EXPECT_NE(g_report.find("    mailbox reporttest::stuck::go: 1 receive waits (any message); 0 messages kept\n"),
            std::string::npos)
      << g_report;
  EXPECT_NE(g_report.find("    mailbox reporttest::stuck::named: 1 receive waits (ref \"left\"); 0 messages kept\n"), std::string::npos)
      << g_report;
}

TEST(task_report, counts_a_chare_task_waiting_on_a_future_and_is_empty_when_nothing_waits) {
  g_report.clear();
  static std::string before;
  int rc = run_on(1, [](const roam::args&) {
    before = roam::detail::waiting_tasks_here();  // main is a plain function: nothing unfinished
    holder::pending.clear();
    auto c = roam::create_chare_on<holder>(roam::pe_id{0});
    c.send<&holder::hold>();
    roam::when_idle([] {
      g_report = roam::detail::waiting_tasks_here();
      holder::pending.clear();
      roam::exit(0);
    });
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(before, "");
  EXPECT_NE(g_report.find("[pe 0/1] 1 unfinished task:\n  chare reporttest::holder #"), std::string::npos) << g_report;
  EXPECT_NE(g_report.find(": 1 task\n"), std::string::npos) << g_report;
}

TEST(task_report, report_waiting_tasks_prints_on_every_pe_and_taskreport_at_exit) {
  testing::internal::CaptureStderr();
  int rc = run_on(2, [](const roam::args&) -> roam::task<> {
    auto a = roam::create_array<stuck>(roam::array_options<1>({2}, roam::block_map()));
    a[0].send<&stuck::wait_for>(5);
    a[1].send<&stuck::wait_for>(6);
    co_await roam::quiescence();
    co_await roam::report_waiting_tasks();
    std::fputs("-- reported --\n", stderr);
    roam::exit(0);
  }, {"+taskreport"});
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 0);
  // Once on request, once at exit, on each PE.
  auto count = [&](const std::string& s) {
    std::size_t n = 0;
    for (auto at = err.find(s); at != std::string::npos; at = err.find(s, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("  array reporttest::stuck[0]: 1 task\n    mailbox reporttest::stuck::ghost: 1 receive waits (ref 5); 0 messages kept\n"), 2u)
      << err;
  EXPECT_EQ(count("  array reporttest::stuck[1]: 1 task\n    mailbox reporttest::stuck::ghost: 1 receive waits (ref 6); 0 messages kept\n"), 2u)
      << err;
  EXPECT_EQ(count("[pe 1/2] 1 unfinished task:"), 2u) << err;
  // On request: in PE order, all before the future was ready.
  const auto pe0 = err.find("[pe 0/2]"), pe1 = err.find("[pe 1/2]"), reported = err.find("-- reported --");
  EXPECT_LT(pe0, pe1) << err;
  EXPECT_LT(pe1, reported) << err;
}

TEST(task_report, elides_long_lists_and_forgets_a_task_once_it_ends) {
  g_report.clear();
  int rc = run_on(1, [](const roam::args&) -> roam::task<> {
    auto a = roam::create_array<stuck>({1});
    a[0].send<&stuck::race>();
    for (int r = 20; r < 30; ++r) a[0].send<&stuck::ghost>(r, 0.5);
    co_await roam::quiescence();
    g_report = roam::detail::waiting_tasks_here();
    a[0].send<&stuck::go>(1);  // ends the race
    co_await roam::quiescence();
    g_report += "|" + roam::detail::waiting_tasks_here();
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_NE(g_report.find("    mailbox reporttest::stuck::ghost: 1 receive waits (ref 3); 10 messages kept (refs 20, 21, "
                          "22, 23, 24, 25, 26, 27, ...)\n"),
            std::string::npos)
      << g_report;
  // After the race: only main is unfinished.
  EXPECT_NE(g_report.find("|[pe 0/1] 1 unfinished task:\n  1 task of no object"), std::string::npos) << g_report;
}

}  // namespace reporttest
