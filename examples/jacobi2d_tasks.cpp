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
#include "jacobi2d_common.hpp"

using namespace jacobi;

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

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    std::optional<jacobi_params> p = parse_args(a, "jacobi2d_tasks");
    if (!p) {
      roam::exit(2);
      co_return;
    }
    auto [f, done] = roam::make_future<gathered>();
    auto grid = roam::create_array<block>({p->blocks, p->blocks}, *p, done);
    grid.send<&block::run>();
    roam::exit(check("jacobi2d_tasks", *p, co_await f));
  });
}
