// LeanMD's command line (options.hpp).
#include "options.hpp"

#include <charconv>
#include <cstdio>
#include <string>

#include "command_line.hpp"

namespace leanmd {
namespace {

constexpr roam_apps::usage_text usage{"leanmd", R"(usage: leanmd [X Y Z [STEPS]] [options] [+p N and other runtime options]
  X Y Z                 the box in cells (default 4 4 4); each cell is (cutoff + margin) / k wide
  STEPS                 time steps (default 100); also --steps N
  --preset NAME         charm: Charm++'s LeanMD example (300 atoms per cell, cutoff 12 A, margin 4 A,
                               A = 1.60694452e-134, B = 1.031093844e-77, migration every 20 steps) [default]
                        seed:  the HPC Challenge submission's Table 5 (700 atoms per cell, cutoff 26 A,
                               margin 2 A, A = 1.1328e-133, B = 2.23224e-76, time step 1 fs)
  --k K                 pair cells up to K apart (cells (cutoff + margin) / K wide; default 1)
  --atoms N[:M]         atoms per cell: N, or from N in the first cell to M in the last (imbalanced)
  --migrate-every M     move atoms between cells every M steps
  --lb-period L         at_sync every L steps for the load balancer (+balancer NAME or +MetaLB; with a
                        balancer and no --lb-period: 20)
  --print-every P       energies, time per step and load imbalance every P steps (default 10)
  --checkpoint-every C  disk checkpoint after every C steps into the checkpoint directory (the newest
                        two are kept)
  --checkpoint-dir DIR  where checkpoints go (default leanmd-checkpoints); "memory": in memory, with a
                        copy at another process, to survive a failed process (roamrun --ft)
  --checkpoint-not-durable  no fsync: a checkpoint survives the program's death, not the machine's
  --restart DIR         go on from the newest checkpoint in DIR (or a checkpoint directory itself), on
                        any number of PEs and processes: the same as the runtime option +restart DIR
  --seed S              initial state (default 1): the same on any number of PEs
  --v0 V                initial velocity components uniform in [-V, V] A/fs (default 0.005)
  --dt T                time step in fs (default 1)
  --tolerance T         largest relative drift of the total energy before the run fails (default 1e-5)
  --multicast KIND      section: a section multicast, one message per PE [default]; direct: one message
                        per compute (either way the computes of a process share one copy of the positions)
  --forces KIND         reduction: a section reduction per cell and step (3-10% faster) [default];
                        count: each compute sends each cell its forces, summed in slot order, so the
                        energies are the same to the last bit on any number of PEs and processes
  --verify-forces / --no-verify-forces
                        check the forces against a serial O(N^2) computation at the first and last step
                        (default: on up to 30000 atoms)
  -h, --help            this text
Exit status: 0 when energy is conserved within the tolerance (and forces match), 1 otherwise, 2 on bad arguments.
)",
                                      "leanmd 4 4 4 100 --atoms 100 --lb-period 20 +p4 +balancer GreedyRefine"};

template <class T>
bool number(const std::string& s, T& out) {
  if constexpr (std::is_floating_point_v<T>) {
    try {
      std::size_t used = 0;
      out = static_cast<T>(std::stod(s, &used));
      return used == s.size();
    } catch (const std::exception&) {
      return false;
    }
  } else {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size();
  }
}

}  // namespace

std::optional<config> parse_options(const roam::args& a, int& exit_code) {
  config c;
  std::vector<std::string> positional;
  bool verify_given = false, lb_given = false;
  std::string error;
  auto value = [&](std::size_t& i) -> std::string {
    if (i + 1 >= a.size()) {
      error = a[i] + " needs a value";
      return {};
    }
    return a[++i];
  };
  for (std::size_t i = 1; i < a.size() && error.empty(); ++i) {
    const std::string& o = a[i];
    auto want = [&](auto& field, const char* what) {
      if (std::string v = value(i); error.empty() && !number(v, field)) error = o + ": '" + v + "' is not " + what;
    };
    if (roam_apps::is_help(o)) {
      roam_apps::print_usage(stdout, usage);
      exit_code = 0;
      return std::nullopt;
    } else if (o == "--preset") {
      const std::string v = value(i);
      if (v == "seed") {
        c.preset = v;
        c.A = 1.1328e-133, c.B = 2.23224e-76, c.atoms_first = c.atoms_last = 700, c.cutoff = 26, c.margin = 2;
      } else if (v != "charm" && error.empty()) {
        error = "--preset: unknown preset '" + v + "' (charm or seed)";
      }
    } else if (o == "--steps")
      want(c.steps, "a number of steps");
    else if (o == "--k")
      want(c.k, "a whole number");
    else if (o == "--atoms") {
      const std::string v = value(i);
      const auto colon = v.find(':');
      if (!number(v.substr(0, colon), c.atoms_first) ||
          !number(colon == std::string::npos ? v : v.substr(colon + 1), c.atoms_last))
        error = "--atoms: '" + v + "' is not N or N:M";
    } else if (o == "--migrate-every")
      want(c.migrate_every, "a number of steps");
    else if (o == "--lb-period") {
      want(c.lb_period, "a number of steps");
      lb_given = true;
    } else if (o == "--print-every")
      want(c.print_every, "a number of steps");
    else if (o == "--checkpoint-every")
      want(c.checkpoint_every, "a number of steps");
    else if (o == "--checkpoint-dir")
      c.checkpoint_dir = value(i);
    else if (o == "--checkpoint-not-durable")
      c.checkpoint_durable = false;
    else if (o == "--seed")
      want(c.seed, "a whole number");
    else if (o == "--v0")
      want(c.v0, "a velocity");
    else if (o == "--dt")
      want(c.dt, "a time step");
    else if (o == "--tolerance")
      want(c.tolerance, "a number");
    else if (o == "--multicast") {
      const std::string v = value(i);
      if (v == "section" || v == "direct")
        c.section_multicast = v == "section";
      else if (error.empty())
        error = "--multicast: '" + v + "' is not section or direct";
    } else if (o == "--forces") {
      const std::string v = value(i);
      if (v == "count" || v == "reduction")
        c.reduce_forces = v == "reduction";
      else if (error.empty())
        error = "--forces: '" + v + "' is not count or reduction";
    } else if (o == "--verify-forces" || o == "--no-verify-forces") {
      c.verify_forces = o == "--verify-forces";
      verify_given = true;
    } else if (!o.empty() && o[0] == '-')
      error = "unknown option " + o;
    else
      positional.push_back(o);
  }
  if (error.empty() && positional.size() != 0 && positional.size() != 3 && positional.size() != 4)
    error = "give the box as X Y Z [STEPS]";
  for (std::size_t d = 0; error.empty() && d < positional.size(); ++d) {
    int& field = d < 3 ? c.cells[d] : c.steps;
    if (!number(positional[d], field)) error = "'" + positional[d] + "' is not a whole number";
  }
  if (error.empty()) {
    if (c.k < 1 || c.k > 3)
      error = "--k must be 1, 2 or 3";
    else if (c.cells[0] < 2 * c.k || c.cells[1] < 2 * c.k || c.cells[2] < 2 * c.k)
      error = "the box needs at least 2k cells in each dimension";
    else if (static_cast<long long>(c.cells[0]) * c.cells[1] * c.cells[2] > (1 << 20))
      error = "at most 2^20 cells";
    else if (c.steps < 0)
      error = "STEPS must not be negative";
    else if (c.atoms_first < 1 || c.atoms_last < 1 || c.atoms_first > 100000 || c.atoms_last > 100000)
      error = "--atoms: 1 to 100000 atoms per cell";
    else if (c.migrate_every < 1 || c.print_every < 1 || c.lb_period < 0 || c.checkpoint_every < 0)
      error = "--migrate-every and --print-every must be at least 1, --lb-period and --checkpoint-every not negative";
    else if (!(c.dt > 0) || !(c.v0 >= 0) || !(c.tolerance >= 0))
      error = "--dt must be positive, --v0 and --tolerance not negative";
  }
  if (!error.empty()) {
    std::fprintf(stderr, "leanmd: %s\n", error.c_str());
    roam_apps::print_usage(stderr, usage);
    exit_code = 2;
    return std::nullopt;
  }
  long long total = 0;
  for (int n = 0; n < c.cell_count(); ++n) total += c.atoms_in(n);
  if (!verify_given) c.verify_forces = total <= 30000;
  if (!lb_given && roam::load_balancing_enabled()) c.lb_period = 20;
  return c;
}

void print_configuration(const config& c) {
  long long total = 0;
  for (int n = 0; n < c.cell_count(); ++n) total += c.atoms_in(n);
  const int w = 2 * c.k + 1;
  std::printf("leanmd: %dx%dx%d cells of %.3g A (%s preset), %lld atoms, %d computes, %d steps of %g fs on %u PEs\n",
              c.cells[0], c.cells[1], c.cells[2], c.cell_width(), c.preset.c_str(), total,
              c.cell_count() * (w * w * w / 2 + 1), c.steps, c.dt, roam::num_pes());
  std::printf(
      "leanmd: cutoff %g A, A = %g, B = %g, atoms change cells every %d steps, %s, %s multicast, forces %s\n", c.cutoff,
      c.A, c.B, c.migrate_every,
      c.lb_period > 0 ? ("at_sync every " + std::to_string(c.lb_period) + " steps").c_str() : "no load balancing",
      c.section_multicast ? "section" : "direct", c.reduce_forces ? "reduced" : "counted");
  std::fflush(stdout);
}

}  // namespace leanmd
