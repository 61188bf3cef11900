// amr: 2-D advection of a density blob by a constant velocity, first-order
// upwind, on the leaves of a quad-tree of blocks addressed by bit-vector
// indices (quad_index.hpp), elements of a sparse array (docs/design/amr.md).
// Every R steps the mesh adapts: each leaf wishes to refine or coarsen by
// its density jumps, neighbours raise their wishes until no two face
// neighbours would be more than one level apart (quiescence ends it), then
// leaves split into four or four siblings merge into their parent. Mass is
// conserved exactly: the fluxes on a face between levels are the finer
// side's. With --check (no remeshing) the field is compared with a serial
// run of the same scheme; --check-mesh checks the tiling and 2:1 balance
// after every remesh.
//
//   amr [--depth D] [--min-depth A] [--max-depth B] [--cells M] [--steps S] [--remesh-every R]
//       [--cfl C] [--mass-every K] [--check] [--check-mesh]
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <roam/ft/checkpoint.hpp>
#include <roam/roam.hpp>

#include "png.hpp"
#include "quad_index.hpp"

namespace amr {
namespace {

struct settings {
  std::uint32_t depth = 4, min_depth = 2, max_depth = 4;
  int cells = 16;
  int steps = 100;
  int remesh_every = 0;  // 0: a fixed mesh
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
    p | depth | min_depth | max_depth | cells | steps | remesh_every | cfl | mass_every | refine_above | coarsen_below | check |
        check_mesh | curve_balance | checkpoint_at | checkpoint_dir | image_every | image_prefix | u | v;
  }
  double cell_size(std::uint32_t d) const { return 1.0 / (static_cast<double>(1u << d) * cells); }
  // One time step for all: the finest cells' CFL.
  double dt() const { return cfl * cell_size(max_depth) / (std::abs(u) + std::abs(v)); }
};

// The seed's circular blob: density 1 inside radius 0.15 around (0.3, 0.3), 0.1 outside.
double initial_density(double x, double y) {
  const double dx = x - 0.3, dy = y - 0.3;
  return dx * dx + dy * dy < 0.15 * 0.15 ? 1.0 : 0.1;
}

// Faces: 0 east, 1 west, 2 north, 3 south; the face a neighbour sees us on.
constexpr int dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
constexpr int opposite[4] = {1, 0, 3, 2};
// Per face, the depth of the neighbours across it minus ours: -1, 0 or +1.
using relations = std::array<std::int32_t, 4>;
constexpr std::int32_t unheard = -1000;

// A block's place on the space-filling curve: its path at the deepest depth.
std::uint64_t curve_key(const quad_index& q) { return q.path << (2 * (quad_index::max_depth - q.depth)); }

// Which half of a face twice our size we are (lower or upper along it).
int half_along(const quad_index& q, int face) { return static_cast<int>(face < 2 ? (q.y() & 1u) : (q.x() & 1u)); }

// Upwind flux density through the face between cells a (west or south) and b.
double upwind_flux(double speed, double a, double b) { return speed > 0 ? speed * a : speed * b; }

// One step on an (n+2)×(n+2) array with a ghost ring (row-major, y outer),
// given the x-face fluxes fx[(n+1)·n] (face k of row j between array cells
// k and k+1) and y-face fluxes gy[n·(n+1)]: the same arithmetic for a block
// and for the serial grid.
void apply_fluxes(const std::vector<double>& in, std::vector<double>& out, int n, const std::vector<double>& fx,
                  const std::vector<double>& gy, double nu) {
  const int w = n + 2;
  for (int j = 1; j <= n; ++j)
    for (int i = 1; i <= n; ++i) {
      const double fe = fx[static_cast<std::size_t>((j - 1) * (n + 1) + i)], fw = fx[static_cast<std::size_t>((j - 1) * (n + 1) + i - 1)];
      const double gn = gy[static_cast<std::size_t>(j * n + i - 1)], gs = gy[static_cast<std::size_t>((j - 1) * n + i - 1)];
      out[static_cast<std::size_t>(j * w + i)] = in[static_cast<std::size_t>(j * w + i)] - nu * ((fe - fw) + (gn - gs));
    }
}
// Fluxes of every face from the cells and ghosts.
void all_fluxes(const std::vector<double>& in, int n, double u, double v, std::vector<double>& fx, std::vector<double>& gy) {
  const int w = n + 2;
  auto at = [&](int i, int j) { return in[static_cast<std::size_t>(j * w + i)]; };
  fx.resize(static_cast<std::size_t>((n + 1) * n));
  gy.resize(static_cast<std::size_t>(n * (n + 1)));
  for (int j = 1; j <= n; ++j)
    for (int k = 0; k <= n; ++k) fx[static_cast<std::size_t>((j - 1) * (n + 1) + k)] = upwind_flux(u, at(k, j), at(k + 1, j));
  for (int k = 0; k <= n; ++k)
    for (int i = 1; i <= n; ++i) gy[static_cast<std::size_t>(k * n + i - 1)] = upwind_flux(v, at(i, k), at(i, k + 1));
}
// The flux of boundary face `f`, position `k` along it (0..n-1), as stored in fx/gy.
double& face_flux(std::vector<double>& fx, std::vector<double>& gy, int n, int f, int k) {
  if (f == 0) return fx[static_cast<std::size_t>(k * (n + 1) + n)];
  if (f == 1) return fx[static_cast<std::size_t>(k * (n + 1))];
  if (f == 2) return gy[static_cast<std::size_t>(n * n + k)];
  return gy[static_cast<std::size_t>(k)];
}
// Cell (along face f, k-th) on our boundary, and the ghost cell beyond it, as array positions.
std::size_t boundary_cell(int n, int f, int k) {
  const int w = n + 2, i = f == 0 ? n : f == 1 ? 1 : k + 1, j = f == 2 ? n : f == 3 ? 1 : k + 1;
  return static_cast<std::size_t>(j * w + i);
}
std::size_t ghost_cell(int n, int f, int k) {
  const int w = n + 2, i = f == 0 ? n + 1 : f == 1 ? 0 : k + 1, j = f == 2 ? n + 1 : f == 3 ? 0 : k + 1;
  return static_cast<std::size_t>(j * w + i);
}

struct driver;
using segment_stats = std::vector<double>;  // blocks, then blocks per depth 0..31

struct block : roam::element<block, quad_index> {
  // The initial mesh: every leaf at cfg.depth.
  explicit block(settings s) : cfg(s) {
    rel_.fill(0);
    const int n = cfg.cells, w = n + 2;
    rho.assign(static_cast<std::size_t>(w * w), 0.0);
    const double h = cfg.cell_size(this_index().depth);
    for (int j = 1; j <= n; ++j)
      for (int i = 1; i <= n; ++i)
        rho[static_cast<std::size_t>(j * w + i)] =
            initial_density((this_index().x() * n + i - 1 + 0.5) * h, (this_index().y() * n + j - 1 + 0.5) * h);
    reset_wishes();
  }
  // Made by a remesh: its neighbours' relations and cells (n·n, row-major).
  block(settings s, relations rel, std::vector<double> cells, int at_step) : cfg(s), rel_(rel), step(at_step) {
    const int n = cfg.cells, w = n + 2;
    rho.assign(static_cast<std::size_t>(w * w), 0.0);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) rho[static_cast<std::size_t>((j + 1) * w + i + 1)] = cells[static_cast<std::size_t>(j * n + i)];
    reset_wishes();
  }
  explicit block(roam::migrating) {}
  void pup(roam::pup_er& p) {
    p | cfg | rel_ | rho | step | intent_ | decided_ | heard_ | parts_ | part_rel_ | parts_in_ | balanced_ | ghost | flux;
  }

  roam::mailbox<int, int, std::vector<double>> ghost;     // (step, our face, ghost values)
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
    const int n = cfg.cells, w = n + 2;
    std::vector<double> out{static_cast<double>(q.depth), static_cast<double>(q.x()), static_cast<double>(q.y())};
    for (int j = 1; j <= n; ++j)
      for (int i = 1; i <= n; ++i) out.push_back(rho[static_cast<std::size_t>(j * w + i)]);
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
  roam::mailbox<int, std::vector<std::vector<double>>> meshes;  // (step, each leaf's depth, x, y, relations)
  roam::mailbox<int, std::vector<double>> latencies;            // (step, each block's remeshing latency, s)
  roam::mailbox<int, roam::checkpoint_result> saved;            // (step, the checkpoint's outcome)
  driver() = default;
  explicit driver(settings s) : s_(s) {}
  explicit driver(roam::migrating) {}
  void pup(roam::pup_er& p) {
    p | masses | segments | fields | meshes | latencies | saved | s_ | blocks_ | made_ | start_ | next_mass_ | m0_ | worst_ |
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

double block::mass() const {
  const int n = cfg.cells, w = n + 2;
  double m = 0;
  for (int j = 1; j <= n; ++j)
    for (int i = 1; i <= n; ++i) m += rho[static_cast<std::size_t>(j * w + i)];
  const double h = cfg.cell_size(this_index().depth);
  return m * h * h;
}

roam::task<> block::run(roam::chare_proxy<driver> d, int until, std::int64_t remeshed_at) {
  if (remeshed_at != 0) {
    const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
    contribute(static_cast<double>(now - remeshed_at) * 1e-9, roam::concat, roam::callback<std::vector<double>>::to<&driver::latencies>(d, step));
  }
  const int n = cfg.cells;
  const quad_index me = this_index();
  const double nu = cfg.dt() / cfg.cell_size(me.depth);
  if (step == 0) contribute(std::vector<double>{mass()}, roam::sum, roam::callback<std::vector<double>>::to<&driver::masses>(d, 0));
  next = rho;
  for (; step < until; ++step) {
    // Ghosts: a same-depth neighbour gets our boundary row; each of two
    // finer ones its half, every value twice; a coarser one nothing.
    int expect = 0;
    for (int f = 0; f < 4; ++f) {
      if (rel_[f] == 0) {
        std::vector<double> row(static_cast<std::size_t>(n));
        for (int k = 0; k < n; ++k) row[static_cast<std::size_t>(k)] = rho[boundary_cell(n, f, k)];
        this_array()[*me.neighbor(dirs[f][0], dirs[f][1], true)].send<&block::ghost>(step, opposite[f], std::move(row));
        ++expect;
      } else if (rel_[f] == 1) {
        const auto fine = *me.finer_neighbors(dirs[f][0], dirs[f][1], true);
        for (int h = 0; h < 2; ++h) {
          std::vector<double> row(static_cast<std::size_t>(n));
          for (int k = 0; k < n; ++k) row[static_cast<std::size_t>(k)] = rho[boundary_cell(n, f, h * n / 2 + k / 2)];
          this_array()[h == 0 ? fine.first : fine.second].send<&block::ghost>(step, opposite[f], std::move(row));
        }
      } else {
        ++expect;  // the coarser neighbour's cells, twice each
      }
    }
    for (int got = 0; got < expect; ++got) {
      auto [s, f, row] = co_await ghost.receive(step);
      (void)s;
      for (int k = 0; k < n; ++k) rho[ghost_cell(n, f, k)] = row[static_cast<std::size_t>(k)];
    }
    all_fluxes(rho, n, cfg.u, cfg.v, fx, gy);
    // Toward a coarser neighbour our face fluxes, two by two: it uses them
    // instead of its own, so what crosses the face is the same on both sides.
    int fine_parts = 0;
    for (int f = 0; f < 4; ++f) {
      if (rel_[f] == 1) fine_parts += 2;
      if (rel_[f] != -1) continue;
      std::vector<double> pairs(static_cast<std::size_t>(n / 2));
      for (int k = 0; k < n / 2; ++k)
        pairs[static_cast<std::size_t>(k)] = 0.5 * (face_flux(fx, gy, n, f, 2 * k) + face_flux(fx, gy, n, f, 2 * k + 1));
      this_array()[*me.coarser_neighbor(dirs[f][0], dirs[f][1], true)].send<&block::flux>(step, opposite[f], half_along(me, f),
                                                                                           std::move(pairs));
    }
    for (int got = 0; got < fine_parts; ++got) {
      auto [s, f, h, pairs] = co_await flux.receive(step);
      (void)s;
      for (int k = 0; k < n / 2; ++k) face_flux(fx, gy, n, f, h * n / 2 + k) = pairs[static_cast<std::size_t>(k)];
    }
    apply_fluxes(rho, next, n, fx, gy, nu);
    std::swap(rho, next);
    if ((step + 1) % cfg.mass_every == 0 || step + 1 == cfg.steps)
      contribute(std::vector<double>{mass()}, roam::sum, roam::callback<std::vector<double>>::to<&driver::masses>(d, step + 1));
  }
  contribute(stats(), roam::sum, roam::callback<segment_stats>::to<&driver::segments>(d, until));
  if (cfg.check && until == cfg.steps) {
    std::vector<double> out{static_cast<double>(me.x()), static_cast<double>(me.y())};
    const int w = n + 2;
    for (int j = 1; j <= n; ++j)
      for (int i = 1; i <= n; ++i) out.push_back(rho[static_cast<std::size_t>(j * w + i)]);
    contribute(std::move(out), roam::concat, roam::callback<std::vector<std::vector<double>>>::to<&driver::fields>(d, 0));
  }
}

// ---- phase 1: wishes, raised until neighbours are within one level ------------

void block::decide() {
  const quad_index me = this_index();
  const int n = cfg.cells, w = n + 2;
  double jump = 0;
  for (int j = 1; j <= n; ++j)
    for (int i = 1; i <= n; ++i) {
      const double c = rho[static_cast<std::size_t>(j * w + i)];
      if (i < n) jump = std::max(jump, std::abs(rho[static_cast<std::size_t>(j * w + i + 1)] - c));
      if (j < n) jump = std::max(jump, std::abs(rho[static_cast<std::size_t>((j + 1) * w + i)] - c));
    }
  int wish = jump > cfg.refine_above ? 1 : jump < cfg.coarsen_below ? -1 : 0;
  if (wish > 0 && me.depth >= cfg.max_depth) wish = 0;
  if (wish < 0 && me.depth <= cfg.min_depth) wish = 0;
  if (wish < 0)  // a sibling that is not a leaf of our depth: the four cannot merge
    for (int f = 0; f < 4; ++f)
      if (inner_face(me.quadrant(), f) && rel_[f] != 0) wish = 0;
  intent_ = static_cast<std::int32_t>(me.depth) + wish;
  decided_ = true;
  reconsider();
  announce();
}

void block::announce() {
  const quad_index me = this_index();
  for (int f = 0; f < 4; ++f) {
    if (rel_[f] == 0) {
      this_array()[*me.neighbor(dirs[f][0], dirs[f][1], true)].send<&block::intent>(opposite[f], 0, intent_);
    } else if (rel_[f] == -1) {
      this_array()[*me.coarser_neighbor(dirs[f][0], dirs[f][1], true)].send<&block::intent>(opposite[f], half_along(me, f), intent_);
    } else {
      const auto fine = *me.finer_neighbors(dirs[f][0], dirs[f][1], true);
      this_array()[fine.first].send<&block::intent>(opposite[f], 0, intent_);
      this_array()[fine.second].send<&block::intent>(opposite[f], 0, intent_);
    }
  }
}

void block::intent(int face, int half, int wish) {
  auto& h = heard_[static_cast<std::size_t>(face)][static_cast<std::size_t>(half)];
  h = std::max(h, wish);
  if (!decided_) return;
  const std::int32_t before = intent_;
  reconsider();
  if (intent_ != before) announce();
}

void block::reconsider() {
  const auto depth = static_cast<std::int32_t>(this_index().depth);
  for (int f = 0; f < 4; ++f)
    for (int h = 0; h < 2; ++h)
      if (heard_[f][h] != unheard) intent_ = std::max(intent_, heard_[f][h] - 1);
  // Four siblings merge only together: one that stays keeps the others.
  if (intent_ < depth)
    for (int f = 0; f < 4; ++f)
      if (inner_face(this_index().quadrant(), f) && heard_[f][0] >= depth) intent_ = depth;
}

// ---- phase 2: split, merge or stay -----------------------------------------------

void block::apply() {
  const quad_index me = this_index();
  const int n = cfg.cells, w = n + 2;
  const auto depth = static_cast<std::int32_t>(me.depth);
  if (intent_ > depth) {  // four children, each cell copied into the four that replace it
    for (unsigned q = 0; q < 4; ++q) {
      relations r{};
      for (int f = 0; f < 4; ++f) r[f] = inner_face(q, f) ? 0 : across(f, f < 2 ? static_cast<int>(q >> 1) : static_cast<int>(q & 1u)) - (depth + 1);
      std::vector<double> cells(static_cast<std::size_t>(n * n));
      const int ox = static_cast<int>(q & 1u) * n / 2, oy = static_cast<int>(q >> 1) * n / 2;
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) cells[static_cast<std::size_t>(j * n + i)] = rho[static_cast<std::size_t>((oy + j / 2 + 1) * w + ox + i / 2 + 1)];
      this_array().insert_on(roam::my_pe(), me.child(q), cfg, r, std::move(cells), step);
    }
    destroy_self();
    return;
  }
  if (intent_ == depth) {
    for (int f = 0; f < 4; ++f) rel_[f] = std::max(heard_[f][0], heard_[f][1]) - depth;
    reset_wishes();
    return;
  }
  // Merging: our cells averaged four by four, and our outer faces' relations, to quadrant 0.
  std::vector<double> cells(static_cast<std::size_t>(n * n / 4));
  for (int j = 0; j < n / 2; ++j)
    for (int i = 0; i < n / 2; ++i) {
      const auto c = [&](int a, int b) { return rho[static_cast<std::size_t>((2 * j + b + 1) * w + 2 * i + a + 1)]; };
      cells[static_cast<std::size_t>(j * n / 2 + i)] = 0.25 * ((c(0, 0) + c(1, 0)) + (c(0, 1) + c(1, 1)));
    }
  relations outer{};
  for (int f = 0; f < 4; ++f) outer[f] = inner_face(me.quadrant(), f) ? unheard : std::max(heard_[f][0], heard_[f][1]) - (depth - 1);
  const quad_index first = me.parent().child(0);
  if (me.quadrant() == 0)
    gather(0, std::move(cells), outer);
  else {
    this_array()[first].send<&block::gather>(static_cast<int>(me.quadrant()), std::move(cells), outer);
    destroy_self();
  }
}

void block::gather(int quadrant, std::vector<double> cells, relations outer) {
  const int n = cfg.cells;
  if (parts_.empty()) {
    parts_.resize(4);
    part_rel_.fill(unheard);
  }
  parts_[static_cast<std::size_t>(quadrant)] = std::move(cells);
  for (int f = 0; f < 4; ++f) part_rel_[f] = std::max(part_rel_[f], outer[f]);
  if (++parts_in_ < 4) return;
  std::vector<double> whole(static_cast<std::size_t>(n * n));
  for (int q = 0; q < 4; ++q) {
    const int ox = (q & 1) * n / 2, oy = (q >> 1) * n / 2;
    for (int j = 0; j < n / 2; ++j)
      for (int i = 0; i < n / 2; ++i)
        whole[static_cast<std::size_t>((oy + j) * n + ox + i)] = parts_[static_cast<std::size_t>(q)][static_cast<std::size_t>(j * n / 2 + i)];
  }
  this_array().insert_on(roam::my_pe(), this_index().parent(), cfg, part_rel_, std::move(whole), step);
  destroy_self();
}

// The same scheme on one (N+2)² grid, periodic (the fixed mesh's check).
std::vector<double> serial_run(const settings& s) {
  const int n = static_cast<int>((1u << s.depth) * static_cast<std::uint32_t>(s.cells)), w = n + 2;
  const double h = s.cell_size(s.depth), nu = s.dt() / h;
  std::vector<double> rho(static_cast<std::size_t>(w * w), 0.0), next, fx, gy;
  for (int j = 1; j <= n; ++j)
    for (int i = 1; i <= n; ++i) rho[static_cast<std::size_t>(j * w + i)] = initial_density((i - 1 + 0.5) * h, (j - 1 + 0.5) * h);
  next = rho;
  for (int t = 0; t < s.steps; ++t) {
    for (int k = 1; k <= n; ++k) {
      rho[static_cast<std::size_t>(k * w)] = rho[static_cast<std::size_t>(k * w + n)];
      rho[static_cast<std::size_t>(k * w + n + 1)] = rho[static_cast<std::size_t>(k * w + 1)];
      rho[static_cast<std::size_t>(k)] = rho[static_cast<std::size_t>(n * w + k)];
      rho[static_cast<std::size_t>((n + 1) * w + k)] = rho[static_cast<std::size_t>(w + k)];
    }
    all_fluxes(rho, n, s.u, s.v, fx, gy);
    apply_fluxes(rho, next, n, fx, gy, nu);
    std::swap(rho, next);
  }
  return rho;
}

// Blocks in space-filling-curve order, cut into P equal ranges: a PE holds
// a compact region, so most ghost faces stay on it. (Hashed indices put
// half the faces between PEs: +p2 ran no faster than +p1.)
std::uint32_t curve_map(const quad_index& q, std::uint32_t pes) {
  const std::uint64_t along = curve_key(q);  // below 2^62
  return static_cast<std::uint32_t>(((along >> 30) * pes) >> 32);
}

roam::task<> quiet() {
  auto [f, p] = roam::make_future<>();
  roam::on_quiescence(roam::callback<>::to_future(p));
  co_await f;
}

// The leaves tile the domain, each face meets leaves within one level, and
// each leaf's relations say so. An empty string when all of that holds.
std::string mesh_problem(const std::vector<std::vector<double>>& leaves) {
  std::set<std::pair<std::uint32_t, std::uint64_t>> have;
  double area = 0;
  for (const auto& l : leaves) {
    const quad_index q = quad_index::at(static_cast<std::uint32_t>(l[0]), static_cast<std::uint32_t>(l[1]), static_cast<std::uint32_t>(l[2]));
    have.insert({q.depth, q.path});
    area += std::ldexp(1.0, -2 * static_cast<int>(q.depth));
  }
  auto is_leaf = [&](const quad_index& q) { return have.count({q.depth, q.path}) != 0; };
  if (have.size() != leaves.size() || std::abs(area - 1.0) > 1e-12) return "the leaves do not tile the domain (area " + std::to_string(area) + ")";
  for (const auto& l : leaves) {
    const quad_index q = quad_index::at(static_cast<std::uint32_t>(l[0]), static_cast<std::uint32_t>(l[1]), static_cast<std::uint32_t>(l[2]));
    for (int f = 0; f < 4; ++f) {
      int actual = 99;
      const auto same = q.neighbor(dirs[f][0], dirs[f][1], true);
      const auto coarse = q.coarser_neighbor(dirs[f][0], dirs[f][1], true);
      const auto fine = q.finer_neighbors(dirs[f][0], dirs[f][1], true);
      if (same && is_leaf(*same)) actual = 0;
      else if (coarse && is_leaf(*coarse)) actual = -1;
      else if (fine && is_leaf(fine->first) && is_leaf(fine->second)) actual = 1;
      if (actual == 99) return "leaf " + q.str() + ": face " + std::to_string(f) + " meets leaves more than one level away";
      if (actual != static_cast<int>(l[3 + static_cast<std::size_t>(f)]))
        return "leaf " + q.str() + ": face " + std::to_string(f) + " believes " + std::to_string(static_cast<int>(l[3 + static_cast<std::size_t>(f)])) +
               ", is " + std::to_string(actual);
    }
  }
  return {};
}

// Where the blob's edge is at step t (left, right, below, above its centre),
// the leaves are of the deepest depth allowed. An empty string when so.
std::string blob_edge_problem(const std::vector<std::vector<double>>& leaves, const settings& s, int t) {
  const double cx = 0.3 + s.u * s.dt() * t, cy = 0.3 + s.v * s.dt() * t;
  const double points[4][2] = {{cx - 0.15, cy}, {cx + 0.15, cy}, {cx, cy - 0.15}, {cx, cy + 0.15}};
  for (const auto& p : points) {
    const double x = p[0] - std::floor(p[0]), y = p[1] - std::floor(p[1]);
    for (const auto& l : leaves) {
      const double size = std::ldexp(1.0, -static_cast<int>(l[0]));
      if (x < l[1] * size || x >= (l[1] + 1) * size || y < l[2] * size || y >= (l[2] + 1) * size) continue;
      if (static_cast<std::uint32_t>(l[0]) != s.max_depth)
        return "the blob's edge at (" + std::to_string(x) + ", " + std::to_string(y) + ") is in a leaf of depth " +
               std::to_string(static_cast<int>(l[0])) + ", not " + std::to_string(s.max_depth);
    }
  }
  return {};
}

std::string levels(const segment_stats& s) {
  std::string out;
  for (std::size_t d = 0; d < 32; ++d)
    if (s[1 + d] > 0) {
      if (!out.empty()) out += ' ';
      out += 'd';
      out += std::to_string(d);
      out += ':';
      out += std::to_string(static_cast<long>(s[1 + d]));
    }
  return out;
}

// Density (blue 0.1 to red 1) on a size×size picture, the leaves' edges in
// white where they are 4 pixels or more; false with `error` if not written.
bool write_image(const std::string& path, const std::vector<std::vector<double>>& blocks, int cells, int size, std::string& error) {
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(size) * static_cast<std::size_t>(size) * 3, 0);
  for (const auto& b : blocks) {
    const double side = std::ldexp(1.0, -static_cast<int>(b[0]));
    const int x0 = static_cast<int>(b[1] * side * size), x1 = static_cast<int>((b[1] + 1) * side * size);
    const int y0 = static_cast<int>(b[2] * side * size), y1 = static_cast<int>((b[2] + 1) * side * size);
    const bool outline = x1 - x0 >= 4;
    for (int py = y0; py < y1; ++py)
      for (int px = x0; px < x1; ++px) {
        const int ci = std::min(cells - 1, (px - x0) * cells / std::max(1, x1 - x0));
        const int cj = std::min(cells - 1, (py - y0) * cells / std::max(1, y1 - y0));
        const double t = std::clamp((b[3 + static_cast<std::size_t>(cj * cells + ci)] - 0.1) / 0.9, 0.0, 1.0);
        auto* p = rgb.data() + (static_cast<std::size_t>(size - 1 - py) * static_cast<std::size_t>(size) + static_cast<std::size_t>(px)) * 3;
        const bool edge = outline && (px == x0 || py == y0);
        p[0] = edge ? 255 : static_cast<std::uint8_t>(255 * t);
        p[1] = edge ? 255 : static_cast<std::uint8_t>(60 * (1 - t));
        p[2] = edge ? 255 : static_cast<std::uint8_t>(255 * (1 - t));
      }
  }
  return write_png(path, size, size, rgb, error);
}

roam::task<> driver::run() {
  const settings& s = s_;
  const std::uint32_t side = 1u << s.depth;
  if (!made_) {
    made_ = true;
    blocks_ = roam::create_sparse_array<block>(roam::sparse_options<quad_index>(roam::custom_map<&curve_map>()));
    for (std::uint32_t y = 0; y < side; ++y)
      for (std::uint32_t x = 0; x < side; ++x) blocks_.insert(quad_index::at(s.depth, x, y), s);
    blocks_.done_inserting();
    std::printf("amr: %u x %u blocks of %d x %d cells (depth %u, %u to %u), %d steps, remesh every %d, on %u pes\n", side, side,
                s.cells, s.cells, s.depth, s.min_depth, s.max_depth, s.steps, s.remesh_every, roam::num_pes());
  }
  auto blocks = blocks_;
  const auto t0 = std::chrono::steady_clock::now();
  const int first_step = start_;  // the rate counts the steps run here (after a restart, from it)
  const double updates_before = cell_updates_, remesh_before = remesh_seconds_;
  const bool balance = roam::load_balancing_enabled();
  while (start_ < s.steps) {
    if (!asked_) {
      const int until = s.remesh_every > 0 ? std::min(s.steps, start_ + s.remesh_every) : s.steps;
      blocks.send<&block::run>(this_proxy(), until, remeshed_at_);
      if (remeshed_at_ != 0) {
        const auto l = std::get<1>(co_await latencies.receive(start_));
        latencies_.insert(latencies_.end(), l.begin(), l.end());
      }
      for (;; next_mass_ = next_mass_ == 0 ? s.mass_every : next_mass_ + s.mass_every) {  // the masses of this segment
        const int at = std::min(next_mass_, s.steps);
        if (at > until) break;
        const double m = std::get<1>(co_await masses.receive(at))[0];
        if (m0_ < 0) m0_ = m;
        last_mass_ = m;
        worst_ = std::max(worst_, std::abs(m - m0_) / m0_);
        if (at == s.steps) break;
      }
      const segment_stats st = std::get<1>(co_await segments.receive(until));
      cell_updates_ += st[0] * s.cells * s.cells * (until - start_);
      start_ = until;
      std::printf("amr: step %d: %ld blocks%s (%s)\n", start_, static_cast<long>(st[0]), start_ < s.steps ? " before the remesh" : "",
                  levels(st).c_str());
      if (s.image_every > 0 && (start_ % s.image_every == 0 || start_ == s.steps)) {
        auto [cells, ccb] = roam::make_future_callback<std::vector<std::vector<double>>>();
        blocks.send<&block::snapshot>(ccb);
        const auto all = co_await cells;
        const int size = static_cast<int>(std::min<std::uint64_t>(1024, (std::uint64_t{1} << s.max_depth) * static_cast<std::uint64_t>(s.cells)));
        char name[32];
        std::snprintf(name, sizeof name, "-%06d.png", start_);
        std::string error;
        if (write_image(s.image_prefix + name, all, s.cells, size, error))
          std::printf("amr: image %s%s (%d x %d)\n", s.image_prefix.c_str(), name, size, size);
        else
          std::printf("amr: image NOT written: %s\n", error.c_str());
      }
      if (start_ >= s.steps) break;
      if (start_ == s.checkpoint_at) {  // every block idle between segments: the runtime waits for quiet anyway
        asked_ = true;
        roam::checkpoint(s.checkpoint_dir, roam::callback<roam::checkpoint_result>::to<&driver::saved>(this_proxy(), start_));
      }
    }
    if (asked_) {
      const roam::checkpoint_result r = std::get<1>(co_await saved.receive(start_));
      asked_ = false;
      if (!r.ok)
        std::printf("amr: step %d: checkpoint FAILED (the run goes on): %s\n", start_, r.error.c_str());
      else
        std::printf("amr: step %d: %s %s (%llu objects)\n", start_, r.restarted ? "restarted from" : "checkpoint", r.path.c_str(),
                    static_cast<unsigned long long>(r.objects));
      std::fflush(stdout);
    }
    // Remesh: wishes until quiet, then the change until quiet.
    const auto r0 = std::chrono::steady_clock::now();
    remeshed_at_ = std::chrono::duration_cast<std::chrono::nanoseconds>(r0.time_since_epoch()).count();
    blocks.send<&block::decide>();
    co_await quiet();
    blocks.send<&block::apply>();
    co_await quiet();
    if (balance) {  // the blocks move by their measured loads
      auto [moved, mcb] = roam::make_future_callback<void>();
      blocks.send<&block::balance>(mcb);
      co_await moved;
    }
    ++remeshes_;
    // Every leaf's place (one reduction): for the equal split along the
    // curve, and for the checks.
    auto [leaves, cb] = roam::make_future_callback<std::vector<std::vector<double>>>();
    blocks.send<&block::describe>(cb);
    const auto mesh = co_await leaves;
    if (s.curve_balance && roam::num_pes() > 1) {
      std::vector<std::uint64_t> keys;
      keys.reserve(mesh.size());
      for (const auto& l : mesh)
        keys.push_back(curve_key(quad_index::at(static_cast<std::uint32_t>(l[0]), static_cast<std::uint32_t>(l[1]), static_cast<std::uint32_t>(l[2]))));
      std::sort(keys.begin(), keys.end());
      std::vector<std::uint64_t> cuts;
      for (std::uint32_t p = 1; p < roam::num_pes(); ++p) cuts.push_back(keys[keys.size() * p / roam::num_pes()]);
      blocks.send<&block::move_along_curve>(cuts);
      co_await quiet();
    }
    remesh_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - r0).count();
    if (s.check_mesh) {
      std::string problem = mesh_problem(mesh);
      // One level per remesh: the blob's edge is at the deepest depth once enough remeshes have run.
      if (problem.empty() && static_cast<std::uint32_t>(remeshes_) >= s.max_depth - s.depth) problem = blob_edge_problem(mesh, s, start_);
      if (!problem.empty() && mesh_error_.empty()) mesh_error_ = "after the remesh at step " + std::to_string(start_) + ": " + problem;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double remeshing = remesh_seconds_ - remesh_before, updates = cell_updates_ - updates_before;
  const bool conserved = worst_ < 1e-10;
  std::printf("amr: %.6f s (remeshing %.6f s in %d remeshes), %.3f M cell updates per second; mass %.12f, largest relative drift %.2e: %s\n",
              seconds, remeshing, remeshes_, updates / seconds * 1e-6, m0_, worst_, conserved ? "conserved" : "NOT CONSERVED");
  bool ok = conserved;
  if (!latencies_.empty()) {
    std::sort(latencies_.begin(), latencies_.end());
    auto at = [&](double q) { return latencies_[static_cast<std::size_t>(q * static_cast<double>(latencies_.size() - 1))] * 1e3; };
    const double step_ms = (seconds - remeshing) / (s.steps - first_step) * 1e3;
    std::printf("amr: remeshing latency per block, ms: min %.3f, 5%% %.3f, median %.3f, 95%% %.3f, max %.3f (%zu samples; a step %.3f ms)\n",
                at(0), at(0.05), at(0.5), at(0.95), at(1), latencies_.size(), step_ms);
  }
  if (s.check_mesh) {
    std::printf("amr: mesh after every remesh: %s\n",
                mesh_error_.empty() ? "tiles the domain, 2:1 balanced, the blob's edge at the deepest depth" : mesh_error_.c_str());
    ok = ok && mesh_error_.empty();
  }
  {  // The final mesh, the same whatever the PEs and restarts: leaves and a sum of their curve places.
    auto [leaves, cb] = roam::make_future_callback<std::vector<std::vector<double>>>();
    blocks.send<&block::describe>(cb);
    const auto mesh = co_await leaves;
    std::uint64_t sum = 0;  // of each leaf's (depth, x, y) mixed (splitmix64): any order gives the same
    for (const auto& l : mesh) {
      std::uint64_t z = (static_cast<std::uint64_t>(l[0]) << 58) ^ (static_cast<std::uint64_t>(l[1]) << 29) ^ static_cast<std::uint64_t>(l[2]);
      z += 0x9e3779b97f4a7c15ull;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      sum += z ^ (z >> 31);
    }
    std::printf("amr: final mesh: %zu leaves, places %016llx; mass %.12f\n", mesh.size(), static_cast<unsigned long long>(sum),
                last_mass_);
  }
  if (s.check) {
    const auto got = std::get<1>(co_await fields.receive(0));
    const std::vector<double> ref = serial_run(s);
    const int n = static_cast<int>(side) * s.cells, w = n + 2;
    double diff = 0;
    for (const auto& b : got) {
      const auto bx = static_cast<int>(b[0]), by = static_cast<int>(b[1]);
      for (int j = 0; j < s.cells; ++j)
        for (int i = 0; i < s.cells; ++i) {
          const int gi = bx * s.cells + i + 1, gj = by * s.cells + j + 1;
          diff = std::max(diff, std::abs(b[static_cast<std::size_t>(2 + j * s.cells + i)] - ref[static_cast<std::size_t>(gj * w + gi)]));
        }
    }
    const bool same = diff == 0.0 && got.size() == static_cast<std::size_t>(side) * side;
    std::printf("amr: against the serial run of the same scheme: largest difference %.3g over %zu blocks: %s\n", diff, got.size(),
                same ? "identical" : "DIFFERENT");
    ok = ok && same;
  }
  std::printf("{\"bench\":\"amr\",\"depth\":%u,\"max_depth\":%u,\"cells\":%d,\"steps\":%d,\"remesh_every\":%d,\"pes\":%u,\"seconds\":%.6f,"
              "\"remesh_seconds\":%.6f,\"cell_updates_per_second\":%.1f}\n",
              s.depth, s.max_depth, s.cells, s.steps, s.remesh_every, roam::num_pes(), seconds, remeshing, updates / seconds);
  roam::exit(ok ? 0 : 1);
}

int usage(bool help) {
  std::fprintf(help ? stdout : stderr,
               "usage: amr [--depth D] [--min-depth A] [--max-depth B] [--cells M] [--steps S] [--remesh-every R]\n"
               "           [--cfl C] [--mass-every K] [--check] [--check-mesh] [--no-curve-balance] [--checkpoint-at S DIR]\n"
               "           [--image-every K PREFIX]\n"
               "  2-D advection of a blob, first-order upwind, on quad-tree blocks of M x M cells (M even), starting\n"
               "  with every leaf at depth D (default 4, M 16, 100 steps, CFL 0.4); every R steps (0: never, the\n"
               "  default) the mesh adapts between depths A and B; the mass is checked every K steps (default 10);\n"
               "  --check: the field against a serial run (fixed mesh); --check-mesh: after every remesh, the leaves\n"
               "  tile the domain, are 2:1 balanced and are of depth B where the blob's edge is; after each remesh the\n"
               "  blocks are split evenly along the space-filling curve (unless --no-curve-balance); --checkpoint-at:\n"
               "  a checkpoint in DIR after step S (restart it with amr +restart DIR, on any number of PEs); --image-every:\n"
               "  PREFIX-STEP.png of density and mesh after segments ending at multiples of K, and at the end\n"
               "example: amr --depth 4 --max-depth 6 --remesh-every 10 --steps 200 +p2\n");
  return help ? 0 : 2;
}

}  // namespace
}  // namespace amr

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) {
    amr::settings s;
    double min_depth = -1, max_depth = -1;
    for (std::size_t i = 1; i < a.size(); ++i) {
      const std::string& w = a[i];
      const bool has = i + 1 < a.size();
      auto number = [&](double lo, double hi, double& out) {
        char* end = nullptr;
        out = std::strtod(a[++i].c_str(), &end);
        if (*end != '\0' || !(out >= lo && out <= hi)) {
          std::fprintf(stderr, "amr: %s takes a number from %g to %g, not '%s'\n", w.c_str(), lo, hi, a[i].c_str());
          return false;
        }
        return true;
      };
      double x = 0;
      bool ok = true;
      if (w == "--depth" && has) {
        ok = number(0, 12, x);
        s.depth = static_cast<std::uint32_t>(x);
      } else if (w == "--min-depth" && has) {
        ok = number(0, 12, min_depth);
      } else if (w == "--max-depth" && has) {
        ok = number(0, 15, max_depth);
      } else if (w == "--cells" && has) {
        ok = number(2, 4096, x);
        s.cells = static_cast<int>(x) / 2 * 2;
      } else if (w == "--steps" && has) {
        ok = number(1, 1e9, x);
        s.steps = static_cast<int>(x);
      } else if (w == "--remesh-every" && has) {
        ok = number(0, 1e9, x);
        s.remesh_every = static_cast<int>(x);
      } else if (w == "--cfl" && has) {
        ok = number(1e-6, 1, s.cfl);
      } else if (w == "--mass-every" && has) {
        ok = number(1, 1e9, x);
        s.mass_every = static_cast<int>(x);
      } else if (w == "--check") {
        s.check = true;
      } else if (w == "--check-mesh") {
        s.check_mesh = true;
      } else if (w == "--image-every" && i + 2 < a.size()) {
        ok = number(1, 1e9, x);
        s.image_every = static_cast<int>(x);
        s.image_prefix = a[++i];
      } else if (w == "--no-curve-balance") {
        s.curve_balance = false;
      } else if (w == "--checkpoint-at" && i + 2 < a.size()) {
        ok = number(1, 1e9, x);
        s.checkpoint_at = static_cast<int>(x);
        s.checkpoint_dir = a[++i];
      } else {
        if (w != "--help" && w != "-h") std::fprintf(stderr, "amr: unknown option '%s'\n", w.c_str());
        roam::exit(amr::usage(w == "--help" || w == "-h"));
        return;
      }
      if (!ok) {
        roam::exit(2);
        return;
      }
    }
    s.min_depth = min_depth >= 0 ? static_cast<std::uint32_t>(min_depth) : std::min<std::uint32_t>(s.depth, 2);
    s.max_depth = max_depth >= 0 ? static_cast<std::uint32_t>(max_depth) : s.depth;
    if (s.min_depth > s.depth || s.max_depth < s.depth) {
      std::fprintf(stderr, "amr: the depths must satisfy min-depth <= depth <= max-depth\n");
      roam::exit(2);
      return;
    }
    if (s.check && s.remesh_every > 0) {
      std::fprintf(stderr, "amr: --check compares a fixed mesh with a serial run: not with --remesh-every\n");
      roam::exit(2);
      return;
    }
    if (s.checkpoint_at >= 0 && (s.remesh_every == 0 || s.checkpoint_at % s.remesh_every != 0 || s.checkpoint_at >= s.steps)) {
      std::fprintf(stderr, "amr: --checkpoint-at takes a step before the last that ends a segment (a multiple of --remesh-every)\n");
      roam::exit(2);
      return;
    }
    auto d = roam::create_chare_on<amr::driver>(roam::pe_id{0}, s);
    d.send<&amr::driver::run>();
  });
}
