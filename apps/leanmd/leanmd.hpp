#pragma once
// LeanMD: Lennard-Jones molecular dynamics over cells and computes, the
// programming model's showcase. Its objects (this file; cells.cpp,
// computes.cpp, driver.cpp), physics (physics.hpp) and command line
// (options.hpp).
//
// The box is a 3-D array of cells, each owning the atoms inside it, and a
// sparse 6-D array of computes, one per pair of cells up to k apart (and one
// per cell with itself): compute (x1, y1, z1, x2, y2, z2) pairs cell 1 with
// cell 2's periodic image next to it. Every object's life is one coroutine,
// run(), as leanmd.ci's run() functions are in Charm++:
//   cell:    each step, multicast positions to its computes; take the
//            accelerations of each compute (one per slot, summed in slot
//            order so that every PE count gives the same bits); integrate
//            (velocity Verlet); every M steps hand atoms that left to the
//            neighbour that now holds them; every L steps at_sync.
//   compute: each step, take the positions of its two cells, evaluate the
//            forces within the cutoff, send each cell its accelerations.
//   driver:  takes the energy and load reductions, prints progress and the
//            verification (energy drift, forces against a serial O(N²) run).
// Positions travel as roam::buffer: a multicast shares one copy in a process.
#include <array>
#include <chrono>
#include <tuple>
#include <vector>

#include <roam/roam.hpp>

#include "physics.hpp"

namespace leanmd {

/// The run's configuration, the same on every PE.
inline roam::readonly<config> cfg;

using cell_index = roam::index<3>;
using compute_index = roam::index<6>;
using busy_clock = std::chrono::steady_clock;

inline int wrap(int v, int n) { return (v % n + n) % n; }
inline int number_of(const cell_index& c) { return c[0] + cfg->cells[0] * (c[1] + cfg->cells[1] * c[2]); }
inline std::uint32_t pe_of_cell(int number, std::uint32_t pes) {
  return static_cast<std::uint32_t>(static_cast<std::int64_t>(number) * pes / cfg->cell_count());
}
// Cells in blocks of consecutive numbers; a compute starts beside its first cell.
inline std::uint32_t cell_home(const cell_index& c, const cell_index&, std::uint32_t pes) {
  return pe_of_cell(number_of(c), pes);
}
inline std::uint32_t compute_home(const compute_index& i, std::uint32_t pes) {
  return pe_of_cell(number_of({i[0], i[1], i[2]}), pes);
}

// A cell's slots: the (2k+1)³ offsets d to the cells it interacts with,
// numbered x-major. The compute of offset d >= 0 (slot >= mid) is the
// cell's own: (c, c + d); the one of -d belongs to the cell at c - d.
inline int width() { return 2 * cfg->k + 1; }
inline int slots() { return width() * width() * width(); }
inline std::array<int, 3> offset_of(int slot) {
  return {slot / (width() * width()) - cfg->k, slot / width() % width() - cfg->k, slot % width() - cfg->k};
}
inline int slot_of(std::array<int, 3> d) {
  return ((d[0] + cfg->k) * width() + d[1] + cfg->k) * width() + d[2] + cfg->k;
}
inline compute_index compute_of(const cell_index& c, int slot) {
  const auto d = offset_of(slot);
  if (slot >= slots() / 2) return {c[0], c[1], c[2], c[0] + d[0], c[1] + d[1], c[2] + d[2]};
  const cell_index o{wrap(c[0] + d[0], cfg->cells[0]), wrap(c[1] + d[1], cfg->cells[1]),
                     wrap(c[2] + d[2], cfg->cells[2])};
  return {o[0], o[1], o[2], o[0] - d[0], o[1] - d[1], o[2] - d[2]};
}

inline bool report_step(int s) { return s == 0 || s == cfg->steps || s % cfg->print_every == 0; }
inline bool sync_after(int s) { return cfg->lb_period > 0 && (s + 1) % cfg->lb_period == 0; }
/// Whether the cells pause after step `s` for a disk checkpoint.
inline bool checkpoint_after(int s) {
  return cfg->checkpoint_every > 0 && (s + 1) % cfg->checkpoint_every == 0 && s < cfg->steps;
}
/// This PE's share of a load report: `busy` seconds at this PE's place (and `busy` reset).
inline std::vector<double> busy_by_pe(double& busy) {
  std::vector<double> v(roam::num_pes(), 0.0);
  v[roam::my_pe().value()] = std::exchange(busy, 0.0);
  return v;
}

struct driver;
struct compute;

struct cell : roam::element<cell, cell_index> {
  static constexpr auto restart_entry() { return &cell::run; }
  roam::mailbox<int, int, roam::buffer<double>, double> forces;        // (step, slot, accelerations, potential)
  roam::mailbox<int, travellers> arrivals;                             // (step, atoms that moved in)
  roam::mailbox<int> resumed;                                          // (step) after a balancing step or checkpoint
  roam::mailbox<int, std::tuple<std::vector<double>, double>> summed;  // (step, forces) with --forces reduction

  cell() = default;
  explicit cell(roam::migrating) {}
  cell(roam::array_proxy<compute> computes, roam::chare_proxy<driver> d);
  void pup(roam::pup_er& p) {
    p | forces | arrivals | resumed | summed | computes_ | section_ | driver_ | atoms_ | step_ | synced_ | paused_ |
        busy_ | moved_;
  }
  void resume_from_sync() { this_proxy().send<&cell::resumed>(step_); }
  roam::task<> run();

 private:
  void send_positions();
  void integrate(const std::vector<double>& acc, bool finish_step, bool start_step);
  travellers send_leavers();
  void take_arrivals(const std::vector<travellers>& in);
  void report(const std::vector<double>& acc, double potential);

  roam::array_proxy<compute> computes_;
  roam::section_proxy<compute> section_;
  roam::chare_proxy<driver> driver_;
  atoms atoms_;
  int step_ = 0;
  bool synced_ = false;  // at_sync called for step_, resume not yet taken
  bool paused_ = false;  // waiting after step_ for the checkpoint to be written
  double busy_ = 0;      // seconds of work since the last report
  int moved_ = 0;        // atoms sent to other cells since the last report
};

struct compute : roam::element<compute, compute_index> {
  static constexpr auto restart_entry() { return &compute::run; }
  roam::mailbox<int, int, roam::buffer<double>> positions;  // (step, cell number, positions)
  roam::mailbox<int> resumed;
  roam::mailbox<int, roam::section_proxy<compute>> joined;  // (cell number, its section) with --forces reduction

  compute() = default;
  explicit compute(roam::migrating) {}
  compute(roam::array_proxy<cell> cells, roam::chare_proxy<driver> d) : cells_(cells), driver_(d) {}
  void pup(roam::pup_er& p) {
    p | positions | resumed | joined | cells_ | driver_ | of_a_ | of_b_ | step_ | synced_ | busy_;
  }
  void resume_from_sync() { this_proxy().send<&compute::resumed>(step_); }
  roam::task<> run();

 private:
  void reduce(const roam::section_proxy<compute>& to, const cell_index& c, const roam::buffer<double>& f, double u);

  roam::array_proxy<cell> cells_;
  roam::chare_proxy<driver> driver_;
  roam::section_proxy<compute> of_a_, of_b_;  // the sections of its cells, with --forces reduction
  int step_ = 0;
  bool synced_ = false;
  double busy_ = 0;
};

// Runs on PE 0 and is never balanced (no resume_from_sync), like Charm++'s main chare.
struct driver : roam::chare<driver> {
  static constexpr auto restart_entry() { return &driver::run; }
  roam::mailbox<int, std::array<double, 3>> energies;  // (step, {kinetic, potential, atoms moved}) in cell order
  roam::mailbox<int, std::vector<double>> loads;       // (step, busy seconds per PE): cells, then computes
  roam::mailbox<int, std::vector<std::vector<probe>>> probes;  // (step, atoms with accelerations) for the check
  roam::mailbox<int> paused;                                   // (step) every cell waits for the checkpoint
  roam::mailbox<int, roam::checkpoint_result> saved;           // (step, the checkpoint's outcome)

  driver() = default;
  explicit driver(roam::migrating) {}
  void start(roam::array_proxy<cell> cells) { cells_ = cells; }
  roam::task<> run();
  void pup(roam::pup_er& p) {
    p | energies | loads | probes | paused | saved | cells_ | step_ | reported_ | asked_ | first_ | worst_ | final_ |
        stepping_ | moved_ | checks_;
  }

 private:
  void report(int s, const std::array<double, 3>& e, std::vector<double> busy);
  int verify();

  roam::array_proxy<cell> cells_;
  // Where run() is (it restarts from here after a checkpoint): the step, and
  // whether its report was taken and its checkpoint asked for.
  int step_ = 0;
  bool reported_ = false, asked_ = false;
  double first_ = 0, worst_ = 0, final_ = 0, stepping_ = 0;
  long moved_ = 0;
  std::vector<std::tuple<int, double, std::vector<std::vector<probe>>>> checks_;  // (step, potential, atoms)
  // Progress timing: not state (a restarted run starts its own clock).
  busy_clock::time_point last_ = busy_clock::now();
  int last_step_ = 0;
  busy_clock::time_point pause_began_;
  busy_clock::duration excluded_{};  // checkpoints since the last progress line
  std::uint32_t balanced_ = 0;
};

}  // namespace leanmd
