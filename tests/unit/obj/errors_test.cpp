#include <gtest/gtest.h>

#include <regex>
#include <stdexcept>

#include "support/run_roam.hpp"

// A named namespace: both compilers then print the same type names.
namespace errtest {

using roam_test::run_on;

struct thrower : roam::element<thrower, roam::index<2>> {
  void explode(int at) {
    if (this_index()[0] == at) throw std::runtime_error("boom");
  }
};
struct grp : roam::group_member<grp> {
  void hello() {}
};
struct victim : roam::chare<victim> {
  void poke() {}
};

namespace {
std::string run_capturing(unsigned pes, std::function<void()> body, int& rc, std::vector<std::string> extra = {}) {
  testing::internal::CaptureStderr();
  rc = run_on(pes, [&](const roam::args&) { body(); }, extra);
  return testing::internal::GetCapturedStderr();
}
}  // namespace

TEST(errors, an_exception_escaping_an_entry_names_pe_object_index_and_entry) {
  int rc = 0;
  std::string err = run_capturing(2, [] {
    auto a = roam::create_array<thrower>({4, 2});
    a.send<&thrower::explode>(3);
  }, rc);
  EXPECT_EQ(rc, 1);
  EXPECT_TRUE(std::regex_search(err, std::regex(R"(\[pe 1/2\] array errtest::thrower\[3,[01]\] entry errtest::thrower::explode: uncaught exception: boom)")))
      << err;
}

TEST(errors, a_send_outside_the_array_is_reported_and_not_sent) {
  int rc = 0;
  std::string err = run_capturing(2, [] {
    auto a = roam::create_array<thrower>({4, 2});
    a[{4, 0}].send<&thrower::explode>(0);
  }, rc);
  EXPECT_EQ(rc, 1);
  EXPECT_TRUE(std::regex_search(err, std::regex(R"(\[pe 0/2\] array errtest::thrower\[4,0\] entry errtest::thrower::explode: index outside)")))
      << err;
}

TEST(errors, a_group_member_on_a_pe_out_of_range_is_reported) {
  int rc = 0;
  std::string err = run_capturing(2, [] {
    auto g = roam::create_group<grp>();
    g[roam::pe_id{17}].send<&grp::hello>();
  }, rc);
  EXPECT_EQ(rc, 1);
  EXPECT_TRUE(std::regex_search(err, std::regex(R"(group errtest::grp\[17\] entry errtest::grp::hello: pe 17 outside \[0,2\))"))) << err;
}

TEST(errors, a_chare_created_on_a_pe_out_of_range_is_reported) {
  int rc = 0;
  std::string err = run_capturing(2, [] { (void)roam::create_chare_on<victim>(roam::pe_id{5}); }, rc);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(err.find("pe 5 outside [0,2)"), std::string::npos) << err;
}

TEST(errors, a_message_to_a_destroyed_chare_is_reported) {
  int rc = 0;
  std::string err = run_capturing(1, [] {
    auto v = roam::create_chare_on<victim>(roam::pe_id{0});
    v.destroy();
    v.send<&victim::poke>();
  }, rc);
  EXPECT_EQ(rc, 1);
  EXPECT_TRUE(std::regex_search(err, std::regex(R"(chare errtest::victim #0\.1 entry errtest::victim::poke: no such chare)"))) << err;
}

namespace {
roam::readonly<int> g_steps;
struct reader_probe : roam::chare<reader_probe> {
  explicit reader_probe(roam::promise<int> p) { p.set_value(*g_steps); }
};
}  // namespace

TEST(readonly, values_set_in_main_are_visible_on_every_pe) {
  int sum = 0;
  int rc = run_on(3, [&](const roam::args&) -> roam::task<> {
    g_steps = 11;
    std::vector<roam::future<int>> fs;
    for (unsigned pe = 0; pe < 3; ++pe) {
      auto [f, p] = roam::make_future<int>();
      fs.push_back(f);
      (void)roam::create_chare_on<reader_probe>(roam::pe_id{pe}, p);
    }
    for (auto& f : fs) sum += co_await f;
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(sum, 33);
}

TEST(readonly, assigning_after_main_sent_a_message_is_a_fatal_error) {
  int rc = 0;
  std::string err = run_capturing(2, [] {
    (void)roam::create_chare_on<victim>(roam::pe_id{1});
    g_steps = 3;
  }, rc);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(err.find("readonly assigned"), std::string::npos) << err;
}

namespace {
roam::readonly<roam::chare_proxy<errtest::victim>> g_main_proxy;
}  // namespace

TEST(readonly, may_hold_the_proxy_of_a_chare_created_on_pe_zero) {
  int rc = run_on(2, [](const roam::args&) -> roam::task<> {
    g_main_proxy = roam::create_chare_on<errtest::victim>(roam::pe_id{0});
    co_await g_main_proxy->call<&errtest::victim::poke>();
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
}

}  // namespace errtest
