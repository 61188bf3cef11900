// Messages to sparse-array elements that never come into being are reported
// when the program ends, naming the element and the entry; with demand
// creation the same message builds the element instead.
#include <gtest/gtest.h>

#include "support/run_roam.hpp"

namespace sparserep {

using roam_test::run_on;

struct leaf : roam::element<leaf, roam::index<2>> {
  leaf() = default;
  void poke(roam::promise<int> p) { p.set_value(this_index()[0] + this_index()[1]); }
  void touch() {}
};

TEST(sparse_reports, a_message_to_an_index_never_inserted_is_reported_at_exit) {
  testing::internal::CaptureStderr();
  int rc = run_on(2, [](const roam::args&) -> roam::task<> {
    auto a = roam::create_sparse_array<leaf>();
    a.insert(roam::index<2>{1, 1});
    a.done_inserting();
    a[roam::index<2>{7, 3}].send<&leaf::touch>();
    auto [f, p] = roam::make_future<>();
    roam::on_quiescence(roam::callback<>::to_future(p));
    co_await f;
    roam::exit(0);
  });
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 0);
  EXPECT_NE(err.find("1 message(s) for array sparserep::leaf[7,3] (entry sparserep::leaf::touch) never delivered: the "
                     "element was never inserted"),
            std::string::npos)
      << err;
}

TEST(sparse_reports, with_demand_creation_the_message_builds_the_element) {
  static int answer = 0;
  int rc = run_on(3, [](const roam::args&) -> roam::task<> {
    roam::sparse_options<roam::index<2>> o;
    o.demand_creation();
    auto a = roam::create_sparse_array<leaf>(o);
    auto [f, p] = roam::make_future<int>();
    a[roam::index<2>{40, 2}].send<&leaf::poke>(p);
    answer = co_await f;
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(answer, 42);
}

}  // namespace sparserep
