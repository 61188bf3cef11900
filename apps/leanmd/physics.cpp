// The force kernel, the initial state and the serial reference (physics.hpp).
#include "physics.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <numeric>

namespace leanmd {

constants::constants(const config& c)
    : ka(c.A * 1e100 / c.mass),
      kb(c.B * 1e40 / c.mass),
      ka11(ka / 11),
      kb5(kb / 5),
      rc2(c.cutoff * c.cutoff),
      ushift(ka11 / std::pow(c.cutoff, 11) - kb5 / std::pow(c.cutoff, 5)),
      ev_per_unit(c.mass * 1e10 / 1.602176634e-19) {}

namespace {

// Both lists are sorted by x, so atom i of `a` need only look at the window
// of `b` less than a cutoff away in x (about half of `b` for neighbouring
// cells); the window slides as i grows. Then three passes, so that the
// expensive part runs only within the cutoff (under a tenth of the window):
// squared distances and whether each j is within the cutoff (a plain loop
// the compiler vectorises), the j within gathered eight flags at a time,
// then the forces of those alone.
template <bool Self>
[[gnu::always_inline]] inline double interact(const constants& k, const double* a, int na, const double* b, int nb,
                                              const double* shift, double* fa, double* fb) {
  const double *ax = a, *ay = a + na, *az = a + 2 * na;
  const double *bx = b, *by = b + nb, *bz = b + 2 * nb;
  double *fax = fa, *fay = fa + na, *faz = fa + 2 * na;
  double *fbx = fb, *fby = fb + nb, *fbz = fb + 2 * nb;
  thread_local std::vector<double> d2_store;
  thread_local std::vector<int> near_store;
  thread_local std::vector<unsigned char> in_store;
  const std::size_t size = nb + 8;
  if (d2_store.size() < size) {
    d2_store.resize(size);
    near_store.resize(size);
    in_store.resize(size);
  }
  double* __restrict d2 = d2_store.data();
  int* __restrict near = near_store.data();
  unsigned char* __restrict in = in_store.data();
  double u = 0;
  const double cutoff = std::sqrt(k.rc2);
  int lo = 0, hi = 0;
  for (int i = 0; i < na; ++i) {
    const double xi = ax[i] - shift[0], yi = ay[i] - shift[1], zi = az[i] - shift[2];
    while (lo < nb && bx[lo] <= xi - cutoff) ++lo;
    while (hi < nb && bx[hi] < xi + cutoff) ++hi;
    const int j0 = Self ? i + 1 : lo, j1 = hi;
    for (int j = j0; j < j1; ++j) {
      const double dx = xi - bx[j], dy = yi - by[j], dz = zi - bz[j];
      d2[j] = dx * dx + dy * dy + dz * dz;
      in[j] = (d2[j] < k.rc2) & (d2[j] >= too_close2);
    }
    std::fill_n(in + std::max(j0, j1), 8, 0);  // the last word's bytes past the window
    int n = 0;
    for (int j = j0; j < j1; j += 8) {
      std::uint64_t word;
      std::memcpy(&word, in + j, 8);
      for (; word != 0; word &= word - 1) near[n++] = j + (std::countr_zero(word) >> 3);
    }
    double fx = 0, fy = 0, fz = 0, ui = 0;
    for (int c = 0; c < n; ++c) {
      const int j = near[c];
      const double dx = xi - bx[j], dy = yi - by[j], dz = zi - bz[j];
      const double ir = 1 / std::sqrt(d2[j]);
      const double ir2 = ir * ir, ir5 = ir2 * ir2 * ir, ir6 = ir5 * ir;
      const double s = ir6 * ir * (k.ka * ir6 - k.kb);  // ka / r^13 - kb / r^7
      ui += ir5 * (k.ka11 * ir6 - k.kb5) - k.ushift;
      fx += s * dx;
      fy += s * dy;
      fz += s * dz;
      fbx[j] -= s * dx;
      fby[j] -= s * dy;
      fbz[j] -= s * dz;
    }
    fax[i] += fx;
    fay[i] += fy;
    faz[i] += fz;
    u += ui;
  }
  return u;
}

}  // namespace

// One copy of each kernel per instruction set, chosen when the program loads
// (not under the sanitizers, whose start-up the loader's choice would precede).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#define LEANMD_CLONES [[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]]
#else
#define LEANMD_CLONES
#endif

LEANMD_CLONES double pair_forces(const constants& k, const double* a, int na, const double* b, int nb,
                                 const double shift[3], double* fa, double* fb) {
  return interact<false>(k, a, na, b, nb, shift, fa, fb);
}

LEANMD_CLONES double self_forces(const constants& k, const double* a, int n, double* fa) {
  const double none[3] = {0, 0, 0};
  return interact<true>(k, a, n, a, n, none, fa, fa);
}

void atoms::sort_by_x() {
  const auto n = static_cast<std::size_t>(size());
  auto before = [&](std::size_t a, std::size_t b) { return pos[a] < pos[b] || (pos[a] == pos[b] && id[a] < id[b]); };
  bool sorted = true;
  for (std::size_t i = 1; i < n && sorted; ++i) sorted = before(i - 1, i);
  if (sorted) return;
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), before);
  atoms out;
  out.id.resize(n);
  out.pos.resize(3 * n);
  out.vel.resize(3 * n);
  for (std::size_t i = 0; i < n; ++i) {
    out.id[i] = id[order[i]];
    for (std::size_t c = 0; c < 3; ++c) {
      out.pos[c * n + i] = pos[c * n + order[i]];
      out.vel[c * n + i] = vel[c * n + order[i]];
    }
  }
  *this = std::move(out);
}

namespace {
// splitmix64: a small generator whose stream is the same on every platform.
struct stream {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
};
}  // namespace

atoms initial_atoms(const config& conf, std::array<int, 3> cell) {
  const int number = cell[0] + conf.cells[0] * (cell[1] + conf.cells[1] * cell[2]);
  const int n = conf.atoms_in(number);
  stream rng{conf.seed * 0x100000001b3ULL + static_cast<std::uint64_t>(number)};
  const int m = static_cast<int>(std::ceil(std::cbrt(static_cast<double>(n)) - 1e-9));
  const double w = conf.cell_width(), h = w / m;
  // n of the m³ lattice sites, in random order (a partial Fisher-Yates shuffle).
  std::vector<int> sites(m * m * m);
  std::iota(sites.begin(), sites.end(), 0);
  for (int i = 0; i < n; ++i) std::swap(sites[i], sites[i + rng.next() % (m * m * m - i)]);
  atoms out;
  out.id.resize(n);
  out.pos.resize(3 * n);
  out.vel.resize(3 * n);
  for (int i = 0; i < n; ++i) {
    out.id[i] = (static_cast<std::int64_t>(number) << 24) + i;
    const int site[3] = {sites[i] % m, sites[i] / m % m, sites[i] / (m * m)};
    for (int d = 0; d < 3; ++d) {
      out.pos[d * n + i] = cell[d] * w + (site[d] + 0.25 + 0.5 * rng.uniform()) * h;
      out.vel[d * n + i] = (2 * rng.uniform() - 1) * conf.v0;
    }
  }
  return out;
}

}  // namespace leanmd
