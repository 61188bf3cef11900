// A threaded entry method waits for reduction results and for quiescence
// through futures (callback::to_future), blocking only its own thread.
#include <gtest/gtest.h>

#include <vector>

#include "support/run_roam.hpp"

namespace threaded_wait_test {

using roam_test::run_on;

namespace {

struct part : roam::element<part> {
  void add(int round, roam::callback<int> cb) { contribute((this_index()[0] + 1) * round, roam::sum, cb); }
};

struct boss : roam::chare<boss> {
  static constexpr auto threaded_entries() { return roam::entry_list<&boss::run>{}; }
  void run(roam::array_proxy<part> parts, roam::promise<std::vector<int>> out) {
    std::vector<int> got;
    for (int round = 1; round <= 3; ++round) {
      auto [f, p] = roam::make_future<int>();
      parts.send<&part::add>(round, roam::callback<int>::to_future(p));
      got.push_back(f.get());
    }
    // Quiescence while this thread is blocked: a blocked thread is no pending message.
    auto [q, qp] = roam::make_future<>();
    roam::on_quiescence(roam::callback<>::to_future(qp));
    q.get();
    got.push_back(-1);
    out.set_value(got);
  }
};

}  // namespace

TEST(threaded_wait, a_threaded_entry_blocks_on_reduction_results_and_on_quiescence) {
  std::vector<int> got;
  int rc = run_on(3, [&](const roam::args&) -> roam::task<> {
    auto parts = roam::create_array<part>(roam::index<1>{10});
    auto b = roam::create_chare_on<boss>(roam::pe_id{1});
    auto [f, p] = roam::make_future<std::vector<int>>();
    b.send<&boss::run>(parts, p);
    got = co_await f;
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(got, (std::vector<int>{55, 110, 165, -1}));
}

}  // namespace threaded_wait_test
