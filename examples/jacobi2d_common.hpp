#pragma once
// What jacobi2d.cpp (message handlers) and jacobi2d_tasks.cpp (one coroutine
// task per block) share: the problem, its parameters and arguments, the
// report each block contributes, a block's part of the grid and its
// computation (block_grid), and the serial reference run that checks the
// gathered grid to the last bit. Only the blocks' control flow differs.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <roam/roam.hpp>

#include "command_line.hpp"

namespace jacobi {

using jacobi_clock = std::chrono::steady_clock;

constexpr double top_boundary = 1.0;    // the row above the grid
constexpr double other_boundary = 0.0;  // left, right and below

struct jacobi_params {
  int n = 64;           // unknowns per side
  int blocks = 4;       // blocks per side
  int max_iters = 500;  // stop after this many iterations...
  double tol = 1e-4;    // ...or once the largest change is below this
  template <class P>
  void pup(P& p) {
    p | n | blocks | max_iters | tol;
  }
};

// First row (or column) of block b of `blocks` over `n` unknowns; block b spans [first(b), first(b + 1)).
inline int first_of_block(int b, int n, int blocks) {
  return static_cast<int>(static_cast<long long>(b) * n / blocks);
}

// The same stencil, in the same order of operations, as the blocks use: the
// parallel result must match the serial one to the last bit.
inline double stencil(double up, double down, double left, double right) { return 0.25 * (up + down + left + right); }

// What each block contributes at the end, and what main receives:
//   (interior, iterations, last max change, elapsed seconds), reduced by (concat, max, max, max).
using block_report = std::tuple<std::vector<double>, std::int32_t, double, double>;
constexpr auto report_reducer = roam::tuple_of(roam::concat, roam::max, roam::max, roam::max);
// What that reduction delivers: (vector of every block's interior, in block order, max, max, max).
using gathered = std::remove_cvref_t<decltype(report_reducer)>::result_t<block_report>;

// Which halo of the RECEIVING block a ghost edge fills.
enum side : std::int32_t { from_north = 0, from_south = 1, from_west = 2, from_east = 3 };

// One block's part of the grid with its halo, and what a block does with it:
// both versions compute the same way and differ only in how a block waits for
// its neighbours' edges.
class block_grid {
 public:
  block_grid() = default;  // to unpack into (a migrating or restarted block)
  block_grid(const jacobi_params& p, int bi, int bj)
      : blocks_(p.blocks),
        bi_(bi),
        bj_(bj),
        h_(first_of_block(bi + 1, p.n, p.blocks) - first_of_block(bi, p.n, p.blocks)),
        w_(first_of_block(bj + 1, p.n, p.blocks) - first_of_block(bj, p.n, p.blocks)),
        stride_(w_ + 2) {
    // Interior starts at 0; halos on the grid's edge hold the fixed boundary
    // values in both buffers, halos facing a neighbour are overwritten by ghosts.
    u_.assign(static_cast<std::size_t>((h_ + 2) * stride_), 0.0);
    for (int j = 0; j < w_ + 2; ++j) {
      at(u_, 0, j) = bi_ == 0 ? top_boundary : 0.0;
      if (bi_ == blocks_ - 1) at(u_, h_ + 1, j) = other_boundary;
    }
    for (int i = 1; i <= h_; ++i) {
      if (bj_ == 0) at(u_, i, 0) = other_boundary;
      if (bj_ == blocks_ - 1) at(u_, i, w_ + 1) = other_boundary;
    }
    next_ = u_;
  }

  int neighbours() const { return (bi_ > 0) + (bi_ < blocks_ - 1) + (bj_ > 0) + (bj_ < blocks_ - 1); }

  // Calls send(bi, bj, side, edge) for each neighbour: the edge of this block
  // it needs, and which of its halos that fills.
  template <class Send>
  void send_edges(Send send) {
    if (bi_ > 0) send(bi_ - 1, bj_, from_south, row(1));
    if (bi_ < blocks_ - 1) send(bi_ + 1, bj_, from_north, row(h_));
    if (bj_ > 0) send(bi_, bj_ - 1, from_east, column(1));
    if (bj_ < blocks_ - 1) send(bi_, bj_ + 1, from_west, column(w_));
  }

  // A neighbour's edge into this block's halo on side `from`.
  void fill_halo(side from, const std::vector<double>& edge) {
    switch (from) {
      case from_north: std::copy(edge.begin(), edge.end(), &at(u_, 0, 1)); break;
      case from_south: std::copy(edge.begin(), edge.end(), &at(u_, h_ + 1, 1)); break;
      case from_west:
        for (int i = 1; i <= h_; ++i) at(u_, i, 0) = edge[static_cast<std::size_t>(i - 1)];
        break;
      case from_east:
        for (int i = 1; i <= h_; ++i) at(u_, i, w_ + 1) = edge[static_cast<std::size_t>(i - 1)];
        break;
    }
  }

  // One sweep over the interior; returns the largest change.
  double relax() {
    double change = 0;
    for (int i = 1; i <= h_; ++i) {
      for (int j = 1; j <= w_; ++j) {
        double v = stencil(at(u_, i - 1, j), at(u_, i + 1, j), at(u_, i, j - 1), at(u_, i, j + 1));
        change = std::max(change, std::abs(v - at(u_, i, j)));
        at(next_, i, j) = v;
      }
    }
    std::swap(u_, next_);
    return change;
  }

  // The final report's share: the interior, row by row.
  block_report report(std::int32_t iterations, double last_change, double seconds) {
    std::vector<double> interior;
    interior.reserve(static_cast<std::size_t>(h_ * w_));
    for (int i = 1; i <= h_; ++i)
      for (int j = 1; j <= w_; ++j) interior.push_back(at(u_, i, j));
    return block_report(std::move(interior), iterations, last_change, seconds);
  }

  // Both buffers: next_'s halos hold boundary values too, which the swap in relax() brings into u_.
  void pup(roam::pup_er& p) { p | blocks_ | bi_ | bj_ | h_ | w_ | stride_ | u_ | next_; }

 private:
  double& at(std::vector<double>& v, int i, int j) { return v[static_cast<std::size_t>(i * stride_ + j)]; }
  std::vector<double> row(int i) { return {u_.begin() + i * stride_ + 1, u_.begin() + i * stride_ + 1 + w_}; }
  std::vector<double> column(int j) {
    std::vector<double> c(static_cast<std::size_t>(h_));
    for (int i = 1; i <= h_; ++i) c[static_cast<std::size_t>(i - 1)] = at(u_, i, j);
    return c;
  }

  int blocks_ = 0;
  int bi_ = 0, bj_ = 0;  // block coordinates
  int h_ = 0, w_ = 0;    // rows and columns of the grid this block owns
  int stride_ = 0;       // w_ + 2: a row of the buffers, halo included
  std::vector<double> u_, next_;  // (h_ + 2) x (w_ + 2), halo included
};

// Serial reference: the same grid, boundary and stencil for exactly `iters`
// iterations. Returns the grid (n x n, row-major) and fills the max change of
// each iteration.
// each iteration.
inline std::vector<double> serial_jacobi(int n, int iters, std::vector<double>& changes) {
  const int s = n + 2;
  std::vector<double> u(static_cast<std::size_t>(s * s), 0.0);
  for (int j = 0; j < s; ++j) u[static_cast<std::size_t>(j)] = top_boundary;
  for (int i = 1; i < s; ++i) {
    u[static_cast<std::size_t>(i * s)] = other_boundary;
    u[static_cast<std::size_t>(i * s + s - 1)] = other_boundary;
  }
  for (int j = 0; j < s; ++j) u[static_cast<std::size_t>((s - 1) * s + j)] = other_boundary;
  std::vector<double> next = u;
  auto at = [s](std::vector<double>& v, int i, int j) -> double& { return v[static_cast<std::size_t>(i * s + j)]; };
  changes.clear();
  for (int k = 0; k < iters; ++k) {
    double change = 0;
    for (int i = 1; i <= n; ++i) {
      for (int j = 1; j <= n; ++j) {
        double v = stencil(at(u, i - 1, j), at(u, i + 1, j), at(u, i, j - 1), at(u, i, j + 1));
        change = std::max(change, std::abs(v - at(u, i, j)));
        at(next, i, j) = v;
      }
    }
    std::swap(u, next);
    changes.push_back(change);
  }
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(n * n));
  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j) out.push_back(at(u, i, j));
  return out;
}


// Disk checkpoints (jacobi2d only): --checkpoint-every C --checkpoint-dir DIR.
struct checkpoint_params {
  int every = 0;  // a checkpoint after every this many iterations (0: never)
  std::string dir = "jacobi2d-checkpoints";
  void pup(roam::pup_er& p) { p | every | dir; }
};

// The command line (`usage` also names the program in messages): the parameters, after printing what will run, or nothing after
// printing the usage (and roam::exit: 0 for --help, 2 for a bad argument).
// With `checkpoints`, the program also takes the checkpoint options, anywhere
// among the positional arguments.
inline std::optional<jacobi_params> parse_args(const roam::args& a, const examples::usage_text& usage,
                                               checkpoint_params* checkpoints = nullptr) {
  std::vector<std::string> options;
  if (checkpoints) options = {"--checkpoint-every", "--checkpoint-dir"};
  std::optional<jacobi_params> parsed =
      examples::read_command_line(a, usage, 4, options, [&](const examples::command_line& c) {
        if (checkpoints) {
          if (const std::string* every = c.option("--checkpoint-every"))
            checkpoints->every = examples::command_line::whole_number("--checkpoint-every", *every, 0, 1'000'000);
          if (const std::string* dir = c.option("--checkpoint-dir")) checkpoints->dir = *dir;
          if (checkpoints->dir.empty()) throw examples::bad_argument("--checkpoint-dir needs a directory");
        }
        jacobi_params p;
        p.n = c.whole(1, "N", 64, 1, 8192);
        p.blocks = c.whole(2, "BLOCKS_PER_SIDE", 4, 1, std::min(p.n, 1024));
        p.max_iters = c.whole(3, "MAX_ITERATIONS", 500, 1, 1'000'000);
        p.tol = c.real(4, "TOLERANCE", 1e-4, 0, HUGE_VAL);
        return p;
      });
  if (!parsed) return std::nullopt;
  const jacobi_params& p = *parsed;
  const char* name = usage.program;
  std::printf("%s: %dx%d grid in %dx%d blocks (about %dx%d each) on %u pes, tolerance %g, at most %d "
              "iterations\n",
              name, p.n, p.n, p.blocks, p.blocks, p.n / p.blocks, p.n / p.blocks, roam::num_pes(), p.tol, p.max_iters);
  return p;
}

// Reassembles the gathered blocks, compares them with the serial run for the
// same number of iterations (and when it would have stopped), prints the
// outcome; returns the exit status.
inline int check(const char* name, const jacobi_params& p, gathered result) {
  auto& [blocks, iterations, change, seconds] = result;
  // Reassemble the grid: concat orders the blocks row-major by block index.
  std::vector<double> parallel(static_cast<std::size_t>(p.n) * static_cast<std::size_t>(p.n), 0.0);
  bool shape_ok = blocks.size() == static_cast<std::size_t>(p.blocks) * static_cast<std::size_t>(p.blocks);
  for (int bi = 0; shape_ok && bi < p.blocks; ++bi) {
    for (int bj = 0; shape_ok && bj < p.blocks; ++bj) {
      const auto& blk = blocks[static_cast<std::size_t>(bi * p.blocks + bj)];
      int r0 = first_of_block(bi, p.n, p.blocks), r1 = first_of_block(bi + 1, p.n, p.blocks);
      int c0 = first_of_block(bj, p.n, p.blocks), c1 = first_of_block(bj + 1, p.n, p.blocks);
      int w = c1 - c0;
      if (blk.size() != static_cast<std::size_t>((r1 - r0) * w)) {
        shape_ok = false;
        break;
      }
      for (int i = r0; i < r1; ++i)
        for (int j = c0; j < c1; ++j)
          parallel[static_cast<std::size_t>(i * p.n + j)] = blk[static_cast<std::size_t>((i - r0) * w + (j - c0))];
    }
  }

  // The serial run, for the same number of iterations.
  std::vector<double> changes;
  std::vector<double> serial = serial_jacobi(p.n, iterations, changes);
  double max_diff = 0;
  for (std::size_t k = 0; k < serial.size(); ++k) max_diff = std::max(max_diff, std::abs(serial[k] - parallel[k]));
  const double serial_change = changes.empty() ? 0.0 : changes.back();
  // The serial run must also agree on WHEN to stop: not before `iterations`, and at it.
  bool stop_ok = iterations >= 1 && iterations <= p.max_iters;
  for (std::size_t k = 0; stop_ok && k + 1 < changes.size(); ++k) stop_ok = changes[k] >= p.tol;
  stop_ok = stop_ok && (iterations == p.max_iters || serial_change < p.tol);

  const double ms_per_iter = seconds * 1e3 / std::max(iterations, 1);
  std::printf("%s: %d iterations, final max change %.6e, %.4f ms/iteration (%.3f s)\n", name, iterations, change,
              ms_per_iter, seconds);
  const bool ok = shape_ok && stop_ok && max_diff <= 1e-12 && std::abs(serial_change - change) <= 1e-12;
  if (ok) {
    std::printf("%s: OK (max |parallel - serial| = %.3e after %d iterations)\n", name, max_diff, iterations);
    return 0;
  } else {
    std::printf("%s: FAILED (%s; max |parallel - serial| = %.3e, serial change %.6e, parallel change %.6e)\n",
                name, !shape_ok ? "gathered blocks have the wrong shape"
                : !stop_ok ? "the serial run would have stopped at a different iteration"
                           : "grids differ",
                max_diff, serial_change, change);
    return 1;
  }
}

}  // namespace jacobi
