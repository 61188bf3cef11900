// The upwind scheme on a block's cells and on the serial grid (amr.hpp).
#include "amr.hpp"

#include <cmath>
#include <utility>

namespace amr {

// The seed's circular blob: density 1 inside radius 0.15 around (0.3, 0.3), 0.1 outside.
double initial_density(double x, double y) {
  const double dx = x - 0.3, dy = y - 0.3;
  return dx * dx + dy * dy < 0.15 * 0.15 ? 1.0 : 0.1;
}

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

}  // namespace amr
