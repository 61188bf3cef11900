// Serial pieces of the sparse triangular solve (sparse.hpp).
#include "sparse.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace sptrsv {

csc compress(const triplets& t) {
  csc m;
  m.n = t.n;
  std::vector<std::int64_t> count(static_cast<std::size_t>(t.n) + 1, 0);
  for (std::int32_t c : t.j) ++count[static_cast<std::size_t>(c) + 1];
  std::partial_sum(count.begin(), count.end(), count.begin());
  std::vector<std::int32_t> rows(t.i.size());
  std::vector<double> vals(t.i.size());
  std::vector<std::int64_t> next(count.begin(), count.end() - 1);
  for (std::size_t e = 0; e < t.i.size(); ++e) {
    const auto at = static_cast<std::size_t>(next[static_cast<std::size_t>(t.j[e])]++);
    rows[at] = t.i[e];
    vals[at] = t.v[e];
  }
  m.colptr.assign(1, 0);
  std::vector<std::pair<std::int32_t, double>> col;
  for (std::int64_t c = 0; c < t.n; ++c) {
    col.clear();
    for (auto e = count[static_cast<std::size_t>(c)]; e < count[static_cast<std::size_t>(c) + 1]; ++e)
      col.emplace_back(rows[static_cast<std::size_t>(e)], vals[static_cast<std::size_t>(e)]);
    std::sort(col.begin(), col.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t q = 0; q < col.size(); ++q) {
      if (q > 0 && col[q].first == col[q - 1].first) {
        m.val.back() += col[q].second;
        continue;
      }
      m.row.push_back(col[q].first);
      m.val.push_back(col[q].second);
    }
    m.colptr.push_back(static_cast<std::int64_t>(m.row.size()));
  }
  return m;
}

void check_lower(const csc& l) {
  // Rows are reported 1-based, as in the Matrix Market file.
  std::int64_t worst_row = -1;
  std::string why;
  for (std::int64_t c = 0; c < l.n; ++c) {
    const auto b = l.colptr[static_cast<std::size_t>(c)], e = l.colptr[static_cast<std::size_t>(c) + 1];
    if (b < e && l.row[static_cast<std::size_t>(b)] < c) {
      const std::int64_t r = l.row[static_cast<std::size_t>(b)];
      if (worst_row < 0 || r < worst_row) {
        worst_row = r;
        why = "row " + std::to_string(r + 1) + " has an entry in column " + std::to_string(c + 1) +
              ", above the diagonal: the matrix is not lower triangular";
      }
      continue;
    }
    if (b == e || l.row[static_cast<std::size_t>(b)] != c || l.val[static_cast<std::size_t>(b)] == 0.0) {
      if (worst_row < 0 || c < worst_row) {
        worst_row = c;
        why = "row " + std::to_string(c + 1) + " has a zero diagonal entry: the matrix is singular";
      }
    }
  }
  if (worst_row >= 0) throw input_error(why);
}

std::vector<double> forward_substitution(const csc& l, std::vector<double> b, int nrhs) {
  const auto k = static_cast<std::size_t>(nrhs);
  for (std::int64_t c = 0; c < l.n; ++c) {
    const auto e0 = static_cast<std::size_t>(l.colptr[static_cast<std::size_t>(c)]);
    const auto e1 = static_cast<std::size_t>(l.colptr[static_cast<std::size_t>(c) + 1]);
    double* xc = b.data() + static_cast<std::size_t>(c) * k;
    const double d = l.val[e0];
    for (std::size_t q = 0; q < k; ++q) xc[q] /= d;
    for (std::size_t e = e0 + 1; e < e1; ++e) {
      double* y = b.data() + static_cast<std::size_t>(l.row[e]) * k;
      const double v = l.val[e];
      for (std::size_t q = 0; q < k; ++q) y[q] -= v * xc[q];
    }
  }
  return b;
}

double scaled_residual(const csc& l, const std::vector<double>& x, const std::vector<double>& b, int nrhs) {
  const auto k = static_cast<std::size_t>(nrhs), n = static_cast<std::size_t>(l.n);
  std::vector<double> r(b), row_sum(n, 0.0);
  for (std::size_t c = 0; c < n; ++c)
    for (auto e = static_cast<std::size_t>(l.colptr[c]); e < static_cast<std::size_t>(l.colptr[c + 1]); ++e) {
      const auto i = static_cast<std::size_t>(l.row[e]);
      row_sum[i] += std::abs(l.val[e]);
      for (std::size_t q = 0; q < k; ++q) r[i * k + q] -= l.val[e] * x[c * k + q];
    }
  const double l_inf = n == 0 ? 0.0 : *std::max_element(row_sum.begin(), row_sum.end());
  double worst = 0;
  for (std::size_t q = 0; q < k; ++q) {
    double r_inf = 0, x_inf = 0;
    for (std::size_t i = 0; i < n; ++i) {
      r_inf = std::max(r_inf, std::abs(r[i * k + q]));
      x_inf = std::max(x_inf, std::abs(x[i * k + q]));
    }
    const double denom = std::numeric_limits<double>::epsilon() * l_inf * x_inf * static_cast<double>(n);
    worst = std::max(worst, denom > 0 ? r_inf / denom : r_inf);
  }
  return worst;
}

csc reversed(const csc& u) {
  triplets t;
  t.n = u.n;
  for (std::int64_t c = 0; c < u.n; ++c)
    for (auto e = u.colptr[static_cast<std::size_t>(c)]; e < u.colptr[static_cast<std::size_t>(c) + 1]; ++e)
      t.add(u.n - 1 - u.row[static_cast<std::size_t>(e)], u.n - 1 - c, u.val[static_cast<std::size_t>(e)]);
  return compress(t);
}

}  // namespace sptrsv
