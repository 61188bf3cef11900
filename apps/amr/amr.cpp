// amr: 2-D advection of a density blob by a constant velocity, first-order
// upwind, on blocks of a quad-tree addressed by bit-vector indices
// (quad_index.hpp) as elements of a sparse array (docs/design/amr.md).
// This is the fixed mesh: every leaf at one depth, ghost faces exchanged
// between neighbours through a mailbox per block; the mass is checked
// every K steps and, with --check, the field against a serial run of the
// same scheme on one grid.
//
//   amr [--depth D] [--cells M] [--steps S] [--cfl C] [--mass-every K] [--check]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <roam/roam.hpp>

#include "quad_index.hpp"

namespace amr {
namespace {

struct settings {
  std::uint32_t depth = 4;
  int cells = 16;
  int steps = 100;
  double cfl = 0.4;
  int mass_every = 10;
  bool check = false;
  double u = 1.0, v = 0.5;  // the velocity
  void pup(roam::pup_er& p) { p | depth | cells | steps | cfl | mass_every | check | u | v; }
  double cell_size() const { return 1.0 / (static_cast<double>(1u << depth) * cells); }
  double dt() const { return cfl * cell_size() / (std::abs(u) + std::abs(v)); }
};

// The seed's circular blob: density 1 inside radius 0.15 around (0.3, 0.3), 0.1 outside.
double initial_density(double x, double y) {
  const double dx = x - 0.3, dy = y - 0.3;
  return dx * dx + dy * dy < 0.15 * 0.15 ? 1.0 : 0.1;
}

// One upwind step on an (n+2)×(n+2) array with a ghost ring (row-major, y
// outer): the same arithmetic for a block and for the serial grid.
void upwind(const std::vector<double>& in, std::vector<double>& out, int n, double u, double v, double nu) {
  const int w = n + 2;
  auto at = [&](int i, int j) { return in[static_cast<std::size_t>(j * w + i)]; };
  for (int j = 1; j <= n; ++j)
    for (int i = 1; i <= n; ++i) {
      const double fe = u > 0 ? u * at(i, j) : u * at(i + 1, j), fw = u > 0 ? u * at(i - 1, j) : u * at(i, j);
      const double gn = v > 0 ? v * at(i, j) : v * at(i, j + 1), gs = v > 0 ? v * at(i, j - 1) : v * at(i, j);
      out[static_cast<std::size_t>(j * w + i)] = at(i, j) - nu * ((fe - fw) + (gn - gs));
    }
}

// Faces: 0 east, 1 west, 2 north, 3 south; the face a neighbour sees us on.
constexpr int dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
constexpr int opposite[4] = {1, 0, 3, 2};

struct driver;

struct block : roam::element<block, quad_index> {
  block(settings s) : cfg(s) {
    const int n = cfg.cells, w = n + 2;
    rho.assign(static_cast<std::size_t>(w * w), 0.0);
    const double h = cfg.cell_size();
    const quad_index me = this_index();
    for (int j = 1; j <= n; ++j)
      for (int i = 1; i <= n; ++i)
        rho[static_cast<std::size_t>(j * w + i)] =
            initial_density((me.x() * n + i - 1 + 0.5) * h, (me.y() * n + j - 1 + 0.5) * h);
    next = rho;
  }
  explicit block(roam::migrating) {}
  void pup(roam::pup_er& p) { p | cfg | rho | next | step | ghost; }

  // (step, face of this block it is for, the neighbour's boundary values)
  roam::mailbox<int, int, std::vector<double>> ghost;

  roam::task<> run(roam::chare_proxy<driver> d);

  double mass() const {
    const int n = cfg.cells, w = n + 2;
    double m = 0;
    for (int j = 1; j <= n; ++j)
      for (int i = 1; i <= n; ++i) m += rho[static_cast<std::size_t>(j * w + i)];
    const double h = cfg.cell_size();
    return m * h * h;
  }

  settings cfg;
  std::vector<double> rho, next;
  int step = 0;
};

// Runs the simulation: makes the blocks, collects the masses (a reduction
// every K steps, by step number) and, with --check, the field.
struct driver : roam::chare<driver> {
  roam::mailbox<int, std::vector<double>> masses;                // (step, {mass})
  roam::mailbox<int, std::vector<std::vector<double>>> fields;   // (0, each block's x, y and cells)
  driver() = default;
  explicit driver(roam::migrating) {}
  void pup(roam::pup_er& p) { p | masses | fields; }
  roam::task<> run(settings s);
};

roam::task<> block::run(roam::chare_proxy<driver> d) {
  const int n = cfg.cells, w = n + 2;
  const double nu = cfg.dt() / cfg.cell_size();
  if (step == 0) contribute(std::vector<double>{mass()}, roam::sum, roam::callback<std::vector<double>>::to<&driver::masses>(d, 0));
  for (; step < cfg.steps; ++step) {
    for (int f = 0; f < 4; ++f) {  // our boundary row or column facing f, to the neighbour there
      std::vector<double> edge(static_cast<std::size_t>(n));
      for (int k = 0; k < n; ++k) {
        const int i = f == 0 ? n : f == 1 ? 1 : k + 1, j = f == 2 ? n : f == 3 ? 1 : k + 1;
        edge[static_cast<std::size_t>(k)] = rho[static_cast<std::size_t>(j * w + i)];
      }
      const quad_index to = *this_index().neighbor(dirs[f][0], dirs[f][1], true);
      this_array()[to].send<&block::ghost>(step, opposite[f], std::move(edge));
    }
    for (int got = 0; got < 4; ++got) {
      auto [s, f, edge] = co_await ghost.receive(step);
      (void)s;
      for (int k = 0; k < n; ++k) {
        const int i = f == 0 ? n + 1 : f == 1 ? 0 : k + 1, j = f == 2 ? n + 1 : f == 3 ? 0 : k + 1;
        rho[static_cast<std::size_t>(j * w + i)] = edge[static_cast<std::size_t>(k)];
      }
    }
    upwind(rho, next, n, cfg.u, cfg.v, nu);
    std::swap(rho, next);
    if ((step + 1) % cfg.mass_every == 0 || step + 1 == cfg.steps)
      contribute(std::vector<double>{mass()}, roam::sum, roam::callback<std::vector<double>>::to<&driver::masses>(d, step + 1));
  }
  if (cfg.check) {
    std::vector<double> out{static_cast<double>(this_index().x()), static_cast<double>(this_index().y())};
    for (int j = 1; j <= n; ++j)
      for (int i = 1; i <= n; ++i) out.push_back(rho[static_cast<std::size_t>(j * w + i)]);
    contribute(std::move(out), roam::concat, roam::callback<std::vector<std::vector<double>>>::to<&driver::fields>(d, 0));
  }
}

// The same scheme on one (N+2)² grid, periodic.
std::vector<double> serial_run(const settings& s) {
  const int n = static_cast<int>((1u << s.depth) * static_cast<std::uint32_t>(s.cells)), w = n + 2;
  const double h = s.cell_size(), nu = s.dt() / h;
  std::vector<double> rho(static_cast<std::size_t>(w * w), 0.0), next;
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
    upwind(rho, next, n, s.u, s.v, nu);
    std::swap(rho, next);
  }
  return rho;
}

// Blocks in space-filling-curve order, cut into P equal ranges: a PE holds
// a compact region, so most ghost faces stay on it. (Hashed indices put
// half the faces between PEs: +p2 ran no faster than +p1.)
std::uint32_t curve_map(const quad_index& q, std::uint32_t pes) {
  const std::uint32_t shift = 2 * (quad_index::max_depth - q.depth);
  const std::uint64_t along = q.path << shift;  // the position at the deepest depth: below 2^62
  return static_cast<std::uint32_t>(((along >> 30) * pes) >> 32);
}

roam::task<> driver::run(settings s) {
  const std::uint32_t side = 1u << s.depth;
  auto blocks = roam::create_sparse_array<block>(roam::sparse_options<quad_index>(roam::custom_map<&curve_map>()));
  for (std::uint32_t y = 0; y < side; ++y)
    for (std::uint32_t x = 0; x < side; ++x) blocks.insert(quad_index::at(s.depth, x, y), s);
  blocks.done_inserting();
  const long long n = static_cast<long long>(side) * s.cells;
  std::printf("amr: %u x %u blocks of %d x %d cells (depth %u), %lld x %lld cells, %d steps on %u pes\n", side, side, s.cells,
              s.cells, s.depth, n, n, s.steps, roam::num_pes());
  const auto t0 = std::chrono::steady_clock::now();
  blocks.send<&block::run>(this_proxy());
  const double m0 = std::get<1>(co_await masses.receive(0))[0];
  double worst = 0;
  for (int t = s.mass_every; ; t += s.mass_every) {
    const int at = std::min(t, s.steps);
    const double m = std::get<1>(co_await masses.receive(at))[0];
    worst = std::max(worst, std::abs(m - m0) / m0);
    if (at == s.steps) break;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const bool conserved = worst < 1e-10;
  std::printf("amr: %.6f s, %.3f M cell updates per second; mass %.12f, largest relative drift %.2e: %s\n", seconds,
              static_cast<double>(n) * static_cast<double>(n) * s.steps / seconds * 1e-6, m0, worst,
              conserved ? "conserved" : "NOT CONSERVED");
  bool ok = conserved;
  if (s.check) {
    const auto got = std::get<1>(co_await fields.receive(0));
    const std::vector<double> ref = serial_run(s);
    const int w = static_cast<int>(n) + 2;
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
  std::printf("{\"bench\":\"amr\",\"depth\":%u,\"cells\":%d,\"steps\":%d,\"pes\":%u,\"seconds\":%.6f,\"cell_updates_per_second\":%.1f}\n",
              s.depth, s.cells, s.steps, roam::num_pes(), seconds, static_cast<double>(n) * static_cast<double>(n) * s.steps / seconds);
  roam::exit(ok ? 0 : 1);
}

int usage(bool help) {
  std::fprintf(help ? stdout : stderr,
               "usage: amr [--depth D] [--cells M] [--steps S] [--cfl C] [--mass-every K] [--check]\n"
               "  2-D advection of a blob, first-order upwind, on the 4^D blocks of M x M cells of depth D of a\n"
               "  quad-tree (default D 4, M 16, 100 steps, CFL 0.4); the mass is checked every K steps (default 10);\n"
               "  --check: the field against a serial run of the same scheme\n"
               "example: amr --depth 5 --cells 16 --steps 200 +p2\n");
  return help ? 0 : 2;
}

}  // namespace
}  // namespace amr

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) {
    amr::settings s;
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
      } else if (w == "--cells" && has) {
        ok = number(2, 4096, x);
        s.cells = static_cast<int>(x);
      } else if (w == "--steps" && has) {
        ok = number(1, 1e9, x);
        s.steps = static_cast<int>(x);
      } else if (w == "--cfl" && has) {
        ok = number(1e-6, 1, s.cfl);
      } else if (w == "--mass-every" && has) {
        ok = number(1, 1e9, x);
        s.mass_every = static_cast<int>(x);
      } else if (w == "--check") {
        s.check = true;
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
    auto d = roam::create_chare_on<amr::driver>(roam::pe_id{0});
    d.send<&amr::driver::run>(s);
  });
}
