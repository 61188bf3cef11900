// jacobi2d_tasks: the Jacobi relaxation of jacobi2d.cpp (the Laplace equation
// on an N x N grid of unknowns, split into B x B blocks, one array element per
// block; 1.0 above the top row, 0.0 on the other three sides), with the same
// arguments, output, serial check and result to the last bit, written the way
// Charm++'s jacobi3d-sdag is written with Structured Dagger: each block's whole
// life is ONE coroutine entry method, run(), a plain loop
//
//   for (iter = 0;;) {
//     send the four edges, tagged with iter;
//     take one ghost per neighbour for iter;     SDAG: when ghost[iter](int iter, int from, ...)
//     relax the interior, contribute the largest change to a max reduction;
//     take the reduction's result;               SDAG: when max_change(double)
//     ++iter; stop once the change is below the tolerance or after the maximum number of iterations;
//   }
//
// What a block waits for are mailbox members, not entry methods that set flags
// and call a try_compute(): neighbours send into `ghost`, the reduction
// broadcasts into `max_change`, and run() awaits each where the algorithm
// needs it. SDAG's reference number carries over as it is:
//   when ghost[iter](...)   <->   co_await ghost.receive(iter)
// so when a neighbour got the reduction's result first and has already sent
// iteration iter + 1's edge, that message simply waits in the mailbox until
// this block's loop asks for iteration iter + 1: no per-parity slots, no
// counters of ghosts received, no "edges sent" flag. The iteration count and
// the start time are locals of the coroutine, not members (jacobi3d-sdag keeps
// its counters as chare members).
// The reduction's results need no reference number: a block contributes to
// the next reduction only after taking this one's result.
//
// At the end every block contributes its interior, the iteration count, the
// last change and its elapsed time to one tuple reduction (concat, max, max,
// max) delivered to a future in main, which reassembles the grid and checks it
// against a serial Jacobi run for the same number of iterations.
//   jacobi2d_tasks [N=64] [BLOCKS_PER_SIDE=4] [MAX_ITERATIONS=500] [TOLERANCE=1e-4] [+p N ...runtime options]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <roam/roam.hpp>

namespace {

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
int first_of_block(int b, int n, int blocks) {
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

}  // namespace

struct block : roam::element<block, roam::index<2>> {
  // (iteration, which halo of THIS block it fills, values): a neighbour's edge.
  roam::mailbox<std::int32_t, side, std::vector<double>> ghost;
  // The max reduction's result, the same on every block: the largest change of the iteration just done.
  roam::mailbox<double> max_change;

  block(jacobi_params p, roam::promise<gathered> done) : p_(p), done_(done) {
    bi_ = this_index()[0];
    bj_ = this_index()[1];
    h_ = first_of_block(bi_ + 1, p_.n, p_.blocks) - first_of_block(bi_, p_.n, p_.blocks);
    w_ = first_of_block(bj_ + 1, p_.n, p_.blocks) - first_of_block(bj_, p_.n, p_.blocks);
    stride_ = w_ + 2;
    neighbours_ = (bi_ > 0) + (bi_ < p_.blocks - 1) + (bj_ > 0) + (bj_ < p_.blocks - 1);
    // Interior starts at 0; halos on the grid's edge hold the fixed boundary
    // values in both buffers, halos facing a neighbour are overwritten by ghosts.
    u_.assign(static_cast<std::size_t>((h_ + 2) * stride_), 0.0);
    for (int j = 0; j < w_ + 2; ++j) {
      at(u_, 0, j) = bi_ == 0 ? top_boundary : 0.0;
      if (bi_ == p_.blocks - 1) at(u_, h_ + 1, j) = other_boundary;
    }
    for (int i = 1; i <= h_; ++i) {
      if (bj_ == 0) at(u_, i, 0) = other_boundary;
      if (bj_ == p_.blocks - 1) at(u_, i, w_ + 1) = other_boundary;
    }
    next_ = u_;
  }

  // Broadcast by main: the block's whole life.
  roam::task<> run() {
    const auto t0 = jacobi_clock::now();
    std::int32_t iter = 0;  // iterations completed
    double change = 0;
    for (;;) {
      if (bi_ > 0) send_edge(bi_ - 1, bj_, iter, from_south, row(1));
      if (bi_ < p_.blocks - 1) send_edge(bi_ + 1, bj_, iter, from_north, row(h_));
      if (bj_ > 0) send_edge(bi_, bj_ - 1, iter, from_east, column(1));
      if (bj_ < p_.blocks - 1) send_edge(bi_, bj_ + 1, iter, from_west, column(w_));
      // Straight into the halo: this iteration's edges are already out, and
      // receive(iter) leaves a faster neighbour's next-iteration ghost queued.
      for (int k = 0; k < neighbours_; ++k) {
        auto [ref, from, edge] = co_await ghost.receive(iter);
        fill_halo(from, edge);
      }
      contribute(relax(), roam::max, roam::callback<double>::broadcast<&block::max_change>(this_array()));
      change = co_await max_change;
      ++iter;
      if (change < p_.tol || iter >= p_.max_iters) break;
    }
    // Every block stopped after the same reduction, so no ghost may be left over.
    if (!ghost.empty()) roam::abort("jacobi2d_tasks: a ghost outlived the last iteration");

    std::vector<double> interior;
    interior.reserve(static_cast<std::size_t>(h_ * w_));
    for (int i = 1; i <= h_; ++i)
      for (int j = 1; j <= w_; ++j) interior.push_back(at(u_, i, j));
    double seconds = std::chrono::duration<double>(jacobi_clock::now() - t0).count();
    contribute(block_report(std::move(interior), iter, change, seconds), report_reducer,
               roam::callback<gathered>::to_future(done_));
  }

 private:
  double& at(std::vector<double>& v, int i, int j) {
    return v[static_cast<std::size_t>(i * stride_ + j)];
  }

  void send_edge(int bi, int bj, std::int32_t iter, side from, std::vector<double> edge) {
    this_array()[{bi, bj}].send<&block::ghost>(iter, from, std::move(edge));
  }
  std::vector<double> row(int i) {
    return {u_.begin() + i * stride_ + 1, u_.begin() + i * stride_ + 1 + w_};
  }
  std::vector<double> column(int j) {
    std::vector<double> c(static_cast<std::size_t>(h_));
    for (int i = 1; i <= h_; ++i) c[static_cast<std::size_t>(i - 1)] = at(u_, i, j);
    return c;
  }

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

  jacobi_params p_;
  roam::promise<gathered> done_;
  int bi_ = 0, bj_ = 0;  // block coordinates
  int h_ = 0, w_ = 0;    // rows and columns of the grid this block owns
  int stride_ = 0;       // w_ + 2: a row of the buffers, halo included
  int neighbours_ = 0;
  std::vector<double> u_, next_;  // (h_ + 2) x (w_ + 2), halo included
};

namespace {

// Serial reference: the same grid, boundary and stencil for exactly `iters`
// iterations. Returns the grid (n x n, row-major) and fills the max change of
// each iteration.
std::vector<double> serial_jacobi(int n, int iters, std::vector<double>& changes) {
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

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    jacobi_params p;
    const long long n = a.int_or(1, 64);
    const long long b = a.int_or(2, 4);
    const long long iters = a.int_or(3, 500);
    double tol = 1e-4;
    bool tol_ok = true;
    if (a.size() > 4) {
      try {
        std::size_t used = 0;
        tol = std::stod(a[4], &used);
        tol_ok = used == a[4].size();
      } catch (const std::exception&) {
        tol_ok = false;
      }
    }
    if (n < 1 || n > 8192 || b < 1 || b > n || b > 1024 || iters < 1 || iters > 1'000'000 || !tol_ok ||
        !(tol >= 0)) {
      std::fprintf(stderr,
                   "usage: jacobi2d_tasks [N in 1..8192] [BLOCKS_PER_SIDE in 1..min(N,1024)] "
                   "[MAX_ITERATIONS in 1..1000000] [TOLERANCE >= 0] [+p N]\n");
      roam::exit(2);
      co_return;
    }
    p.n = static_cast<int>(n);
    p.blocks = static_cast<int>(b);
    p.max_iters = static_cast<int>(iters);
    p.tol = tol;

    std::printf("jacobi2d_tasks: %dx%d grid in %dx%d blocks (about %dx%d each) on %u pes, tolerance %g, at most %d "
                "iterations\n",
                p.n, p.n, p.blocks, p.blocks, p.n / p.blocks, p.n / p.blocks, roam::num_pes(), p.tol, p.max_iters);

    auto [f, done] = roam::make_future<gathered>();
    auto grid = roam::create_array<block>({p.blocks, p.blocks}, p, done);
    grid.send<&block::run>();
    auto [blocks, iterations, change, seconds] = co_await f;

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
    std::printf("jacobi2d_tasks: %d iterations, final max change %.6e, %.4f ms/iteration (%.3f s)\n", iterations,
                change, ms_per_iter, seconds);
    const bool ok = shape_ok && stop_ok && max_diff <= 1e-12 && std::abs(serial_change - change) <= 1e-12;
    if (ok) {
      std::printf("jacobi2d_tasks: OK (max |parallel - serial| = %.3e after %d iterations)\n", max_diff, iterations);
      roam::exit(0);
    } else {
      std::printf("jacobi2d_tasks: FAILED (%s; max |parallel - serial| = %.3e, serial change %.6e, "
                  "parallel change %.6e)\n",
                  !shape_ok ? "gathered blocks have the wrong shape"
                  : !stop_ok ? "the serial run would have stopped at a different iteration"
                             : "grids differ",
                  max_diff, serial_change, change);
      roam::exit(1);
    }
  });
}
