#pragma once
/// \file
/// roam::lu: dense LU factorization with partial pivoting, the HPC
/// Challenge's HPL as a library (docs/design/lu.md). An n×n matrix is cut
/// into b×b blocks, elements of a 2-D array placed by a mapping of block
/// coordinates to PEs (2-D block-cyclic by default; any roam::array_map).
/// Each PE has a scheduler that runs its blocks' work in critical-path
/// order: the next panel's column first, so panels are factored ahead of
/// the trailing updates (dynamic lookahead), and pulls each factored panel
/// only while its cache stays under a memory bound.
///
/// ```cpp
/// auto a = co_await roam::lu::matrix::create(4000, {.block = 128});
/// co_await a.fill_random(42);                  // HPL's matrix: uniform in [-0.5, 0.5)
/// roam::lu::factor_stats s = co_await a.factor();
/// auto b = roam::lu::random_vector(42, 4000);
/// std::vector<double> x = co_await a.solve(b);
/// roam::lu::residual_norms r = co_await a.residual(42, x, b);   // HPL's scaled residual: r.scaled < 16
/// ```
///
/// factor() starts at once and returns a future, so factorizations of
/// different matrices run interleaved on the same PEs (`auto f1 =
/// a.factor(); auto f2 = b.factor(); co_await f1; co_await f2;`). Calls on
/// one matrix must not overlap, except solves after its factorization.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <roam/roam.hpp>

namespace roam::lu {

/// Block (i, j) on PE (i mod pr)·pc + (j mod pc) of the most nearly square
/// pr×pc grid of the PEs with pr ≤ pc (1×2 on 2 PEs, 2×2 on 4, 2×3 on 6).
roam::array_map block_cyclic();
/// Block column j on PE ⌊j / width⌋ mod P (a 1×P grid of `width` columns
/// at a time, 1 to 4): a panel never leaves its PE, and with width w the
/// next panel is on the same PE w − 1 times in w (fewer hand-overs between
/// PEs on the critical path).
roam::array_map column_cyclic(int width = 1);
/// Block row i on PE i mod P (a P×1 grid): every panel spans the PEs.
roam::array_map row_cyclic();

/// How a panel (block column k from the diagonal down) is factored.
enum class panel_mode {
  /// Its blocks go to the diagonal block's PE, which factors the panel with
  /// one recursive kernel. No messages at all on 1×P grids (the panel is
  /// on one PE); on other grids one gather of the panel per step.
  gathered,
  /// Factored where its blocks are: each column's pivot is a reduction of
  /// every PE's best candidate at the diagonal block's PE, the winning row
  /// and the row it replaces travel between the PEs of the two blocks, and
  /// the panel's own updates run on each PE's rows. A panel on one PE is
  /// factored as `gathered` does (there is nothing to distribute).
  distributed,
};

struct options {
  /// Block size b (the matrix is padded to a multiple of b with the identity).
  int block = 128;
  /// Where each block lives: block_cyclic(), column_cyclic(), row_cyclic(),
  /// or any map of the 2-D block index (roam::custom_map<&fn>()).
  roam::array_map map = block_cyclic();
  /// Memory bound of each PE's panel cache, as a fraction of the PE's share
  /// of the matrix (n²·8 / PEs bytes); one panel is always allowed.
  double memory = 0.5;
  /// The most factored panels a PE holds at once (0: the memory bound only).
  int lookahead = 0;
  /// Where panels are factored (gathered is faster on this kind of machine;
  /// docs/design/lu.md has the figures).
  panel_mode panel = panel_mode::gathered;
};

/// What a factorization did.
struct factor_stats {
  bool singular = false;                 ///< a pivot was exactly zero (solve refuses)
  std::int64_t zero_pivot_column = -1;   ///< the first such column
  std::int64_t row_swaps = 0;            ///< pivots that exchanged two different rows
  std::uint64_t budget_bytes = 0;        ///< each PE's panel cache bound
  std::uint64_t peak_panel_bytes = 0;    ///< the largest panel cache any PE held
  std::int32_t most_panels_held = 0;     ///< the most panels any PE held at once (its lookahead)
  double seconds = 0;                    ///< from the start message to the last PE's end
  /// Seconds of work, summed over the PEs: panel factorizations (with their
  /// gathering), U blocks (L_kk⁻¹ A_kj), trailing updates, row exchanges.
  double panel_seconds = 0, solve_u_seconds = 0, update_seconds = 0, swap_seconds = 0;
  void pup(roam::pup_er& p) {
    p | singular | zero_pivot_column | row_swaps | budget_bytes | peak_panel_bytes | most_panels_held | seconds |
        panel_seconds | solve_u_seconds | update_seconds | swap_seconds;
  }
};

/// HPL's check of a solution: ||Ax − b||∞ / (ε (||A||∞ ||x||∞ + ||b||∞) n).
struct residual_norms {
  double r_inf = 0, a_inf = 0, x_inf = 0, b_inf = 0, scaled = 0;
};

/// solve() of a singular factorization, or before any.
class lu_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
struct state;
}

class matrix {
 public:
  /// Makes the blocks (n ≥ 1, 1 ≤ b). Call from a task; the handle is used on that task's PE.
  static roam::task<matrix> create(std::size_t n, options o = {});

  std::size_t n() const noexcept;
  int block() const noexcept;
  /// Blocks per side (n rounded up to a multiple of b, over b).
  int blocks() const noexcept;
  /// PE of block (i, j).
  std::uint32_t owner(int i, int j) const;

  /// HPL's matrix: entry (r, c) = random_entry(seed, r, c).
  roam::task<> fill_random(std::uint64_t seed);
  /// The whole matrix from the caller, column-major (a[r + c·n]); small n.
  roam::task<> set(std::vector<double> a);
  /// The whole matrix to the caller, column-major; after factor(), L (unit,
  /// below the diagonal) and U as LAPACK's dgetrf leaves them, except that
  /// the rows of each block column of L are in the order of its own step
  /// (later steps' exchanges are applied to the right of the panel only).
  roam::task<std::vector<double>> get();

  /// Factors in place; starts now. The future's value says whether a pivot
  /// was zero (then solve() refuses).
  roam::future<factor_stats> factor();
  /// Global row exchanged with row r at each r < n (after factor()).
  roam::task<std::vector<std::int64_t>> pivots();
  /// x with A x = b, A the matrix factor() factored. Throws lu_error if the
  /// factorization found a zero pivot or has not finished.
  roam::task<std::vector<double>> solve(std::vector<double> b);
  /// HPL's residual of x against b and fill_random(seed)'s matrix (made
  /// again where each block lives: the factored matrix is not used).
  roam::task<residual_norms> residual(std::uint64_t seed, const std::vector<double>& x, const std::vector<double>& b);

 private:
  explicit matrix(std::shared_ptr<detail::state> s) : state_(std::move(s)) {}
  std::shared_ptr<detail::state> state_;
};

/// Entry (r, c) of fill_random(seed)'s matrix: uniform in [-0.5, 0.5).
double random_entry(std::uint64_t seed, std::uint64_t r, std::uint64_t c) noexcept;
/// HPL's right-hand side for `seed`: n entries uniform in [-0.5, 0.5), a stream apart from the matrix's.
std::vector<double> random_vector(std::uint64_t seed, std::size_t n);

}  // namespace roam::lu
