// A block: its steps, its wishes (phase 1) and its split or merge (phase 2) (amr.hpp).
#include "amr.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

namespace amr {

double block::mass() const {
  const int n = cfg.cells;
  double m = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) m += rho[cell(n, i, j)];
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
    // Ghosts, two layers (layer 0 next to the face, then layer 1): a
    // same-depth neighbour gets our two boundary layers; each of two finer
    // ones its half of our boundary layer, every value twice along the face
    // and for both of its layers (one of our cells is two of its, deep and
    // wide); a coarser one our four boundary layers averaged two by two in
    // both directions, for its half of the face.
    int expect = 0;
    for (int f = 0; f < 4; ++f) {
      if (rel_[f] == 0) {
        std::vector<double> rows(static_cast<std::size_t>(2 * n));
        for (int l = 0; l < 2; ++l)
          for (int k = 0; k < n; ++k) rows[static_cast<std::size_t>(l * n + k)] = rho[boundary_cell(n, f, k, l)];
        this_array()[*me.neighbor(dirs[f][0], dirs[f][1], true)].send<&block::ghost>(step, opposite[f], -1, std::move(rows));
        ++expect;
      } else if (rel_[f] == 1) {
        const auto fine = *me.finer_neighbors(dirs[f][0], dirs[f][1], true);
        for (int h = 0; h < 2; ++h) {
          std::vector<double> rows(static_cast<std::size_t>(2 * n));
          for (int l = 0; l < 2; ++l)
            for (int k = 0; k < n; ++k) rows[static_cast<std::size_t>(l * n + k)] = rho[boundary_cell(n, f, h * n / 2 + k / 2, 0)];
          this_array()[h == 0 ? fine.first : fine.second].send<&block::ghost>(step, opposite[f], -1, std::move(rows));
        }
        expect += 2;  // its halves back, averaged
      } else {
        std::vector<double> rows(static_cast<std::size_t>(n));  // two coarse layers of n/2
        for (int l = 0; l < 2; ++l)
          for (int k = 0; k < n / 2; ++k)
            rows[static_cast<std::size_t>(l * n / 2 + k)] =
                0.25 * ((rho[boundary_cell(n, f, 2 * k, 2 * l)] + rho[boundary_cell(n, f, 2 * k + 1, 2 * l)]) +
                        (rho[boundary_cell(n, f, 2 * k, 2 * l + 1)] + rho[boundary_cell(n, f, 2 * k + 1, 2 * l + 1)]));
        this_array()[*me.coarser_neighbor(dirs[f][0], dirs[f][1], true)].send<&block::ghost>(step, opposite[f], half_along(me, f),
                                                                                            std::move(rows));
        ++expect;  // the coarser neighbour's cells, twice each
      }
    }
    for (int got = 0; got < expect; ++got) {
      auto [s, f, h, rows] = co_await ghost.receive(step);
      (void)s;
      if (h < 0) {
        for (int l = 0; l < 2; ++l)
          for (int k = 0; k < n; ++k) rho[ghost_cell(n, f, k, l)] = rows[static_cast<std::size_t>(l * n + k)];
      } else {
        for (int l = 0; l < 2; ++l)
          for (int k = 0; k < n / 2; ++k) rho[ghost_cell(n, f, h * n / 2 + k, l)] = rows[static_cast<std::size_t>(l * n / 2 + k)];
      }
    }
    all_fluxes(rho, n, cfg.u, cfg.v, cfg.order, fx, gy);
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
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) out.push_back(rho[cell(n, i, j)]);
    contribute(std::move(out), roam::concat, roam::callback<std::vector<std::vector<double>>>::to<&driver::fields>(d, 0));
  }
}

// ---- phase 1: wishes, raised until neighbours are within one level ------------

void block::decide() {
  const quad_index me = this_index();
  const int n = cfg.cells;
  double jump = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const double c = rho[cell(n, i, j)];
      if (i + 1 < n) jump = std::max(jump, std::abs(rho[cell(n, i + 1, j)] - c));
      if (j + 1 < n) jump = std::max(jump, std::abs(rho[cell(n, i, j + 1)] - c));
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
  const int n = cfg.cells;
  const auto depth = static_cast<std::int32_t>(me.depth);
  if (intent_ > depth) {  // four children, each cell copied into the four that replace it
    for (unsigned q = 0; q < 4; ++q) {
      relations r{};
      for (int f = 0; f < 4; ++f) r[f] = inner_face(q, f) ? 0 : across(f, f < 2 ? static_cast<int>(q >> 1) : static_cast<int>(q & 1u)) - (depth + 1);
      std::vector<double> cells(static_cast<std::size_t>(n * n));
      const int ox = static_cast<int>(q & 1u) * n / 2, oy = static_cast<int>(q >> 1) * n / 2;
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) cells[static_cast<std::size_t>(j * n + i)] = rho[cell(n, ox + i / 2, oy + j / 2)];
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
      const auto c = [&](int a, int b) { return rho[cell(n, 2 * i + a, 2 * j + b)]; };
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

}  // namespace amr
