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
// max) delivered to a function on PE 0, which reassembles the grid and checks
// it against a serial Jacobi run for the same number of iterations.
//
// With --checkpoint-every C, the blocks pause after every C-th iteration
// (when the max reduction's result arrives); block [0,0] asks for a disk
// checkpoint into --checkpoint-dir DIR, and the checkpoint's callback, a
// broadcast of resume(), begins the next iteration. `jacobi2d +restart DIR`
// goes on from the newest checkpoint in DIR (or from DIR/ckpt-NNNNNNNN named
// directly), on any number of PEs: main does not run then, so everything the
// run needs after a restart is a readonly or a block's state, and the final
// report goes to a function rather than to a future in main.
//   jacobi2d [N=64] [BLOCKS_PER_SIDE=4] [MAX_ITERATIONS=500] [TOLERANCE=1e-4]
//            [--checkpoint-every C=0] [--checkpoint-dir DIR=jacobi2d-checkpoints] [+p N ...runtime options]
//   jacobi2d +restart DIR [+p N ...runtime options]
#include <array>
#include <cstdio>

#include <roam/ft/checkpoint.hpp>

#include "jacobi2d_common.hpp"

using namespace jacobi;

// Set by main before anything is sent; a restart restores them from the checkpoint.
roam::readonly<jacobi_params> params;
roam::readonly<checkpoint_params> checkpointing;

// The final report reduction's target, on PE 0: checks the grid and ends the run.
void finished(gathered result) { roam::exit(check("jacobi2d", *params, std::move(result))); }

struct block : roam::element<block, roam::index<2>> {
  block() : grid_(*params, this_index()[0], this_index()[1]) {}
  explicit block(roam::migrating) {}

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
    if (max_change < params->tol || iter_ >= params->max_iters)
      finish();
    else if (checkpointing->every > 0 && iter_ % checkpointing->every == 0)
      pause();
    else
      begin_iteration();
  }

  // Broadcast by the checkpoint's callback once it is written (or failed), and
  // again after a restart from it: the next iteration begins.
  void resume(roam::checkpoint_result r) {
    if (!paused_) roam::abort("jacobi2d: resume reached a block that is not waiting for a checkpoint");
    paused_ = false;
    if (is_first()) print_checkpoint(r);
    begin_iteration();
  }

  // Everything, so that a block goes on where it was after moving or a restart.
  void pup(roam::pup_er& p) {
    p | grid_ | pending_ | edges_sent_ | paused_ | iter_ | last_change_;
    // The time since start(), not the start: a steady clock's epoch belongs to
    // one machine and boot, and a restart should not count the time between runs.
    jacobi_clock::duration elapsed = jacobi_clock::now() - t0_;
    p | elapsed;
    if (p.is_unpacking()) t0_ = jacobi_clock::now() - elapsed;
  }

 private:
  struct ghost_set {
    std::array<std::vector<double>, 4> edge;
    int count = 0;
    void pup(roam::pup_er& p) { p | edge | count; }
  };

  bool is_first() { return this_index()[0] == 0 && this_index()[1] == 0; }

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

  // Every block stops here after the same iteration, so none sends the next
  // iteration's edges: once all have stopped nothing is in flight, which is
  // when the runtime takes the checkpoint that one block asks for.
  void pause() {
    paused_ = true;
    if (!is_first()) return;
    auto done = roam::callback<roam::checkpoint_result>::broadcast<&block::resume>(this_array());
    if (checkpointing->dir == "memory")  // in memory, a copy at the buddy: survives a failed process
      roam::checkpoint_in_memory(done);
    else
      roam::checkpoint(checkpointing->dir, done);
  }

  void print_checkpoint(const roam::checkpoint_result& r) {
    if (!r.ok)
      std::printf("jacobi2d: %s after iteration %d FAILED: %s\n", r.restarted ? "restart" : "checkpoint", iter_,
                  r.error.c_str());
    else if (r.restarted)
      std::printf("jacobi2d: %s from %s after iteration %d\n", r.recovered ? "recovered" : "restarted", r.path.c_str(), iter_);
    else
      std::printf("jacobi2d: checkpoint after iteration %d: %s (%llu objects, %llu bytes, %.1f ms)\n", iter_,
                  r.path.c_str(), static_cast<unsigned long long>(r.objects), static_cast<unsigned long long>(r.bytes),
                  r.seconds * 1e3);
    std::fflush(stdout);  // before the lines of other PEs and processes that follow it
  }

  void finish() {
    double seconds = std::chrono::duration<double>(jacobi_clock::now() - t0_).count();
    // To a function, not to a future in main: after a restart there is no main.
    contribute(grid_.report(iter_, last_change_, seconds), report_reducer,
               roam::callback<gathered>::function<&finished>(roam::pe_id{0}));
  }

  block_grid grid_;
  std::array<ghost_set, 2> pending_;  // ghosts of iteration k in slot k % 2
  bool edges_sent_ = false;           // this iteration's edges are out; computing may start
  bool paused_ = false;               // after iter_, waiting for a checkpoint's resume()
  std::int32_t iter_ = 0;             // iterations completed
  double last_change_ = 0;
  jacobi_clock::time_point t0_;
};

constexpr examples::usage_text usage{
    "jacobi2d",
    "[N in 1..8192] [BLOCKS_PER_SIDE in 1..min(N,1024)] [MAX_ITERATIONS in 1..1000000] [TOLERANCE >= 0] "
    "[--checkpoint-every C >= 0] [--checkpoint-dir DIR]\n"
    "       jacobi2d +restart DIR",
    "  N                   unknowns per side of the grid (default 64)\n"
    "  BLOCKS_PER_SIDE     the grid is split in B x B blocks, one array element each (default 4)\n"
    "  MAX_ITERATIONS      stop after this many iterations (default 500)...\n"
    "  TOLERANCE           ...or once no unknown changes by this much (default 1e-4)\n"
    "  --checkpoint-every C  a checkpoint after every C iterations (default 0: none)\n"
    "  --checkpoint-dir DIR  where checkpoints go (default jacobi2d-checkpoints); \"memory\": in memory, a copy\n"
    "                      at another process (roamrun --ft)\n"
    "  +restart DIR        go on from the newest checkpoint in DIR (or DIR/ckpt-NNNNNNNN), on any number of PEs\n",
    "jacobi2d 256 8 1000 1e-5 --checkpoint-every 100 +p4"};

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) {
    checkpoint_params c;
    std::optional<jacobi_params> p = parse_args(a, usage, &c);
    if (!p) return;  // the usage is printed and the program ends
    params = *p;
    checkpointing = c;
    roam::create_array<block>(roam::index<2>{p->blocks, p->blocks}).send<&block::start>();
  });
}
