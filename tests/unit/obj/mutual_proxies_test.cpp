// Two element types whose elements hold proxies to each other (LeanMD's cells
// and computes): array and section proxies must not need the element type to
// be complete where they are declared as members. Each `cell` holds the
// `bond` array and a section of it; each `bond` holds the `cell` array. A
// cell multicasts to its section; each bond answers both of its cells.
#include <gtest/gtest.h>

#include "support/run_roam.hpp"

namespace mutual {

using roam_test::run_on;

constexpr int cells_n = 7;
struct bond;  // declared, not defined, where cell's members name it

struct cell : roam::element<cell> {
  cell() = default;
  cell(roam::array_proxy<bond> bonds, int n);
  void start();
  void answer(int from_bond) { heard_ += from_bond + 1; }
  void report(roam::callback<long> done) { contribute(heard_, roam::sum, done); }

  roam::array_proxy<bond> bonds_;   // the array of a type still incomplete here
  roam::section_proxy<bond> mine_;  // and a section of it
  long heard_ = 0;
};

// bond i joins cells i and i + 1 (mod n).
struct bond : roam::element<bond> {
  bond() = default;
  bond(roam::array_proxy<cell> cells, int n) : cells_(cells), n_(n) {}
  void hello(int from_cell) {
    const int i = this_index()[0];
    if (from_cell != i && from_cell != (i + 1) % n_) return;  // not one of mine: counted as lost
    cells_[from_cell].send<&cell::answer>(i);
  }
  roam::array_proxy<cell> cells_;
  int n_ = 0;
};

cell::cell(roam::array_proxy<bond> bonds, int n) : bonds_(bonds) {
  const int i = this_index()[0];
  mine_ = roam::section_proxy<bond>::of(bonds, {roam::index<1>{i}, roam::index<1>{(i + n - 1) % n}});
}
void cell::start() { mine_.send<&bond::hello>(this_index()[0]); }

TEST(mutual_proxies, elements_of_two_arrays_hold_proxies_to_each_other_p3) {
  long total = 0;
  int rc = run_on(3, [&total](const roam::args&) -> roam::task<> {
    constexpr int n = mutual::cells_n;
    auto bonds = roam::create_sparse_array<bond>();
    auto cells = roam::create_array<cell>(roam::index<1>{n}, bonds, n);
    for (int i = 0; i < n; ++i) bonds.insert(roam::index<1>{i}, cells, n);
    bonds.done_inserting();
    cells.send<&mutual::cell::start>();
    co_await roam::quiescence();
    auto [f, p] = roam::make_future<long>();
    cells.send<&mutual::cell::report>(roam::callback<long>::to_future(p));
    total = co_await f;
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  // Cell i hears from bonds i and i - 1: the sum over cells of (b + 1) over its two bonds.
  const int n = mutual::cells_n;
  long expected = 0;
  for (int i = 0; i < n; ++i) expected += (i + 1) + ((i + n - 1) % n + 1);
  EXPECT_EQ(total, expected);
}

}  // namespace mutual
