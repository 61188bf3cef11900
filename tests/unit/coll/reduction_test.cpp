#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "support/run_roam.hpp"

namespace reduction_test {

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

namespace {
std::vector<long> g_node_results;
void take_node_result(long v) { g_node_results.push_back(v); }
struct node_counter : roam::nodegroup_member<node_counter> {
  void go(long v) { contribute(v, roam::sum, roam::callback<long>::function<&take_node_result>(roam::pe_id{0})); }
};
}  // namespace

TEST(reductions, a_nodegroup_contributes_once_per_node_from_any_pe) {
  g_node_results.clear();
  int rc = run_on(2, [](const roam::args&) {
    auto ng = roam::create_nodegroup<node_counter>();
    for (int i = 0; i < 20; ++i) ng.send<&node_counter::go>(7L);
    roam::on_quiescence(roam::callback<>::function<&roam_test::exit_zero>(roam::pe_id{0}));
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(g_node_results, std::vector<long>(20, 7));
}

namespace {
struct noisy : roam::element<noisy> {
  void go(roam::callback<double> cb) {
    // Values whose sum depends on the order of addition in floating point.
    double v = (this_index()[0] % 3 == 0 ? 1e16 : 1.0) * (this_index()[0] % 2 ? -1 : 1) + 0.1 * this_index()[0];
    contribute(v, roam::deterministic(roam::sum), cb);
  }
};
}  // namespace

TEST(reductions, deterministic_order_gives_bitwise_equal_sums_on_every_pe_count) {
  double serial = 0;
  for (int i = 0; i < 997; ++i) serial += (i % 3 == 0 ? 1e16 : 1.0) * (i % 2 ? -1 : 1) + 0.1 * i;
  for (unsigned pes : {1u, 2u, 4u}) {
    double got = 0;
    int rc = run_on(pes, [&](const roam::args&) -> roam::task<> {
      auto a = roam::create_array<noisy>(roam::array_options<1>({997}, roam::round_robin_map()));
      auto [f, p] = roam::make_future<double>();
      a.send<&noisy::go>(roam::callback<double>::to_future(p));
      got = co_await f;
      roam::exit(0);
    });
    EXPECT_EQ(rc, 0);
    EXPECT_EQ(got, serial) << pes << " PEs: not the left-to-right fold in index order";
  }
}

namespace {
void gcd_combine(long& acc, const long& v) {
  long a = acc, b = v;
  while (b) {
    long t = a % b;
    a = b;
    b = t;
  }
  acc = a;
}
}  // namespace

TEST(reducers, have_stable_distinct_identifiers_derived_from_their_names) {
  using roam::detail::reducer_identity;
  static_assert(reducer_identity<roam::reducers::sum_t>::id ==
                roam::stable_hash(roam::type_name<roam::reducers::sum_t>(), roam::stable_hash("reducer/")));
  EXPECT_NE(reducer_identity<roam::reducers::sum_t>::id, reducer_identity<roam::reducers::max_t>::id);
  using gcd = decltype(roam::custom_reducer<&gcd_combine>());
  EXPECT_NE(roam::type_name<gcd>().find("gcd_combine"), std::string_view::npos);
  EXPECT_NE(reducer_identity<gcd>::id, reducer_identity<roam::reducers::sum_t>::id);
}

namespace {
struct wired_cell : roam::element<wired_cell> {
  void go(roam::callback<long> sum_cb, roam::callback<std::vector<int>> concat_cb, roam::callback<roam::statistics> stats_cb,
          roam::callback<> barrier_cb) {
    contribute(static_cast<long>(this_index()[0]), roam::sum, sum_cb);
    contribute(this_index()[0], roam::concat, concat_cb);
    contribute(static_cast<double>(this_index()[0]), roam::stats, stats_cb);
    contribute(barrier_cb);
  }
};
}  // namespace

TEST(reductions, partials_travel_through_the_wire_format_under_serialize) {
  long sum = 0;
  std::vector<int> all;
  roam::statistics st;
  int rc = run_on(4, [&](const roam::args&) -> roam::task<> {
    auto a = roam::create_array<wired_cell>({50});
    auto [fs, ps] = roam::make_future<long>();
    auto [fc, pc] = roam::make_future<std::vector<int>>();
    auto [ft, pt] = roam::make_future<roam::statistics>();
    auto [fb, pb] = roam::make_future<>();
    a.send<&wired_cell::go>(roam::callback<long>::to_future(ps), roam::callback<std::vector<int>>::to_future(pc),
                            roam::callback<roam::statistics>::to_future(pt), roam::callback<>::to_future(pb));
    sum = co_await fs;
    all = co_await fc;
    st = co_await ft;
    co_await fb;
    roam::exit(0);
  }, {"+serialize"});
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(sum, 1225);
  std::vector<int> expect(50);
  std::iota(expect.begin(), expect.end(), 0);
  EXPECT_EQ(all, expect);
  EXPECT_EQ(st.count, 50u);
  EXPECT_DOUBLE_EQ(st.mean, 24.5);
}

namespace {
// Takes tagged results in a plain entry: (tag, value).
struct tag_sink : roam::chare<tag_sink> {
  void take(std::string tag, long v) { seen.push_back(tag + "=" + std::to_string(v)); }
  void barrier_done(std::string tag) { seen.push_back(tag); }
  static inline std::vector<std::string> seen;
};
struct tag_cell : roam::element<tag_cell> {
  void go(roam::callback<long> sum_to, roam::callback<> done_to) {
    contribute(static_cast<long>(this_index()[0]), roam::sum, sum_to);
    contribute(done_to);
  }
};
}  // namespace

TEST(reductions, a_callback_with_a_reference_number_delivers_it_with_the_result) {
  for (const char* mode : {"", "+serialize"}) {
    std::vector<std::string> extra;
    if (*mode) extra.push_back(mode);
    tag_sink::seen.clear();
    int rc = run_on(2, [](const roam::args&) -> roam::task<> {
      auto sink = roam::create_chare_on<tag_sink>(roam::pe_id{1});
      auto a = roam::create_array<tag_cell>({10});
      a.send<&tag_cell::go>(roam::callback<long>::to<&tag_sink::take>(sink, std::string("step-3")),
                            roam::callback<>::to<&tag_sink::barrier_done>(sink, std::string("synced")));
      co_await roam::quiescence();
      roam::exit(0);
    }, extra);
    EXPECT_EQ(rc, 0);
    EXPECT_EQ(tag_sink::seen, (std::vector<std::string>{"step-3=45", "synced"})) << mode;
  }
}

}  // namespace reduction_test
