// reductions: a tour of roam's reducers. A 1-D array of N elements (default
// 10) contributes values derived from each element's index to one reduction
// per reducer; every result is checked against the same values folded
// serially. The results travel through the four kinds of callback:
//
//   future     callback<T>::to_future(promise)        main co_awaits the future
//   entry      callback<T>::to<&judge::m>(proxy)      an entry method of a chare
//   function   callback<T>::function<&fn>(pe_id{0})   a plain function run on a PE
//   broadcast  callback<>::broadcast<&m>(array)       an entry method of every element
//
// Every element calls contribute() in the same order, so its k-th call belongs
// to reduction k; many reductions are in flight at once. Results are printed
// as they arrive (from whichever PE receives them), one line per reducer.
//   reductions [N=10] [+p N ...runtime options]
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <roam/roam.hpp>

#include "command_line.hpp"

namespace {

// Set by main before it creates anything; every PE reads it.
roam::readonly<int> elements;

// ---- what element i contributes, one formula per reduction ------------------

std::int64_t sum_value(int i) { return i + 1; }                         // 1 + 2 + ... + N
std::int64_t product_value(int i) { return i + 1; }                     // N!
int min_value(int i) { return (i * 7) % 11 - 5; }                       // a scrambled range
double max_value(int i) { return std::sin(static_cast<double>(i)); }    // largest sine
bool and_value(int i) { return sum_value(i) > 0; }                      // all positive?
bool or_value(int i) { return i == 7; }                                 // any index 7?
bool xor_value(int i) { return i % 3 == 0; }                            // odd count of multiples of 3?
std::uint32_t band_value(int i) { return 0xff00u | static_cast<std::uint32_t>(i); }  // common bits
std::uint32_t bor_value(int i) { return std::uint32_t{1} << (i % 32); }             // one bit each
std::uint32_t bxor_value(int i) { return static_cast<std::uint32_t>(i * i); }
std::string concat_value(int i) { return "e" + std::to_string(i); }     // gathered in index order
double set_value(int i) { return 1.0 / (i + 1); }                       // keyed by index
double stats_value(int i) { return static_cast<double>(i) * i; }        // count, mean, variance
// tuple_of(sum, min, max): a count, the smallest and the largest value in one reduction.
using tuple_value = std::tuple<std::int64_t, int, int>;
tuple_value tuple_contribution(int i) { return {1, min_value(i), min_value(i)}; }

// A user-defined reduction: the two largest values. Any type with a pup and an
// associative, commutative merge function works with roam::custom_reducer.
struct top_two {
  double first = -std::numeric_limits<double>::infinity();
  double second = -std::numeric_limits<double>::infinity();
  template <class P>
  void pup(P& p) {
    p | first | second;
  }
  friend bool operator==(const top_two&, const top_two&) = default;
};
void merge_top_two(top_two& acc, const top_two& v) {
  for (double x : {v.first, v.second}) {
    if (x > acc.first) {
      acc.second = acc.first;
      acc.first = x;
    } else if (x > acc.second) {
      acc.second = x;
    }
  }
}
top_two top_two_value(int i) { return {static_cast<double>((i * 37) % 101), -std::numeric_limits<double>::infinity()}; }

// ---- the same reductions, done serially ---------------------------------------

template <class T, class F, class Op>
T fold(T acc, F value, Op op) {
  for (int i = 0; i < *elements; ++i) acc = op(acc, value(i));
  return acc;
}
std::int64_t expected_sum() { return fold<std::int64_t>(0, sum_value, [](auto a, auto b) { return a + b; }); }
std::int64_t expected_product() { return fold<std::int64_t>(1, product_value, [](auto a, auto b) { return a * b; }); }
int expected_min() { return fold(min_value(0), min_value, [](int a, int b) { return std::min(a, b); }); }
double expected_max() { return fold(max_value(0), max_value, [](double a, double b) { return std::max(a, b); }); }
bool expected_and() { return fold(true, and_value, [](bool a, bool b) { return a && b; }); }
bool expected_or() { return fold(false, or_value, [](bool a, bool b) { return a || b; }); }
bool expected_xor() { return fold(false, xor_value, [](bool a, bool b) { return a != b; }); }
std::uint32_t expected_band() { return fold(~0u, band_value, [](auto a, auto b) { return a & b; }); }
std::uint32_t expected_bor() { return fold(0u, bor_value, [](auto a, auto b) { return a | b; }); }
std::uint32_t expected_bxor() { return fold(0u, bxor_value, [](auto a, auto b) { return a ^ b; }); }
std::vector<std::string> expected_concat() {
  std::vector<std::string> v;
  for (int i = 0; i < *elements; ++i) v.push_back(concat_value(i));
  return v;
}
std::vector<std::pair<std::uint64_t, double>> expected_set() {
  std::vector<std::pair<std::uint64_t, double>> v;
  for (int i = 0; i < *elements; ++i) v.emplace_back(static_cast<std::uint64_t>(i), set_value(i));
  return v;
}
roam::statistics expected_stats() {  // two passes: the textbook definition
  roam::statistics s;
  s.count = static_cast<std::uint64_t>(*elements);
  for (int i = 0; i < *elements; ++i) s.mean += stats_value(i) / *elements;
  for (int i = 0; i < *elements; ++i) s.m2 += (stats_value(i) - s.mean) * (stats_value(i) - s.mean);
  return s;
}
int expected_largest() { return fold(min_value(0), min_value, [](int a, int b) { return std::max(a, b); }); }
tuple_value expected_tuple() { return {*elements, expected_min(), expected_largest()}; }
top_two expected_top_two() {
  top_two t;
  for (int i = 0; i < *elements; ++i) merge_top_two(t, top_two_value(i));
  return t;
}

// ---- printing -------------------------------------------------------------------

std::string show(std::int64_t v) { return std::to_string(v); }
std::string show(int v) { return std::to_string(v); }
std::string show(bool v) { return v ? "true" : "false"; }
std::string show(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}
std::string show(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%" PRIx32, v);
  return buf;
}
std::string show(const std::vector<std::string>& v) {
  std::string s = "[";
  for (std::size_t k = 0; k < v.size(); ++k) s += (k ? " " : "") + v[k];
  return s + "]";
}
std::string show(const std::vector<std::pair<std::uint64_t, double>>& v) {
  std::string s = "{";
  for (std::size_t k = 0; k < v.size(); ++k) s += (k ? " " : "") + std::to_string(v[k].first) + ":" + show(v[k].second);
  return s + "}";
}
std::string show(const roam::statistics& s) {
  return "count " + std::to_string(s.count) + " mean " + show(s.mean) + " variance " + show(s.variance());
}
std::string show(const tuple_value& t) {
  return "(count " + show(std::get<0>(t)) + ", min " + show(std::get<1>(t)) + ", max " + show(std::get<2>(t)) + ")";
}
std::string show(const top_two& t) { return "(" + show(t.first) + ", " + show(t.second) + ")"; }

bool approx_equal(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); }
bool same(const roam::statistics& a, const roam::statistics& b) {
  return a.count == b.count && approx_equal(a.mean, b.mean) && approx_equal(a.m2, b.m2);
}
template <class T>
bool same(const T& a, const T& b) {
  return a == b;
}

// Prints one result line; returns whether it matched.
template <class T>
bool check(const char* reducer, const std::string& via, const T& got, const T& expected) {
  bool ok = same(got, expected);
  std::printf("  %-14s %-50s %s%s%s\n", reducer, via.c_str(), show(got).c_str(), ok ? "" : "  WRONG, expected ",
              ok ? "" : show(expected).c_str());
  return ok;
}

std::string on_this_pe(const char* what) {
  return std::string(what) + " on pe " + std::to_string(roam::my_pe().value());
}

// ---- function callbacks: plain functions, run on PE 0 ---------------------------

// Only PE 0 touches this (the functions below run there, and so does main).
struct {
  int seen = 0;
  int failed = 0;
} pe0_functions;
constexpr int function_results = 4;

void record_on_pe0(bool ok) {
  ++pe0_functions.seen;
  pe0_functions.failed += !ok;
}
void on_product(std::int64_t v) {
  record_on_pe0(check("product", on_this_pe("function on_product"), v, expected_product()));
}
void on_bitwise_and(std::uint32_t v) {
  record_on_pe0(check("bitwise_and", on_this_pe("function on_bitwise_and"), v, expected_band()));
}
void on_bitwise_or(std::uint32_t v) {
  record_on_pe0(check("bitwise_or", on_this_pe("function on_bitwise_or"), v, expected_bor()));
}
void on_bitwise_xor(std::uint32_t v) {
  record_on_pe0(check("bitwise_xor", on_this_pe("function on_bitwise_xor"), v, expected_bxor()));
}

}  // namespace

// ---- entry callbacks: a chare that checks what it receives ------------------------

struct judge : roam::chare<judge> {
  static constexpr int results = 8;  // entries below that receive a reduction result
  explicit judge(roam::promise<int> failures) : failures_(failures) {}

  void got_min(int v) { record(check("min", on_this_pe("entry judge::got_min"), v, expected_min())); }
  void got_and(bool v) { record(check("logical_and", on_this_pe("entry judge::got_and"), v, expected_and())); }
  void got_or(bool v) { record(check("logical_or", on_this_pe("entry judge::got_or"), v, expected_or())); }
  void got_xor(bool v) { record(check("logical_xor", on_this_pe("entry judge::got_xor"), v, expected_xor())); }
  void got_set(std::vector<std::pair<std::uint64_t, double>> v) {
    record(check("set", on_this_pe("entry judge::got_set"), v, expected_set()));
  }
  void got_tuple(tuple_value v) {
    record(check("tuple_of", on_this_pe("entry judge::got_tuple"), v, expected_tuple()));
  }
  void got_top_two(top_two v) {
    record(check("custom_reducer", on_this_pe("entry judge::got_top_two"), v, expected_top_two()));
  }
  // The reduction every element starts once the barrier has released it.
  void got_released(std::int64_t v) {
    record(check("barrier", on_this_pe("broadcast, then entry judge::got_released"), v,
                 static_cast<std::int64_t>(*elements)));
  }

 private:
  void record(bool ok) {
    failed_ += !ok;
    if (++seen_ == results) failures_.set_value(failed_);
  }
  roam::promise<int> failures_;
  int seen_ = 0;
  int failed_ = 0;
};

// Where the results that main awaits go.
struct main_promises {
  roam::promise<std::int64_t> sum;
  roam::promise<double> max;
  roam::promise<std::vector<std::string>> concat;
  roam::promise<roam::statistics> stats;
  template <class P>
  void pup(P& p) {
    p | sum | max | concat | stats;
  }
};

struct member : roam::element<member> {
  member(main_promises to_main, roam::chare_proxy<judge> j) : main_(to_main), judge_(j) {}

  // Broadcast by main: one contribution per reducer, in the same order on every element.
  void go() {
    using roam::callback;
    const int i = this_index()[0];
    contribute(sum_value(i), roam::sum, callback<std::int64_t>::to_future(main_.sum));
    contribute(product_value(i), roam::product, callback<std::int64_t>::function<&on_product>(roam::pe_id{0}));
    contribute(min_value(i), roam::min, callback<int>::to<&judge::got_min>(judge_));
    contribute(max_value(i), roam::max, callback<double>::to_future(main_.max));
    contribute(and_value(i), roam::logical_and, callback<bool>::to<&judge::got_and>(judge_));
    contribute(or_value(i), roam::logical_or, callback<bool>::to<&judge::got_or>(judge_));
    contribute(xor_value(i), roam::logical_xor, callback<bool>::to<&judge::got_xor>(judge_));
    contribute(band_value(i), roam::bitwise_and, callback<std::uint32_t>::function<&on_bitwise_and>(roam::pe_id{0}));
    contribute(bor_value(i), roam::bitwise_or, callback<std::uint32_t>::function<&on_bitwise_or>(roam::pe_id{0}));
    contribute(bxor_value(i), roam::bitwise_xor, callback<std::uint32_t>::function<&on_bitwise_xor>(roam::pe_id{0}));
    // concat: a std::vector of every contribution, in row-major index order.
    contribute(concat_value(i), roam::concat, callback<std::vector<std::string>>::to_future(main_.concat));
    // set: (index, value) pairs sorted by index.
    contribute(set_value(i), roam::set,
               callback<std::vector<std::pair<std::uint64_t, double>>>::to<&judge::got_set>(judge_));
    contribute(stats_value(i), roam::stats, callback<roam::statistics>::to_future(main_.stats));
    contribute(tuple_contribution(i), roam::tuple_of(roam::sum, roam::min, roam::max),
               callback<tuple_value>::to<&judge::got_tuple>(judge_));
    contribute(top_two_value(i), roam::custom_reducer<&merge_top_two>(),
               callback<top_two>::to<&judge::got_top_two>(judge_));
    // A barrier carries no value; this one is broadcast back to the array.
    contribute(callback<>::broadcast<&member::released>(this_array()));
  }

  // Every element runs this once all have reached the barrier.
  void released() {
    contribute(std::int64_t{1}, roam::sum, roam::callback<std::int64_t>::to<&judge::got_released>(judge_));
  }

 private:
  main_promises main_;
  roam::chare_proxy<judge> judge_;
};

namespace {

// At most 20 elements: 20! still fits in 64 bits.
constexpr examples::usage_text usage{"reductions", "[N in 1..20]",
                                     "  N             array elements contributing to every reduction (default 10)\n",
                                     "reductions 20 +p4"};

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    const std::optional<int> parsed = examples::read_command_line(
        a, usage, 1, {}, [](const examples::command_line& c) { return c.whole(1, "N", 10, 1, 20); });
    if (!parsed) co_return;  // the usage is printed and the program ends
    const long long n = *parsed;
    elements = static_cast<int>(n);  // readonly: before anything is created
    std::printf("reductions: %d elements on %u pes\n", *elements, roam::num_pes());

    auto [sum_f, sum_p] = roam::make_future<std::int64_t>();
    auto [max_f, max_p] = roam::make_future<double>();
    auto [concat_f, concat_p] = roam::make_future<std::vector<std::string>>();
    auto [stats_f, stats_p] = roam::make_future<roam::statistics>();
    auto [judge_f, judge_p] = roam::make_future<int>();

    // The judge on the last PE, so entry callbacks usually cross PEs.
    auto j = roam::create_chare_on<judge>(roam::pe_id{roam::num_pes() - 1}, judge_p);
    auto arr = roam::create_array<member>({*elements}, main_promises{sum_p, max_p, concat_p, stats_p}, j);
    arr.send<&member::go>();

    int failed = 0;
    failed += !check("sum", on_this_pe("future in main"), co_await sum_f, expected_sum());
    failed += !check("max", on_this_pe("future in main"), co_await max_f, expected_max());
    failed += !check("concat", on_this_pe("future in main"), co_await concat_f, expected_concat());
    failed += !check("stats", on_this_pe("future in main"), co_await stats_f, expected_stats());
    failed += co_await judge_f;

    // The function callbacks report to nobody: wait until the whole program is
    // idle (no message anywhere), by then every one of them has run.
    auto [idle_f, idle_p] = roam::make_future<>();
    roam::on_quiescence(roam::callback<>::to_future(idle_p));
    co_await idle_f;
    failed += pe0_functions.failed;
    if (pe0_functions.seen != function_results) {
      std::printf("  only %d of %d function callbacks ran\n", pe0_functions.seen, function_results);
      ++failed;
    }
    j.destroy();

    if (failed == 0) {
      std::printf("reductions: OK (%d reductions checked)\n", 4 + judge::results + function_results);
      roam::exit(0);
    } else {
      std::printf("reductions: FAILED (%d wrong)\n", failed);
      roam::exit(1);
    }
  });
}
