#pragma once
// apps/amr's pieces (docs/design/amr.md): the settings, the scheme on a
// block's cells, the block (an element addressed by its quad-tree index)
// and the driver (a chare that runs segments and remeshes between them).
//
//   scheme.cpp  the upwind fluxes and step, a block's boundary and ghost cells, the serial run
//   block.cpp   a block's steps (ghosts and fluxes across levels), its wishes and its split or merge
//   mesh.cpp    placement along the curve, the mesh and blob checks
//   image.cpp   the picture of density and mesh
//   amr.cpp     the driver's run, options and main
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <roam/ft/checkpoint.hpp>
#include <roam/roam.hpp>

#include "quad_index.hpp"

namespace amr {

struct settings {
  std::uint32_t depth = 4, min_depth = 2, max_depth = 4;
  int cells = 16;
  int steps = 100;
  int remesh_every = 0;  // 0: a fixed mesh
  int order = 1;         // 1: first-order upwind; 2: MUSCL (minmod) in space, forward Euler in time
  double cfl = 0.4;
  int mass_every = 10;
  double refine_above = 0.05, coarsen_below = 0.01;  // largest density jump between neighbouring cells of a block
  bool check = false, check_mesh = false;
  bool curve_balance = true;  // after each remesh, equal numbers of blocks per PE along the curve
  int checkpoint_at = -1;     // a checkpoint after this step's segment (a multiple of remesh_every)
  std::string checkpoint_dir;
  int image_every = 0;        // a PNG of density and mesh at segment ends that are multiples of this, and the last
  std::string image_prefix = "amr";
  double u = 1.0, v = 0.5;  // the velocity
  void pup(roam::pup_er& p) {
    p | depth | min_depth | max_depth | cells | steps | remesh_every | order | cfl | mass_every | refine_above | coarsen_below | check |
        check_mesh | curve_balance | checkpoint_at | checkpoint_dir | image_every | image_prefix | u | v;
  }
  double cell_size(std::uint32_t d) const { return 1.0 / (static_cast<double>(1u << d) * cells); }
  // One time step for all: the finest cells' CFL.
  double dt() const { return cfl * cell_size(max_depth) / (std::abs(u) + std::abs(v)); }
};

// The seed's circular blob: density 1 inside radius 0.15 around (0.3, 0.3), 0.1 outside.
double initial_density(double x, double y);

// Faces: 0 east, 1 west, 2 north, 3 south; the face a neighbour sees us on.
inline constexpr int dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
inline constexpr int opposite[4] = {1, 0, 3, 2};
// Per face, the depth of the neighbours across it minus ours: -1, 0 or +1.
using relations = std::array<std::int32_t, 4>;
inline constexpr std::int32_t unheard = -1000;

// A block's place on the space-filling curve: its path at the deepest depth.
inline std::uint64_t curve_key(const quad_index& q) { return q.path << (2 * (quad_index::max_depth - q.depth)); }

// Which half of a face twice our size we are (lower or upper along it).
inline int half_along(const quad_index& q, int face) { return static_cast<int>(face < 2 ? (q.y() & 1u) : (q.x() & 1u)); }

// Upwind flux density through the face between cells a (west or south) and b.
inline double upwind_flux(double speed, double a, double b) { return speed > 0 ? speed * a : speed * b; }

// Two ghost layers around a block's n×n cells (the second-order stencil's);
// cell (i, j), 0 ≤ i, j < n, ghosts at -2, -1, n and n + 1, as an array
// position (row-major, y outer).
inline constexpr int ghosts = 2;
inline std::size_t cell(int n, int i, int j) {
  return static_cast<std::size_t>((j + ghosts) * (n + 2 * ghosts) + i + ghosts);
}
inline std::size_t cells_with_ghosts(int n) { return static_cast<std::size_t>((n + 2 * ghosts) * (n + 2 * ghosts)); }

// One step on a block's array (or the serial grid's),
// given the x-face fluxes fx[(n+1)·n] (face k of row j between array cells
// k and k+1) and y-face fluxes gy[n·(n+1)]: the same arithmetic for a block
// and for the serial grid.
void apply_fluxes(const std::vector<double>& in, std::vector<double>& out, int n, const std::vector<double>& fx,
                  const std::vector<double>& gy, double nu);
// Fluxes of every face from the cells and ghosts: first-order upwind, or
// (order 2) the upwind side's value extrapolated to the face with a
// minmod-limited slope (MUSCL).
void all_fluxes(const std::vector<double>& in, int n, double u, double v, int order, std::vector<double>& fx, std::vector<double>& gy);
// The flux of boundary face `f`, position `k` along it (0..n-1), as stored in fx/gy.
double& face_flux(std::vector<double>& fx, std::vector<double>& gy, int n, int f, int k);
// The k-th cell along face f in layer `layer` inside our boundary (0: on
// it), and the ghost cell `layer` beyond it, as array positions.
std::size_t boundary_cell(int n, int f, int k, int layer = 0);
std::size_t ghost_cell(int n, int f, int k, int layer = 0);
// The same scheme on one N×N grid with ghosts, periodic (the fixed mesh's check).
std::vector<double> serial_run(const settings& s);

struct driver;
using segment_stats = std::vector<double>;  // blocks, then blocks per depth 0..31

struct block : roam::element<block, quad_index> {
  // The initial mesh: every leaf at cfg.depth.
  explicit block(settings s) : cfg(s) {
    rel_.fill(0);
    const int n = cfg.cells;
    rho.assign(cells_with_ghosts(n), 0.0);
    const double h = cfg.cell_size(this_index().depth);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        rho[cell(n, i, j)] = initial_density((this_index().x() * n + i + 0.5) * h, (this_index().y() * n + j + 0.5) * h);
    reset_wishes();
  }
  // Made by a remesh: its neighbours' relations and cells (n·n, row-major).
  block(settings s, relations rel, std::vector<double> cells, int at_step) : cfg(s), rel_(rel), step(at_step) {
    const int n = cfg.cells;
    rho.assign(cells_with_ghosts(n), 0.0);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) rho[cell(n, i, j)] = cells[static_cast<std::size_t>(j * n + i)];
    reset_wishes();
  }
  explicit block(roam::migrating) {}
  void pup(roam::pup_er& p) {
    p | cfg | rel_ | rho | step | intent_ | decided_ | heard_ | parts_ | part_rel_ | parts_in_ | balanced_ | ghost | flux;
  }

  // (step, our face, half (-1: the whole face), ghost values: layer 0 then layer 1)
  roam::mailbox<int, int, int, std::vector<double>> ghost;
  roam::mailbox<int, int, int, std::vector<double>> flux;  // (step, our face, half, a finer neighbour's face fluxes)

  // Steps up to `until`; `remeshed_at` (steady clock, ns; 0 for none) is
  // when the remesh before began: the time to this block's first step is
  // its remeshing latency.
  roam::task<> run(roam::chare_proxy<driver> d, int until, std::int64_t remeshed_at);
  // A balancing step after a remesh (+balancer): blocks move by measured load.
  void balance(roam::callback<> done) {
    balanced_ = done;
    at_sync();
  }
  void resume_from_sync() { contribute(balanced_); }
  // Equal numbers of blocks per PE in curve order: to the PE whose range holds our place.
  void move_along_curve(std::vector<std::uint64_t> cuts) {
    const auto pe = static_cast<std::uint32_t>(std::upper_bound(cuts.begin(), cuts.end(), curve_key(this_index())) - cuts.begin());
    migrate_to(roam::pe_id{pe});
  }
  double mass() const;
  segment_stats stats() const {
    segment_stats s(33, 0.0);
    s[0] = 1;
    s[1 + this_index().depth] = 1;
    return s;
  }

  // ---- remeshing -----------------------------------------------------------------
  void decide();
  void intent(int face, int half, int wish);
  void apply();
  void gather(int quadrant, std::vector<double> cells, relations outer);
  // Depth, x, y and the cells, for an image.
  void snapshot(roam::callback<std::vector<std::vector<double>>> cb) {
    const quad_index q = this_index();
    const int n = cfg.cells;
    std::vector<double> out{static_cast<double>(q.depth), static_cast<double>(q.x()), static_cast<double>(q.y())};
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) out.push_back(rho[cell(n, i, j)]);
    contribute(std::move(out), roam::concat, cb);
  }
  void describe(roam::callback<std::vector<std::vector<double>>> cb) {
    const quad_index q = this_index();
    contribute(std::vector<double>{static_cast<double>(q.depth), static_cast<double>(q.x()), static_cast<double>(q.y()),
                                   static_cast<double>(rel_[0]), static_cast<double>(rel_[1]), static_cast<double>(rel_[2]),
                                   static_cast<double>(rel_[3])},
               roam::concat, cb);
  }

  settings cfg;
  relations rel_{};
  std::vector<double> rho, next, fx, gy;
  int step = 0;
  // Phase 1: our wish (a depth) and the highest each neighbour announced, per face and half.
  std::int32_t intent_ = 0;
  bool decided_ = false;
  std::array<std::array<std::int32_t, 2>, 4> heard_{};
  // Phase 2 on a quadrant-0 child: the four children's restricted cells and outer relations.
  std::vector<std::vector<double>> parts_;
  relations part_rel_{};
  int parts_in_ = 0;
  roam::callback<> balanced_;

 private:
  void reset_wishes() {
    for (auto& f : heard_) f.fill(unheard);
    decided_ = false;
  }
  void announce();
  void reconsider();
  // Faces toward our siblings (inside the parent), for quadrant q.
  static bool inner_face(unsigned q, int f) { return f == 0 ? (q & 1u) == 0 : f == 1 ? (q & 1u) == 1 : f == 2 ? (q & 2u) == 0 : (q & 2u) != 0; }
  // The new depth across face f (half h when two finer neighbours share it).
  std::int32_t across(int f, int h) const { return rel_[f] == 1 ? heard_[f][h] : heard_[f][0]; }
};

// Runs the simulation: makes the blocks, runs segments of R steps with a
// remesh between them, collects the masses and the checks.
struct driver : roam::chare<driver> {
  // After a restart (+restart DIR) run() starts again from its members.
  static constexpr auto restart_entry() { return &driver::run; }
  roam::mailbox<int, std::vector<double>> masses;               // (step, {mass})
  roam::mailbox<int, segment_stats> segments;                   // (last step, blocks per depth)
  roam::mailbox<int, std::vector<std::vector<double>>> fields;  // (0, each block's x, y and cells)
  roam::mailbox<int, std::vector<double>> latencies;            // (step, each block's remeshing latency, s)
  roam::mailbox<int, roam::checkpoint_result> saved;            // (step, the checkpoint's outcome)
  driver() = default;
  explicit driver(settings s) : s_(s) {}
  explicit driver(roam::migrating) {}
  void pup(roam::pup_er& p) {
    p | masses | segments | fields | latencies | saved | s_ | blocks_ | made_ | start_ | next_mass_ | m0_ | worst_ |
        remesh_seconds_ | cell_updates_ | remeshes_ | remeshed_at_ | latencies_ | mesh_error_ | asked_ | last_mass_;
  }
  roam::task<> run();

  // Where the run is (pupped: a restart picks up from here).
  settings s_;
  roam::array_proxy<block> blocks_;
  bool made_ = false, asked_ = false;
  int start_ = 0, next_mass_ = 0, remeshes_ = 0;
  double m0_ = -1, last_mass_ = 0, worst_ = 0, remesh_seconds_ = 0, cell_updates_ = 0;
  std::int64_t remeshed_at_ = 0;
  std::vector<double> latencies_;  // seconds, one per block and remesh
  std::string mesh_error_;
};

// Blocks in space-filling-curve order, cut into P equal ranges (mesh.cpp).
std::uint32_t curve_map(const quad_index& q, std::uint32_t pes);
// The leaves (depth, x, y, four relations each) tile the domain, each face
// meets leaves within one level, and each leaf's relations say so; empty if so.
std::string mesh_problem(const std::vector<std::vector<double>>& leaves);
// At step t the blob's edge lies in leaves of the deepest depth; empty if so.
std::string blob_edge_problem(const std::vector<std::vector<double>>& leaves, const settings& s, int t);
// "d3:4 d4:12": blocks per depth.
std::string levels(const segment_stats& s);
// Density and mesh as a size×size PNG (image.cpp); false with `error` if not written.
bool write_image(const std::string& path, const std::vector<std::vector<double>>& blocks, int cells, int size, std::string& error);

}  // namespace amr
