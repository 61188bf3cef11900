#include <gtest/gtest.h>

#include <numeric>

#include "support/run_roam.hpp"

using roam_test::run_on;

namespace {
struct cell : roam::element<cell> {
  void go(roam::callback<long> cb) { contribute(static_cast<long>(this_index()[0]), roam::sum, cb); }
};
}  // namespace

TEST(reductions, sum_of_indices_reaches_a_future) {
  for (unsigned pes : {1u, 2u, 4u}) {
    long got = -1;
    int rc = run_on(pes, [&](const roam::args&) -> roam::task<> {
      auto a = roam::create_array<cell>({100});
      auto [f, p] = roam::make_future<long>();
      a.send<&cell::go>(roam::callback<long>::to_future(p));
      got = co_await f;
      roam::exit(0);
    });
    EXPECT_EQ(rc, 0);
    EXPECT_EQ(got, 4950) << pes;
  }
}
