// Checks of roam::lu against a serial factorization with the same pivoting.
//
//   lu_check reference N B [MAP]   a random matrix: pivots equal the serial ones, L and U within 1e-9
//   lu_check solve N B [MAP]       fill_random, factor, solve: HPL's scaled residual < 16
//   lu_check pivoting N B [MAP]    rows of a diagonally dominant matrix shuffled: a row exchange at
//                                  almost every column, the count equal to the serial one
//   lu_check singular N B Z        column Z zero: factor() says so, solve() refuses
//   lu_check two N B               two matrices factored at once on the same PEs
//   lu_check memory N B F [L]      memory fraction F (lookahead L): the panel cache stays in bound
//   lu_check unfactored N B        solve() before factor() refused
//   lu_check checkpoint N B DIR    a checkpoint of a matrix refused, naming a block
// MAP: block_cyclic (default), column_cyclic, column_cyclic2 (two columns at a time), row_cyclic,
// hash (roam::hash_map()). A last argument `distributed`: panels factored where their blocks are
// (modes without MAP then use row_cyclic, so that every panel spans the PEs).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <roam/ft/checkpoint.hpp>
#include <roam/lu/lu.hpp>
#include <roam/roam.hpp>

namespace {

struct serial_lu {
  std::vector<double> a;  // column-major n×n
  std::vector<std::int64_t> piv;
  std::int64_t swaps = 0;
};

// Right-looking LU with partial pivoting, exchanging rows only from the
// start of the pivot column's block column (the library's layout of L).
serial_lu reference_lu(std::vector<double> a, std::int64_t n, std::int64_t b) {
  serial_lu out;
  out.piv.resize(static_cast<std::size_t>(n));
  auto at = [&](std::int64_t r, std::int64_t c) -> double& { return a[static_cast<std::size_t>(r + c * n)]; };
  for (std::int64_t c = 0; c < n; ++c) {
    std::int64_t p = c;
    for (std::int64_t r = c + 1; r < n; ++r)
      if (std::abs(at(r, c)) > std::abs(at(p, c))) p = r;
    out.piv[static_cast<std::size_t>(c)] = p;
    if (p != c) {
      ++out.swaps;
      for (std::int64_t k = (c / b) * b; k < n; ++k) std::swap(at(c, k), at(p, k));
    }
    if (at(c, c) == 0) continue;
    for (std::int64_t r = c + 1; r < n; ++r) at(r, c) /= at(c, c);
    for (std::int64_t k = c + 1; k < n; ++k)
      for (std::int64_t r = c + 1; r < n; ++r) at(r, k) -= at(r, c) * at(c, k);
  }
  out.a = std::move(a);
  return out;
}

std::vector<double> random_matrix(std::int64_t n, std::uint64_t seed) {
  std::vector<double> a(static_cast<std::size_t>(n * n));
  for (std::int64_t c = 0; c < n; ++c)
    for (std::int64_t r = 0; r < n; ++r)
      a[static_cast<std::size_t>(r + c * n)] = roam::lu::random_entry(seed, static_cast<std::uint64_t>(r), static_cast<std::uint64_t>(c));
  return a;
}

double residual_of(const std::vector<double>& a, std::int64_t n, const std::vector<double>& x, const std::vector<double>& b) {
  double r_inf = 0, a_inf = 0, x_inf = 0, b_inf = 0;
  for (std::int64_t r = 0; r < n; ++r) {
    double s = 0, row = 0;
    for (std::int64_t c = 0; c < n; ++c) {
      s += a[static_cast<std::size_t>(r + c * n)] * x[static_cast<std::size_t>(c)];
      row += std::abs(a[static_cast<std::size_t>(r + c * n)]);
    }
    r_inf = std::max(r_inf, std::abs(s - b[static_cast<std::size_t>(r)]));
    a_inf = std::max(a_inf, row);
    x_inf = std::max(x_inf, std::abs(x[static_cast<std::size_t>(r)]));
    b_inf = std::max(b_inf, std::abs(b[static_cast<std::size_t>(r)]));
  }
  return r_inf / (2.220446049250313e-16 * (a_inf * x_inf + b_inf) * static_cast<double>(n));
}

roam::array_map map_named(const std::string& name) {
  if (name == "column_cyclic") return roam::lu::column_cyclic();
  if (name == "column_cyclic2") return roam::lu::column_cyclic(2);
  if (name == "row_cyclic") return roam::lu::row_cyclic();
  if (name == "hash") return roam::hash_map();
  if (name != "block_cyclic") {
    std::fprintf(stderr, "lu_check: unknown map '%s'\n", name.c_str());
    std::exit(2);
  }
  return roam::lu::block_cyclic();
}

// HPL's run on m: fill_random(seed), factor, solve, residual.
roam::task<std::pair<roam::lu::factor_stats, roam::lu::residual_norms>> solve_random(roam::lu::matrix& m, std::uint64_t seed) {
  co_await m.fill_random(seed);
  const roam::lu::factor_stats s = co_await m.factor();
  const auto rhs = roam::lu::random_vector(seed, m.n());
  const auto x = co_await m.solve(rhs);
  co_return std::pair{s, co_await m.residual(seed, x, rhs)};
}

int fail(const std::string& what) {
  std::printf("lu_check: FAILED: %s\n", what.c_str());
  return 1;
}

roam::task<int> check(const roam::args& given) {
  std::vector<std::string> args(given.begin(), given.end());
  const bool distributed = args.size() > 4 && args.back() == "distributed";
  if (distributed) args.pop_back();
  if (args.size() < 4) co_return fail("usage: lu_check MODE N B [...]");
  const std::string mode = args[1];
  const std::int64_t n = std::atoll(args[2].c_str()), b = std::atoll(args[3].c_str());
  const std::string extra = args.size() > 4 ? args[4] : "";
  roam::lu::options o;
  o.block = static_cast<int>(b);
  if (distributed) o.panel = roam::lu::panel_mode::distributed;
  if (mode == "reference" || mode == "solve" || mode == "pivoting")
    o.map = map_named(extra.empty() ? "block_cyclic" : extra);
  else if (distributed)
    o.map = roam::lu::row_cyclic();
  const std::uint64_t seed = 7;

  if (mode == "reference" || mode == "pivoting") {
    std::vector<double> a = random_matrix(n, seed);
    if (mode == "pivoting") {
      // Diagonally dominant by columns, then its rows shuffled: partial
      // pivoting brings each diagonal entry back, a row exchange at almost
      // every column.
      for (std::int64_t c = 0; c < n; ++c) a[static_cast<std::size_t>(c + c * n)] = static_cast<double>(n) + 1.0;
      std::vector<std::int64_t> order(static_cast<std::size_t>(n));
      for (std::int64_t r = 0; r < n; ++r) order[static_cast<std::size_t>(r)] = r;
      std::mt19937_64 g(seed);
      std::shuffle(order.begin(), order.end(), g);
      std::vector<double> shuffled(a.size());
      for (std::int64_t c = 0; c < n; ++c)
        for (std::int64_t r = 0; r < n; ++r)
          shuffled[static_cast<std::size_t>(r + c * n)] = a[static_cast<std::size_t>(order[static_cast<std::size_t>(r)] + c * n)];
      a = std::move(shuffled);
    }
    auto m = co_await roam::lu::matrix::create(static_cast<std::size_t>(n), o);
    co_await m.set(a);
    const roam::lu::factor_stats s = co_await m.factor();
    const serial_lu ref = reference_lu(a, n, std::min(b, n));
    const auto piv = co_await m.pivots();
    const auto got = co_await m.get();
    if (piv != ref.piv) co_return fail("pivots differ from the serial factorization's");
    if (s.row_swaps != ref.swaps)
      co_return fail("row exchanges " + std::to_string(s.row_swaps) + ", serially " + std::to_string(ref.swaps));
    double worst = 0;
    for (std::size_t q = 0; q < got.size(); ++q) worst = std::max(worst, std::abs(got[q] - ref.a[q]));
    if (worst > 1e-9) co_return fail("L and U differ from the serial ones by " + std::to_string(worst));
    const std::vector<double> rhs = roam::lu::random_vector(seed, static_cast<std::size_t>(n));
    const std::vector<double> x = co_await m.solve(rhs);
    const double res = residual_of(a, n, x, rhs);
    if (!(res < 16)) co_return fail("scaled residual " + std::to_string(res));
    if (mode == "pivoting" && s.row_swaps < n / 2) co_return fail("only " + std::to_string(s.row_swaps) + " row exchanges");
    std::printf("lu_check: OK (%s, n %lld, b %lld, %d blocks a side, %lld row exchanges, residual %.4f%s)\n", mode.c_str(),
                static_cast<long long>(n), static_cast<long long>(b), m.blocks(), static_cast<long long>(s.row_swaps), res,
                distributed ? ", distributed panels" : "");
    co_return 0;
  }

  if (mode == "solve") {
    auto m = co_await roam::lu::matrix::create(static_cast<std::size_t>(n), o);
    const auto [s, r] = co_await solve_random(m, seed);
    if (s.singular || !(r.scaled < 16)) co_return fail("scaled residual " + std::to_string(r.scaled));
    std::printf("lu_check: OK (solve, n %lld, b %lld, residual %.4f, %lld row exchanges%s)\n", static_cast<long long>(n),
                static_cast<long long>(b), r.scaled, static_cast<long long>(s.row_swaps), distributed ? ", distributed panels" : "");
    co_return 0;
  }

  if (mode == "singular") {
    const std::int64_t z = std::atoll(extra.c_str());
    std::vector<double> a = random_matrix(n, seed);
    for (std::int64_t r = 0; r < n; ++r) a[static_cast<std::size_t>(r + z * n)] = 0.0;
    auto m = co_await roam::lu::matrix::create(static_cast<std::size_t>(n), o);
    co_await m.set(a);
    const auto s = co_await m.factor();
    if (!s.singular || s.zero_pivot_column != z)
      co_return fail("zero pivot column " + std::to_string(s.zero_pivot_column) + ", expected " + std::to_string(z));
    try {
      (void)co_await m.solve(std::vector<double>(static_cast<std::size_t>(n), 1.0));
      co_return fail("solve() of a singular matrix returned");
    } catch (const roam::lu::lu_error& e) {
      std::printf("lu_check: solve refused: %s\n", e.what());
    }
    std::printf("lu_check: OK (singular, zero pivot in column %lld%s)\n", static_cast<long long>(s.zero_pivot_column),
                distributed ? ", distributed panels" : "");
    co_return 0;
  }

  if (mode == "unfactored") {
    auto m = co_await roam::lu::matrix::create(static_cast<std::size_t>(n), o);
    co_await m.fill_random(seed);
    try {
      (void)co_await m.solve(std::vector<double>(static_cast<std::size_t>(n), 1.0));
      co_return fail("solve() before factor() returned");
    } catch (const roam::lu::lu_error& e) {
      std::printf("lu_check: OK (unfactored: %s)\n", e.what());
    }
    co_return 0;
  }

  if (mode == "two") {
    roam::lu::options o2 = o;
    o2.map = roam::lu::column_cyclic();
    auto m1 = co_await roam::lu::matrix::create(static_cast<std::size_t>(n), o);
    auto m2 = co_await roam::lu::matrix::create(static_cast<std::size_t>(n + 3), o2);
    co_await m1.fill_random(seed);
    co_await m2.fill_random(seed + 1);
    auto f1 = m1.factor();
    auto f2 = m2.factor();
    const auto s2 = co_await f2;
    const auto s1 = co_await f1;
    const auto b1 = roam::lu::random_vector(seed, static_cast<std::size_t>(n));
    const auto b2 = roam::lu::random_vector(seed + 1, static_cast<std::size_t>(n + 3));
    const auto x1 = co_await m1.solve(b1);
    const auto x2 = co_await m2.solve(b2);
    const auto r1 = co_await m1.residual(seed, x1, b1);
    const auto r2 = co_await m2.residual(seed + 1, x2, b2);
    if (s1.singular || s2.singular || !(r1.scaled < 16) || !(r2.scaled < 16))
      co_return fail("residuals " + std::to_string(r1.scaled) + " and " + std::to_string(r2.scaled));
    std::printf("lu_check: OK (two at once, residuals %.4f and %.4f%s)\n", r1.scaled, r2.scaled, distributed ? ", distributed panels" : "");
    co_return 0;
  }

  if (mode == "memory") {
    o.memory = std::atof(extra.c_str());
    o.lookahead = args.size() > 5 ? std::atoi(args[5].c_str()) : 0;
    auto m = co_await roam::lu::matrix::create(static_cast<std::size_t>(n), o);
    const auto [s, r] = co_await solve_random(m, seed);
    const std::uint64_t largest_panel = static_cast<std::uint64_t>(m.blocks()) * static_cast<std::uint64_t>(m.block()) *
                                        static_cast<std::uint64_t>(m.block()) * sizeof(double);
    if (!(r.scaled < 16)) co_return fail("scaled residual " + std::to_string(r.scaled));
    if (s.peak_panel_bytes > std::max(s.budget_bytes, largest_panel))
      co_return fail("panel cache peaked at " + std::to_string(s.peak_panel_bytes) + " bytes, bound " + std::to_string(s.budget_bytes));
    if (o.lookahead > 0 && s.most_panels_held > o.lookahead)
      co_return fail(std::to_string(s.most_panels_held) + " panels held, lookahead " + std::to_string(o.lookahead));
    std::printf("lu_check: OK (memory %s: peak %llu bytes, bound %llu, %d panels at most, residual %.4f%s)\n", extra.c_str(),
                static_cast<unsigned long long>(s.peak_panel_bytes), static_cast<unsigned long long>(s.budget_bytes),
                s.most_panels_held, r.scaled, distributed ? ", distributed panels" : "");
    co_return 0;
  }
  if (mode == "checkpoint") {  // refused by name: a block's entries do not travel
    auto m = co_await roam::lu::matrix::create(static_cast<std::size_t>(n), o);
    co_await m.fill_random(seed);
    auto [saved, cb] = roam::make_future_callback<roam::checkpoint_result>();
    roam::checkpoint(extra, cb);
    const roam::checkpoint_result r = co_await saved;
    if (r.ok) co_return fail("a checkpoint of a matrix was written");
    std::printf("lu_check: OK (checkpoint refused: %s)\n", r.error.c_str());
    co_return 0;
  }
  co_return fail("unknown mode '" + mode + "'");
}

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> { roam::exit(co_await check(a)); });
}
