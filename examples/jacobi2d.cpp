// jacobi2d: Jacobi relaxation for the Laplace equation on an N x N grid of
// unknowns, split into B x B blocks, one array element per block. The grid's
// boundary is fixed: 1.0 above the top row, 0.0 on the other three sides.
//
// Every iteration each block sends its four edges to its neighbours as ghost
// rows/columns tagged with the iteration number, waits for the neighbours'
// edges, updates its interior and contributes its largest change to a max
// reduction. The reduction's result is broadcast back to the array, and every
// block decides the same way whether to go on: stop once the change is below
// the tolerance or after the maximum number of iterations. A neighbour that
// got the broadcast earlier may already send the NEXT iteration's edges, so
// ghosts are buffered per iteration (two slots, by parity, are enough).
//
// At the end every block contributes its interior, the iteration count, the
// last change and its elapsed time to one tuple reduction (concat, max, max,
// max) delivered to a future in main, which reassembles the grid and checks it
// against a serial Jacobi run for the same number of iterations.
//   jacobi2d [N=64] [BLOCKS_PER_SIDE=4] [MAX_ITERATIONS=500] [TOLERANCE=1e-4] [+p N ...runtime options]
#include <array>

#include "jacobi2d_common.hpp"

using namespace jacobi;

struct block : roam::element<block, roam::index<2>> {
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

  // Broadcast by main: iteration 0 begins.
  void start() {
    t0_ = jacobi_clock::now();
    begin_iteration();
  }

  // A neighbour's edge for iteration `iter`: this one, or the next when the neighbour is ahead.
  void ghost(std::int32_t iter, std::int32_t from, std::vector<double> edge) {
    if (iter != iter_ && iter != iter_ + 1)
      roam::abort("jacobi2d: ghost for iteration " + std::to_string(iter) + " reached a block in iteration " +
                  std::to_string(iter_));
    ghost_set& g = pending_[static_cast<std::size_t>(iter & 1)];
    auto& slot = g.edge[static_cast<std::size_t>(from)];
    if (!slot.empty()) roam::abort("jacobi2d: two ghosts for one side in one iteration");
    slot = std::move(edge);
    ++g.count;
    try_compute();
  }

  // Broadcast by the max reduction: the largest change of the iteration just done, the same on every block.
  void check(double max_change) {
    ++iter_;
    last_change_ = max_change;
    if (max_change < p_.tol || iter_ >= p_.max_iters) finish();
    else begin_iteration();
  }

 private:
  struct ghost_set {
    std::array<std::vector<double>, 4> edge;
    int count = 0;
  };

  double& at(std::vector<double>& v, int i, int j) {
    return v[static_cast<std::size_t>(i * stride_ + j)];
  }

  void send_edge(int bi, int bj, side from, std::vector<double> edge) {
    this_array()[{bi, bj}].send<&block::ghost>(iter_, static_cast<std::int32_t>(from), std::move(edge));
  }

  void begin_iteration() {
    if (bi_ > 0) send_edge(bi_ - 1, bj_, from_south, row(1));
    if (bi_ < p_.blocks - 1) send_edge(bi_ + 1, bj_, from_north, row(h_));
    if (bj_ > 0) send_edge(bi_, bj_ - 1, from_east, column(1));
    if (bj_ < p_.blocks - 1) send_edge(bi_, bj_ + 1, from_west, column(w_));
    edges_sent_ = true;
    try_compute();  // the ghosts may all be here already
  }

  std::vector<double> row(int i) {
    return {u_.begin() + i * stride_ + 1, u_.begin() + i * stride_ + 1 + w_};
  }
  std::vector<double> column(int j) {
    std::vector<double> c(static_cast<std::size_t>(h_));
    for (int i = 1; i <= h_; ++i) c[static_cast<std::size_t>(i - 1)] = at(u_, i, j);
    return c;
  }

  void try_compute() {
    ghost_set& g = pending_[static_cast<std::size_t>(iter_ & 1)];
    if (!edges_sent_ || g.count < neighbours_) return;
    edges_sent_ = false;
    // Ghosts into the halo of the current buffer.
    for (int j = 1; j <= w_; ++j) {
      if (!g.edge[from_north].empty()) at(u_, 0, j) = g.edge[from_north][static_cast<std::size_t>(j - 1)];
      if (!g.edge[from_south].empty()) at(u_, h_ + 1, j) = g.edge[from_south][static_cast<std::size_t>(j - 1)];
    }
    for (int i = 1; i <= h_; ++i) {
      if (!g.edge[from_west].empty()) at(u_, i, 0) = g.edge[from_west][static_cast<std::size_t>(i - 1)];
      if (!g.edge[from_east].empty()) at(u_, i, w_ + 1) = g.edge[from_east][static_cast<std::size_t>(i - 1)];
    }
    g = ghost_set{};

    double change = 0;
    for (int i = 1; i <= h_; ++i) {
      for (int j = 1; j <= w_; ++j) {
        double v = stencil(at(u_, i - 1, j), at(u_, i + 1, j), at(u_, i, j - 1), at(u_, i, j + 1));
        change = std::max(change, std::abs(v - at(u_, i, j)));
        at(next_, i, j) = v;
      }
    }
    std::swap(u_, next_);
    contribute(change, roam::max, roam::callback<double>::broadcast<&block::check>(this_array()));
  }

  void finish() {
    std::vector<double> interior;
    interior.reserve(static_cast<std::size_t>(h_ * w_));
    for (int i = 1; i <= h_; ++i)
      for (int j = 1; j <= w_; ++j) interior.push_back(at(u_, i, j));
    double seconds = std::chrono::duration<double>(jacobi_clock::now() - t0_).count();
    contribute(block_report(std::move(interior), iter_, last_change_, seconds), report_reducer,
               roam::callback<gathered>::to_future(done_));
  }

  jacobi_params p_;
  roam::promise<gathered> done_;
  int bi_ = 0, bj_ = 0;  // block coordinates
  int h_ = 0, w_ = 0;    // rows and columns of the grid this block owns
  int stride_ = 0;       // w_ + 2: a row of the buffers, halo included
  int neighbours_ = 0;
  std::vector<double> u_, next_;  // (h_ + 2) x (w_ + 2), halo included
  std::array<ghost_set, 2> pending_;  // ghosts of iteration k in slot k % 2
  bool edges_sent_ = false;           // this iteration's edges are out; computing may start
  std::int32_t iter_ = 0;             // iterations completed
  double last_change_ = 0;
  jacobi_clock::time_point t0_;
};

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    std::optional<jacobi_params> p = parse_args(a, "jacobi2d");
    if (!p) {
      roam::exit(2);
      co_return;
    }
    auto [f, done] = roam::make_future<gathered>();
    auto grid = roam::create_array<block>({p->blocks, p->blocks}, *p, done);
    grid.send<&block::start>();
    roam::exit(check("jacobi2d", *p, co_await f));
  });
}
