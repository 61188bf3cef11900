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

namespace {
double minmod(double a, double b) { return a * b <= 0 ? 0.0 : (std::abs(a) < std::abs(b) ? a : b); }
// The flux through the face between cells a and b (c before a, d after b
// along the direction): first order takes the upwind cell's value.
double face_flux_of(double speed, double c, double a, double b, double d, int order) {
  if (order == 1) return upwind_flux(speed, a, b);
  return speed * (speed > 0 ? a + 0.5 * minmod(a - c, b - a) : b - 0.5 * minmod(b - a, d - b));
}
}  // namespace

// x-face fluxes fx[(n+1)·n] (face k of row j between cells k-1 and k) and
// y-face fluxes gy[n·(n+1)]: the same arithmetic for a block and for the
// serial grid.
void apply_fluxes(const std::vector<double>& in, std::vector<double>& out, int n, const std::vector<double>& fx,
                  const std::vector<double>& gy, double nu) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const double fe = fx[static_cast<std::size_t>(j * (n + 1) + i + 1)], fw = fx[static_cast<std::size_t>(j * (n + 1) + i)];
      const double gn = gy[static_cast<std::size_t>((j + 1) * n + i)], gs = gy[static_cast<std::size_t>(j * n + i)];
      out[cell(n, i, j)] = in[cell(n, i, j)] - nu * ((fe - fw) + (gn - gs));
    }
}

void all_fluxes(const std::vector<double>& in, int n, double u, double v, int order, std::vector<double>& fx, std::vector<double>& gy) {
  auto at = [&](int i, int j) { return in[cell(n, i, j)]; };
  fx.resize(static_cast<std::size_t>((n + 1) * n));
  gy.resize(static_cast<std::size_t>(n * (n + 1)));
  for (int j = 0; j < n; ++j)
    for (int k = 0; k <= n; ++k)
      fx[static_cast<std::size_t>(j * (n + 1) + k)] = face_flux_of(u, at(k - 2, j), at(k - 1, j), at(k, j), at(k + 1, j), order);
  for (int k = 0; k <= n; ++k)
    for (int i = 0; i < n; ++i)
      gy[static_cast<std::size_t>(k * n + i)] = face_flux_of(v, at(i, k - 2), at(i, k - 1), at(i, k), at(i, k + 1), order);
}
// The flux of boundary face `f`, position `k` along it (0..n-1), as stored in fx/gy.
double& face_flux(std::vector<double>& fx, std::vector<double>& gy, int n, int f, int k) {
  if (f == 0) return fx[static_cast<std::size_t>(k * (n + 1) + n)];
  if (f == 1) return fx[static_cast<std::size_t>(k * (n + 1))];
  if (f == 2) return gy[static_cast<std::size_t>(n * n + k)];
  return gy[static_cast<std::size_t>(k)];
}
// Cell (along face f, k-th) on our boundary, and the ghost cell beyond it, as array positions.
std::size_t boundary_cell(int n, int f, int k, int layer) {
  const int i = f == 0 ? n - 1 - layer : f == 1 ? layer : k, j = f == 2 ? n - 1 - layer : f == 3 ? layer : k;
  return cell(n, i, j);
}
std::size_t ghost_cell(int n, int f, int k, int layer) {
  const int i = f == 0 ? n + layer : f == 1 ? -1 - layer : k, j = f == 2 ? n + layer : f == 3 ? -1 - layer : k;
  return cell(n, i, j);
}

// The same scheme on one (N+2)² grid, periodic (the fixed mesh's check).
std::vector<double> serial_run(const settings& s) {
  const int n = static_cast<int>((1u << s.depth) * static_cast<std::uint32_t>(s.cells));
  const double h = s.cell_size(s.depth), nu = s.dt() / h;
  std::vector<double> rho(cells_with_ghosts(n), 0.0), next, fx, gy;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) rho[cell(n, i, j)] = initial_density((i + 0.5) * h, (j + 0.5) * h);
  next = rho;
  for (int t = 0; t < s.steps; ++t) {
    for (int k = 0; k < n; ++k)
      for (int l = 0; l < ghosts; ++l) {
        rho[cell(n, -1 - l, k)] = rho[cell(n, n - 1 - l, k)];
        rho[cell(n, n + l, k)] = rho[cell(n, l, k)];
        rho[cell(n, k, -1 - l)] = rho[cell(n, k, n - 1 - l)];
        rho[cell(n, k, n + l)] = rho[cell(n, k, l)];
      }
    all_fluxes(rho, n, s.u, s.v, s.order, fx, gy);
    apply_fluxes(rho, next, n, fx, gy, nu);
    std::swap(rho, next);
  }
  return rho;
}

}  // namespace amr
