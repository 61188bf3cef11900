#pragma once
// LeanMD's physics, with no parallelism in it: the parameters, the initial
// state, the force kernel and the serial reference the parallel run is
// checked against.
//
// Units. Positions in Å, time in fs, velocities in Å/fs, every atom a
// hydrogen atom of mass m. The pair force is the seed's eq. (2),
//   F = (A / r^13 - B / r^7) r_vec          (SI: A in N m^12, B in N m^6),
// applied within the cutoff. Dividing by m and converting to Å and fs gives
// the acceleration the kernel computes, a = (ka / r^13 - kb / r^7) r_vec
// with r in Å (ka = A 1e100 / m, kb = B 1e40 / m). Its potential, shifted to
// zero at the cutoff so that energy is continuous there, is
//   u(r) = ka / (11 r^11) - kb / (5 r^5) - u(r_c)        (per unit mass, Å²/fs²)
// and energies are reported in eV (E = m u 1e10 J).
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <roam/msg/pup.hpp>

namespace leanmd {

struct config {
  std::string preset = "charm";
  std::array<int, 3> cells{4, 4, 4};  ///< the box, in cells
  int k = 1;                          ///< computes pair cells up to k apart in each dimension
  int steps = 100;
  double A = 1.60694452e-134, B = 1.031093844e-77;  ///< eq. (2), SI
  int atoms_first = 300, atoms_last = 300;          ///< atoms per cell, linear in the cell's number
  double cutoff = 12, margin = 4;                   ///< Å; a cell is (cutoff + margin) / k wide
  double dt = 1;                                    ///< fs
  double mass = 1.67e-27;                           ///< kg (hydrogen)
  double v0 = 0.005;                                ///< Å/fs: initial velocity components in [-v0, v0]
  int migrate_every = 20;                           ///< atoms change cells every this many steps
  int lb_period = 0;                                ///< at_sync every this many steps (0: never)
  int print_every = 10;                             ///< energies and timing every this many steps
  int checkpoint_every = 0;                         ///< disk checkpoint after every this many steps (0: never)
  std::string checkpoint_dir = "leanmd-checkpoints";
  bool checkpoint_durable = true;  ///< fsync every checkpoint file (roam::checkpoint_options::durable)
  std::uint64_t seed = 1;
  double tolerance = 1e-5;  ///< largest relative drift of the total energy
  bool verify_forces = true;
  bool section_multicast = true;  ///< positions to computes by section multicast, else one send each
  bool reduce_forces = true;      ///< forces back by section reductions, else one message per compute (same bits)

  template <class P>
  void pup(P& p) {
    p | preset | cells | k | steps | A | B | atoms_first | atoms_last | cutoff | margin | dt | mass | v0 |
        migrate_every | lb_period | print_every | checkpoint_every | checkpoint_dir | checkpoint_durable | seed | tolerance | verify_forces |
        section_multicast | reduce_forces;
  }
  double cell_width() const { return (cutoff + margin) / k; }
  int cell_count() const { return cells[0] * cells[1] * cells[2]; }
  /// Atoms cell number `c` starts with.
  int atoms_in(int c) const {
    return atoms_first + static_cast<int>(static_cast<long long>(c) * (atoms_last - atoms_first) / cell_count());
  }
};

/// Pairs closer than this are skipped, as Charm++'s LeanMD skips them (coincident atoms).
inline constexpr double too_close2 = 0.001;

/// The kernel's constants, derived from the configuration.
struct constants {
  explicit constants(const config& c);
  double ka, kb;       ///< acceleration: (ka / r^13 - kb / r^7) r_vec
  double ka11, kb5;    ///< potential: ka11 / r^11 - kb5 / r^5
  double rc2;          ///< cutoff squared
  double ushift;       ///< the unshifted potential at the cutoff
  double ev_per_unit;  ///< eV per unit of per-mass energy (Å²/fs²)
};

/// Accelerations the atoms of `a` and `b` exert on each other, added to `fa`
/// and `fb`; `b`'s atoms are taken at their positions plus `shift` (the
/// periodic image next to `a`). Positions and accelerations are structures
/// of arrays, x[0..n), y[0..n), z[0..n), each list sorted by x (cells keep
/// their atoms so). Returns the pairs' potential.
double pair_forces(const constants& k, const double* a, int na, const double* b, int nb, const double shift[3],
                   double* fa, double* fb);
/// The same within one cell (each pair once).
double self_forces(const constants& k, const double* a, int n, double* fa);

/// A cell's atoms: identities, then positions and velocities as structures of arrays.
struct atoms {
  std::vector<std::int64_t> id;
  std::vector<double> pos, vel;  ///< 3n each: x block, y block, z block
  int size() const { return static_cast<int>(id.size()); }
  /// Orders the atoms by (x, id), as the kernel wants them: the same order
  /// on any PE count. (They move little between steps: nearly sorted.)
  void sort_by_x();
  template <class P>
  void pup(P& p) {
    p | id | pos | vel;
  }
};

/// Atoms on their way to another cell: per atom x, y, z, vx, vy, vz.
struct travellers {
  std::vector<std::int64_t> id;
  std::vector<double> state;
  void add(const atoms& from, int i) {
    const std::size_t n = from.size(), k = i;
    id.push_back(from.id[k]);
    for (std::size_t c = 0; c < 3; ++c) state.push_back(from.pos[c * n + k]);
    for (std::size_t c = 0; c < 3; ++c) state.push_back(from.vel[c * n + k]);
  }
  template <class P>
  void pup(P& p) {
    p | id | state;
  }
};

/// Cell `c`'s (x, y, z) initial atoms: a jittered lattice (no two atoms
/// closer than half the lattice spacing), velocities uniform in [-v0, v0],
/// all from the seed and the cell's number only.
atoms initial_atoms(const config& cfg, std::array<int, 3> cell);

/// One atom with its acceleration, as gathered for the serial check.
struct probe {
  std::int64_t id;
  double pos[3], acc[3];
};

/// The serial reference: every pair of the box (minimum image), O(N²).
/// Fills acc in `all` (sorted by id) and returns the total potential.
double serial_forces(const config& cfg, std::vector<probe>& all);

}  // namespace leanmd

template <>
inline constexpr bool roam::bitwise_serializable<leanmd::probe> = true;
