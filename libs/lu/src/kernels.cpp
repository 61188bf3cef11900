// OpenBLAS under the factorization's sequential steps (kernels.hpp).
#include "kernels.hpp"

#include <cblas.h>

#include <cmath>
#include <mutex>
#include <utility>

namespace roam::lu::detail {

void single_threaded_blas() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

namespace {
constexpr std::int64_t leaf_columns = 8;

// Column by column (the recursion's leaves): pivot search, exchange across
// the leaf's columns, scaling, rank-1 update of the leaf's other columns.
std::int64_t factor_leaf(double* a, std::int64_t m, std::int64_t w, std::int64_t lda, std::int64_t* piv) {
  std::int64_t zero = -1;
  for (std::int64_t c = 0; c < w; ++c) {
    double* col = a + c * lda;
    const std::int64_t p = c + static_cast<std::int64_t>(cblas_idamax(static_cast<int>(m - c), col + c, 1));
    piv[c] = p;
    if (p != c) cblas_dswap(static_cast<int>(w), a + c, static_cast<int>(lda), a + p, static_cast<int>(lda));
    const double pivot = col[c];
    if (pivot == 0.0) {
      if (zero < 0) zero = c;
      continue;  // as LAPACK: the column stays unscaled, the rest goes on
    }
    if (c + 1 < m) cblas_dscal(static_cast<int>(m - c - 1), 1.0 / pivot, col + c + 1, 1);
    if (c + 1 < w && c + 1 < m)
      cblas_dger(CblasColMajor, static_cast<int>(m - c - 1), static_cast<int>(w - c - 1), -1.0, col + c + 1, 1,
                 a + c + (c + 1) * lda, static_cast<int>(lda), a + (c + 1) + (c + 1) * lda, static_cast<int>(lda));
  }
  return zero;
}
}  // namespace

namespace {
void plan(std::int64_t c0, std::int64_t w, std::vector<std::int64_t>& leaf_end, std::vector<std::int64_t>& update_from,
          std::vector<std::int64_t>& update_to) {
  if (w <= leaf_columns) {
    for (std::int64_t c = c0; c < c0 + w; ++c) leaf_end[static_cast<std::size_t>(c)] = c0 + w;
    return;
  }
  const std::int64_t w1 = w / 2;
  plan(c0, w1, leaf_end, update_from, update_to);
  update_from[static_cast<std::size_t>(c0 + w1)] = c0;
  update_to[static_cast<std::size_t>(c0 + w1)] = c0 + w;
  plan(c0 + w1, w - w1, leaf_end, update_from, update_to);
}
}  // namespace

void panel_plan(std::int64_t w, std::vector<std::int64_t>& leaf_end, std::vector<std::int64_t>& update_from,
                std::vector<std::int64_t>& update_to) {
  leaf_end.assign(static_cast<std::size_t>(w) + 1, w);
  update_from.assign(static_cast<std::size_t>(w) + 1, -1);
  update_to.assign(static_cast<std::size_t>(w) + 1, -1);
  plan(0, w, leaf_end, update_from, update_to);
}

std::int64_t largest_magnitude(const double* x, std::int64_t n) {
  return n <= 0 ? -1 : static_cast<std::int64_t>(cblas_idamax(static_cast<int>(n), x, 1));
}

void scale_and_rank1(double* x, std::int64_t rows, double pivot, double* a, std::int64_t lda, const double* u, std::int64_t w) {
  if (rows <= 0) return;
  cblas_dscal(static_cast<int>(rows), 1.0 / pivot, x, 1);
  if (w > 0)
    cblas_dger(CblasColMajor, static_cast<int>(rows), static_cast<int>(w), -1.0, x, 1, u, 1, a, static_cast<int>(lda));
}

void swap_rows(double* a, std::int64_t lda, std::int64_t cols, const std::int64_t* piv, std::int64_t c0, std::int64_t c1) {
  if (cols <= 0) return;
  for (std::int64_t c = c0; c < c1; ++c)
    if (piv[c] != c) cblas_dswap(static_cast<int>(cols), a + c, static_cast<int>(lda), a + piv[c], static_cast<int>(lda));
}

std::int64_t factor_panel(double* a, std::int64_t m, std::int64_t w, std::int64_t lda, std::int64_t* piv) {
  if (w <= leaf_columns) return factor_leaf(a, m, w, lda, piv);
  const std::int64_t w1 = w / 2, w2 = w - w1;
  std::int64_t zero = factor_panel(a, m, w1, lda, piv);
  double* right = a + w1 * lda;
  swap_rows(right, lda, w2, piv, 0, w1);
  cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, static_cast<int>(w1), static_cast<int>(w2), 1.0,
              a, static_cast<int>(lda), right, static_cast<int>(lda));
  subtract_product(a + w1, lda, right, lda, right + w1, lda, m - w1, w2, w1);
  const std::int64_t zero2 = factor_panel(right + w1, m - w1, w2, lda, piv + w1);
  for (std::int64_t c = w1; c < w; ++c) piv[c] += w1;
  swap_rows(a, lda, w1, piv, w1, w);
  if (zero < 0 && zero2 >= 0) zero = zero2 + w1;
  return zero;
}

void apply_exchanges(double* a, std::int64_t lda, std::int64_t cols, const std::int64_t* piv, std::int64_t count,
                     std::int64_t first) {
  for (std::int64_t c = 0; c < cols; ++c) {
    double* col = a + c * lda - first;
    for (std::int64_t r = 0; r < count; ++r) std::swap(col[first + r], col[piv[r]]);
  }
}

void solve_unit_lower(const double* l, std::int64_t ldl, double* b, std::int64_t ldb, std::int64_t n, std::int64_t w) {
  cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, static_cast<int>(n), static_cast<int>(w), 1.0,
              l, static_cast<int>(ldl), b, static_cast<int>(ldb));
}

void subtract_product(const double* a, std::int64_t lda, const double* b, std::int64_t ldb, double* c, std::int64_t ldc,
                      std::int64_t m, std::int64_t n, std::int64_t k) {
  if (m <= 0 || n <= 0 || k <= 0) return;
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), -1.0,
              a, static_cast<int>(lda), b, static_cast<int>(ldb), 1.0, c, static_cast<int>(ldc));
}

void subtract_matvec(const double* a, std::int64_t lda, const double* x, double* y, std::int64_t m, std::int64_t n) {
  cblas_dgemv(CblasColMajor, CblasNoTrans, static_cast<int>(m), static_cast<int>(n), -1.0, a, static_cast<int>(lda), x, 1,
              1.0, y, 1);
}

void solve_triangle(const double* t, std::int64_t ldt, double* x, std::int64_t n, bool upper) {
  cblas_dtrsv(CblasColMajor, upper ? CblasUpper : CblasLower, CblasNoTrans, upper ? CblasNonUnit : CblasUnit,
              static_cast<int>(n), t, static_cast<int>(ldt), x, 1);
}

}  // namespace roam::lu::detail
