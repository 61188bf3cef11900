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
  block(jacobi_params p, roam::promise<gathered> done)
      : p_(p), done_(done), grid_(p, this_index()[0], this_index()[1]) {}

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

  void begin_iteration() {
    grid_.send_edges([this](int bi, int bj, side from, std::vector<double> edge) {
      this_array()[{bi, bj}].send<&block::ghost>(iter_, static_cast<std::int32_t>(from), std::move(edge));
    });
    edges_sent_ = true;
    try_compute();  // the ghosts may all be here already
  }

  void try_compute() {
    ghost_set& g = pending_[static_cast<std::size_t>(iter_ & 1)];
    if (!edges_sent_ || g.count < grid_.neighbours()) return;
    edges_sent_ = false;
    // Ghosts into the halo of the current buffer.
    for (int k = 0; k < 4; ++k) {
      const auto& edge = g.edge[static_cast<std::size_t>(k)];
      if (!edge.empty()) grid_.fill_halo(static_cast<side>(k), edge);
    }
    g = ghost_set{};
    contribute(grid_.relax(), roam::max, roam::callback<double>::broadcast<&block::check>(this_array()));
  }

  void finish() {
    double seconds = std::chrono::duration<double>(jacobi_clock::now() - t0_).count();
    contribute(grid_.report(iter_, last_change_, seconds), report_reducer, roam::callback<gathered>::to_future(done_));
  }

  jacobi_params p_;
  roam::promise<gathered> done_;
  block_grid grid_;
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
