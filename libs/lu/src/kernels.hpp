#pragma once
// The sequential pieces of the factorization, on column-major blocks, over
// OpenBLAS (single-threaded: each PE is one core).
#include <cstdint>
#include <vector>

namespace roam::lu::detail {

/// Makes OpenBLAS use the calling thread only (once per process).
void single_threaded_blas();

/// Factors the m×w column-major panel `a` (leading dimension lda, m ≥ w) in
/// place with partial pivoting: P a = L U, L unit lower (below the diagonal),
/// U upper. piv[c] is the row (0-based, of this panel) exchanged with row c at
/// column c. Returns the first column whose pivot was exactly zero, or -1
/// (the factorization goes on past it, leaving that column unscaled).
/// Recursive: halves the columns, so most of the work is dtrsm and dgemm.
std::int64_t factor_panel(double* a, std::int64_t m, std::int64_t w, std::int64_t lda, std::int64_t* piv);

/// factor_panel's recursion over w columns, for a panel factored by several
/// PEs in the same order: leaf_end[c] is the end of the leaf holding column
/// c; a leaf ending at e < w is followed by the update of columns
/// [e, update_to[e]) by columns [update_from[e], e).
void panel_plan(std::int64_t w, std::vector<std::int64_t>& leaf_end, std::vector<std::int64_t>& update_from,
                std::vector<std::int64_t>& update_to);
/// The first row of the largest |x[r]|, r < n (idamax), or -1 if n ≤ 0.
std::int64_t largest_magnitude(const double* x, std::int64_t n);
/// One column of a leaf on `rows` rows: x (rows) /= pivot, then the leaf's
/// next `w` columns (a, leading dimension lda) -= x · u (u: w entries).
void scale_and_rank1(double* x, std::int64_t rows, double pivot, double* a, std::int64_t lda, const double* u, std::int64_t w);

/// Exchanges rows c and piv[c] for c in [c0, c1), in order, over `cols`
/// columns of `a` (leading dimension lda).
void swap_rows(double* a, std::int64_t lda, std::int64_t cols, const std::int64_t* piv, std::int64_t c0, std::int64_t c1);

/// Exchanges rows first + r and piv[r] (r < count, in order; global row
/// numbers, `first` the global row of a's row 0) over `cols` columns of a,
/// column by column: a column's rows stay in cache for all the exchanges.
void apply_exchanges(double* a, std::int64_t lda, std::int64_t cols, const std::int64_t* piv, std::int64_t count,
                     std::int64_t first);
/// b (n×w) := L⁻¹ b with L the unit lower triangle of the n×n `l`.
void solve_unit_lower(const double* l, std::int64_t ldl, double* b, std::int64_t ldb, std::int64_t n, std::int64_t w);
/// c (m×n) -= a (m×k) · b (k×n).
void subtract_product(const double* a, std::int64_t lda, const double* b, std::int64_t ldb, double* c, std::int64_t ldc,
                      std::int64_t m, std::int64_t n, std::int64_t k);
/// y (m) -= a (m×n) · x (n).
void subtract_matvec(const double* a, std::int64_t lda, const double* x, double* y, std::int64_t m, std::int64_t n);
/// x (n) := T⁻¹ x for T the unit lower (upper = false) or non-unit upper (true) triangle of `t`.
void solve_triangle(const double* t, std::int64_t ldt, double* x, std::int64_t n, bool upper);

}  // namespace roam::lu::detail
