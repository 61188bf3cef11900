// After the factorization: the solve (a vector that visits the blocks) and
// HPL's residual.
#include "sched.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>

namespace roam::lu::detail {

void sched::solve_visit(std::int32_t phase, std::int32_t k, std::int32_t i, roam::buffer<double> v,
                 roam::callback<std::vector<double>> done) {
  double* x = v.mutable_data();
  const std::int64_t b = cfg.b;
  for (;;) {
    auto [a, ld] = at(i, k);
    double* xk = x + k * b;
    if (phase == 0) {
      if (i == k) {
        const auto& p = piv[static_cast<std::size_t>(k)];
        for (std::int64_t r = 0; r < b; ++r) std::swap(x[k * b + r], x[p[static_cast<std::size_t>(r)]]);
        solve_triangle(a, ld, xk, b, false);
      } else {
        subtract_matvec(a, ld, xk, x + i * b, b, b);
      }
      if (i + 1 < cfg.nb) {
        ++i;
      } else if (k + 1 < cfg.nb) {
        i = k = k + 1;
      } else {
        phase = 1;
        i = k = cfg.nb - 1;
      }
    } else {
      if (i == k)
        solve_triangle(a, ld, xk, b, true);
      else
        subtract_matvec(a, ld, xk, x + i * b, b, b);
      if (i == k && k == 0) break;  // (0, 0) is the last visit
      if (i == k)
        i = k - 1;  // the blocks above the diagonal, bottom up
      else if (i > 0)
        --i;
      else
        i = k = k - 1;  // the next diagonal block
    }
    if (owner_of(i, k) != me) {
      this_group()[roam::pe_id{owner_of(i, k)}].send<&sched::solve_visit>(phase, k, i, std::move(v), std::move(done));
      return;
    }
  }
  done.send(std::vector<double>(x, x + cfg.n));
}

void sched::residual_part(std::uint64_t seed, roam::buffer<double> x, roam::callback<std::vector<double>> done) {
  const std::int64_t n = cfg.n;
  std::vector<double> sums(static_cast<std::size_t>(2 * n), 0.0);
  for (std::int32_t j = 0; j < cfg.nb; ++j)
    for (std::int32_t i : rows_in_col[static_cast<std::size_t>(j)]) {
      const std::int64_t r0 = static_cast<std::int64_t>(i) * cfg.b, c0 = static_cast<std::int64_t>(j) * cfg.b;
      for (std::int64_t r = r0; r < std::min(n, r0 + cfg.b); ++r)
        for (std::int64_t c = c0; c < std::min(n, c0 + cfg.b); ++c) {
          const double v = random_entry(seed, static_cast<std::uint64_t>(r), static_cast<std::uint64_t>(c));
          sums[static_cast<std::size_t>(r)] += v * x[static_cast<std::size_t>(c)];
          sums[static_cast<std::size_t>(n + r)] += std::abs(v);
        }
    }
  contribute(std::move(sums), roam::sum, done);
}

}  // namespace roam::lu::detail
