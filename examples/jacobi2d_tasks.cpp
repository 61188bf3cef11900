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

  block(jacobi_params p, roam::promise<gathered> done)
      : p_(p), done_(done), grid_(p, this_index()[0], this_index()[1]) {}

  // Broadcast by main: the block's whole life.
  roam::task<> run() {
    const auto t0 = jacobi_clock::now();
    std::int32_t iter = 0;  // iterations completed
    double change = 0;
    for (;;) {
      grid_.send_edges([&](int bi, int bj, side from, std::vector<double> edge) {
        this_array()[{bi, bj}].send<&block::ghost>(iter, from, std::move(edge));
      });
      // Straight into the halo: this iteration's edges are already out, and
      // receive(iter) leaves a faster neighbour's next-iteration ghost queued.
      for (int k = 0; k < grid_.neighbours(); ++k) {
        auto [ref, from, edge] = co_await ghost.receive(iter);
        grid_.fill_halo(from, edge);
      }
      contribute(grid_.relax(), roam::max, roam::callback<double>::broadcast<&block::max_change>(this_array()));
      change = co_await max_change;
      ++iter;
      if (change < p_.tol || iter >= p_.max_iters) break;
    }
    // Every block stopped after the same reduction, so no ghost may be left over.
    if (!ghost.empty()) roam::abort("jacobi2d_tasks: a ghost outlived the last iteration");

    double seconds = std::chrono::duration<double>(jacobi_clock::now() - t0).count();
    contribute(grid_.report(iter, change, seconds), report_reducer, roam::callback<gathered>::to_future(done_));
  }

 private:
  jacobi_params p_;
  roam::promise<gathered> done_;
  block_grid grid_;
};

constexpr examples::usage_text usage{
    "jacobi2d_tasks",
    "[N in 1..8192] [BLOCKS_PER_SIDE in 1..min(N,1024)] [MAX_ITERATIONS in 1..1000000] [TOLERANCE >= 0]",
    "  N                 unknowns per side of the grid (default 64)\n"
    "  BLOCKS_PER_SIDE   the grid is split in B x B blocks, one array element each (default 4)\n"
    "  MAX_ITERATIONS    stop after this many iterations (default 500)...\n"
    "  TOLERANCE         ...or once no unknown changes by this much (default 1e-4)\n",
    "jacobi2d_tasks 256 8 1000 1e-5 +p4"};

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    std::optional<jacobi_params> p = parse_args(a, usage);
    if (!p) co_return;  // the usage is printed and the program ends
    auto [f, done] = roam::make_future<gathered>();
    auto grid = roam::create_array<block>({p->blocks, p->blocks}, *p, done);
    grid.send<&block::run>();
    roam::exit(check("jacobi2d_tasks", *p, co_await f));
  });
}
