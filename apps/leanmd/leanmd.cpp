// LeanMD: Lennard-Jones molecular dynamics over cells and computes, the
// programming model's showcase (physics in physics.hpp, command line in
// options.cpp).
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
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>

#include <roam/roam.hpp>

#include "options.hpp"
#include "physics.hpp"

namespace leanmd {

roam::readonly<config> cfg;

using cell_index = roam::index<3>;
using compute_index = roam::index<6>;
using busy_clock = std::chrono::steady_clock;

int wrap(int v, int n) { return (v % n + n) % n; }
int number_of(const cell_index& c) { return c[0] + cfg->cells[0] * (c[1] + cfg->cells[1] * c[2]); }
std::uint32_t pe_of_cell(int number, std::uint32_t pes) {
  return static_cast<std::uint32_t>(static_cast<std::int64_t>(number) * pes / cfg->cell_count());
}
// Cells in blocks of consecutive numbers; a compute starts beside its first cell.
std::uint32_t cell_home(const cell_index& c, const cell_index&, std::uint32_t pes) { return pe_of_cell(number_of(c), pes); }
std::uint32_t compute_home(const compute_index& i, std::uint32_t pes) {
  return pe_of_cell(number_of({i[0], i[1], i[2]}), pes);
}

// A cell's slots: the (2k+1)³ offsets d to the cells it interacts with,
// numbered x-major. The compute of offset d >= 0 (slot >= mid) is the
// cell's own: (c, c + d); the one of -d belongs to the cell at c - d.
int width() { return 2 * cfg->k + 1; }
int slots() { return width() * width() * width(); }
std::array<int, 3> offset_of(int slot) { return {slot / (width() * width()) - cfg->k, slot / width() % width() - cfg->k, slot % width() - cfg->k}; }
int slot_of(std::array<int, 3> d) { return ((d[0] + cfg->k) * width() + d[1] + cfg->k) * width() + d[2] + cfg->k; }
compute_index compute_of(const cell_index& c, int slot) {
  const auto d = offset_of(slot);
  if (slot >= slots() / 2) return {c[0], c[1], c[2], c[0] + d[0], c[1] + d[1], c[2] + d[2]};
  const cell_index o{wrap(c[0] + d[0], cfg->cells[0]), wrap(c[1] + d[1], cfg->cells[1]), wrap(c[2] + d[2], cfg->cells[2])};
  return {o[0], o[1], o[2], o[0] - d[0], o[1] - d[1], o[2] - d[2]};
}

bool report_step(int s) { return s == 0 || s == cfg->steps || s % cfg->print_every == 0; }
bool sync_after(int s) { return cfg->lb_period > 0 && (s + 1) % cfg->lb_period == 0; }

struct driver;
struct compute;

struct cell : roam::element<cell, cell_index> {
  static constexpr auto restart_entry() { return &cell::run; }
  roam::mailbox<int, int, roam::buffer<double>, double> forces;  // (step, slot, accelerations, potential)
  roam::mailbox<int, travellers> arrivals;                       // (step, atoms that moved in)
  roam::mailbox<int> resumed;                                    // (step) after a balancing step

  cell() = default;
  explicit cell(roam::migrating) {}
  cell(roam::array_proxy<compute> computes, roam::chare_proxy<driver> d);
  void pup(roam::pup_er& p) { p | forces | arrivals | resumed | computes_ | section_ | driver_ | atoms_ | step_ | synced_ | busy_; }
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
  double busy_ = 0;      // seconds of work since the last report
};

struct compute : roam::element<compute, compute_index> {
  static constexpr auto restart_entry() { return &compute::run; }
  roam::mailbox<int, int, roam::buffer<double>> positions;  // (step, cell number, positions)
  roam::mailbox<int> resumed;

  compute() = default;
  explicit compute(roam::migrating) {}
  compute(roam::array_proxy<cell> cells, roam::chare_proxy<driver> d) : cells_(cells), driver_(d) {}
  void pup(roam::pup_er& p) { p | positions | resumed | cells_ | driver_ | step_ | synced_ | busy_; }
  void resume_from_sync() { this_proxy().send<&compute::resumed>(step_); }
  roam::task<> run();

 private:
  roam::array_proxy<cell> cells_;
  roam::chare_proxy<driver> driver_;
  int step_ = 0;
  bool synced_ = false;
  double busy_ = 0;
};

// Runs on PE 0 and is never balanced (no resume_from_sync), like Charm++'s main chare.
struct driver : roam::chare<driver> {
  roam::mailbox<int, std::array<double, 2>> energies;        // (step, {kinetic, potential}) in cell order
  roam::mailbox<int, std::vector<double>> loads;             // (step, busy seconds per PE): cells, then computes
  roam::mailbox<int, std::vector<std::vector<probe>>> probes;  // (step, atoms with accelerations) for the check
  roam::task<> run(roam::promise<int> exit_code);
};

cell::cell(roam::array_proxy<compute> computes, roam::chare_proxy<driver> d)
    : computes_(computes), driver_(d), atoms_(initial_atoms(*cfg, {this_index()[0], this_index()[1], this_index()[2]})) {
  std::vector<compute_index> mine;
  for (int s = 0; s < slots(); ++s) mine.push_back(compute_of(this_index(), s));
  section_ = roam::section_proxy<compute>::of(computes, mine);
}

std::vector<double> busy_by_pe(double& busy) {
  std::vector<double> v(roam::num_pes(), 0.0);
  v[roam::my_pe().value()] = std::exchange(busy, 0.0);
  return v;
}

roam::task<> cell::run() {
  const int n_slots = slots();
  std::vector<roam::buffer<double>> by_slot(static_cast<std::size_t>(n_slots));
  std::vector<double> potential_by_slot(static_cast<std::size_t>(n_slots));
  std::vector<travellers> in;
  for (;; ++step_) {
    if (!synced_) {
      atoms_.sort_by_x();
      send_positions();
      for (int k = 0; k < n_slots; ++k) {
        auto [s, slot, acc, u] = co_await forces.receive(step_);
        by_slot[static_cast<std::size_t>(slot)] = std::move(acc);
        potential_by_slot[static_cast<std::size_t>(slot)] = u;
      }
      const auto t0 = busy_clock::now();
      std::vector<double> acc(atoms_.pos.size(), 0.0);
      double potential = 0;
      for (int slot = 0; slot < n_slots; ++slot) {  // slot order: the same sum on any PE count
        const auto& f = by_slot[static_cast<std::size_t>(slot)];
        for (std::size_t i = 0; i < acc.size(); ++i) acc[i] += f[i];
        potential += potential_by_slot[static_cast<std::size_t>(slot)];
      }
      integrate(acc, step_ > 0, false);
      busy_ += std::chrono::duration<double>(busy_clock::now() - t0).count();
      if (report_step(step_)) report(acc, potential);
      if (step_ == cfg->steps) break;
      integrate(acc, false, true);
      if ((step_ + 1) % cfg->migrate_every == 0) {
        in.assign(1, send_leavers());
        for (int k = 0; k < 26; ++k) in.push_back(std::get<1>(co_await arrivals.receive(step_)));
        take_arrivals(in);
      }
      if (sync_after(step_)) {
        synced_ = true;
        at_sync();
      }
    }
    if (synced_) {
      co_await resumed.receive(step_);
      synced_ = false;
    }
  }
}

void cell::send_positions() {
  roam::buffer<double> pos{std::span<const double>(atoms_.pos)};
  const int me = number_of(this_index());
  if (cfg->section_multicast) {
    section_.send<&compute::positions>(step_, me, pos);
  } else {
    for (int s = 0; s < slots(); ++s) computes_[compute_of(this_index(), s)].send<&compute::positions>(step_, me, pos);
  }
}

// Velocity Verlet as kick, drift, kick: finish_step completes the last
// step's velocities with the new accelerations; start_step kicks and drifts.
void cell::integrate(const std::vector<double>& acc, bool finish_step, bool start_step) {
  const double half = cfg->dt / 2;
  if (finish_step || start_step)
    for (std::size_t i = 0; i < acc.size(); ++i) atoms_.vel[i] += half * acc[i];
  if (start_step)
    for (std::size_t i = 0; i < acc.size(); ++i) atoms_.pos[i] += cfg->dt * atoms_.vel[i];
}

void cell::report(const std::vector<double>& acc, double potential) {
  double kinetic = 0;
  for (double v : atoms_.vel) kinetic += v * v / 2;
  contribute(std::array<double, 2>{kinetic, potential}, roam::deterministic(roam::sum),
             roam::callback<std::array<double, 2>>::to<&driver::energies>(driver_, step_));
  contribute(busy_by_pe(busy_), roam::sum, roam::callback<std::vector<double>>::to<&driver::loads>(driver_, step_));
  if (cfg->verify_forces && (step_ == 0 || step_ == cfg->steps)) {
    const int n = atoms_.size();
    std::vector<probe> mine(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      probe& p = mine[static_cast<std::size_t>(i)];
      p.id = atoms_.id[static_cast<std::size_t>(i)];
      for (int d = 0; d < 3; ++d) {
        p.pos[d] = atoms_.pos[static_cast<std::size_t>(d * n + i)];
        p.acc[d] = acc[static_cast<std::size_t>(d * n + i)];
      }
    }
    contribute(mine, roam::concat, roam::callback<std::vector<std::vector<probe>>>::to<&driver::probes>(driver_, step_));
  }
}

// Every atom goes to the cell that now contains it: one message to each of
// the 26 neighbours (empty ones too, so each knows how many to take); returns
// the atoms that stay.
travellers cell::send_leavers() {
  const int n = atoms_.size();
  const double w = cfg->cell_width(), stray = w / 2 + cfg->margin / (2 * cfg->k);
  std::array<travellers, 27> out;  // by offset (dx + 1) * 9 + (dy + 1) * 3 + dz + 1; 13 stays
  for (int i = 0; i < n; ++i) {
    int to = 0;
    for (int c = 0; c < 3; ++c) {
      const double x = atoms_.pos[static_cast<std::size_t>(c * n + i)];
      // Between migrations an atom may stray at most margin / 2 out of its
      // cell, or pairs within the cutoff would be missed.
      if (std::abs(x - (this_index()[c] + 0.5) * w) > stray)
        roam::abort("leanmd: cell (" + std::to_string(this_index()[0]) + "," + std::to_string(this_index()[1]) + "," +
                    std::to_string(this_index()[2]) + ") run(): atom " + std::to_string(atoms_.id[static_cast<std::size_t>(i)]) +
                    " strayed more than margin/2 out of its cell; migrate more often (--migrate-every)");
      to = to * 3 + std::clamp(static_cast<int>(std::floor(x / w)) - this_index()[c], -1, 1) + 1;
    }
    out[static_cast<std::size_t>(to)].add(atoms_, i);
  }
  for (int k = 0; k < 27; ++k) {
    if (k == 13) continue;
    travellers& t = out[static_cast<std::size_t>(k)];
    cell_index to{this_index()[0] + k / 9 - 1, this_index()[1] + k / 3 % 3 - 1, this_index()[2] + k % 3 - 1};
    for (int c = 0; c < 3; ++c) {  // across the box's edge: into the periodic image
      const int inside = wrap(to[c], cfg->cells[static_cast<std::size_t>(c)]);
      for (std::size_t i = 0; i < t.id.size(); ++i) t.state[6 * i + static_cast<std::size_t>(c)] += (inside - to[c]) * w;
      to[c] = inside;
    }
    this_array()[to].send<&cell::arrivals>(step_, std::move(t));
  }
  return std::move(out[13]);
}

// Replaces the cell's atoms by its own and the arrivals (in any order:
// run() sorts them by (x, id) before the next send, the same on any PE count).
void cell::take_arrivals(const std::vector<travellers>& in) {
  std::vector<std::pair<std::int64_t, const double*>> all;
  for (const travellers& t : in)
    for (std::size_t i = 0; i < t.id.size(); ++i) all.emplace_back(t.id[i], &t.state[6 * i]);
  const std::size_t n = all.size();
  atoms_.id.resize(n);
  atoms_.pos.resize(3 * n);
  atoms_.vel.resize(3 * n);
  for (std::size_t i = 0; i < n; ++i) {
    atoms_.id[i] = all[i].first;
    for (std::size_t c = 0; c < 3; ++c) {
      atoms_.pos[c * n + i] = all[i].second[c];
      atoms_.vel[c * n + i] = all[i].second[3 + c];
    }
  }
}

roam::task<> compute::run() {
  const constants k(*cfg);
  const auto& i = this_index();
  const cell_index a{i[0], i[1], i[2]};
  const cell_index b{wrap(i[3], cfg->cells[0]), wrap(i[4], cfg->cells[1]), wrap(i[5], cfg->cells[2])};
  const std::array<int, 3> d{i[3] - i[0], i[4] - i[1], i[5] - i[2]};
  const bool self = d == std::array<int, 3>{};
  const double w = cfg->cell_width();
  const double shift[3] = {(i[3] - b[0]) * w, (i[4] - b[1]) * w, (i[5] - b[2]) * w};
  for (;; ++step_) {
    if (!synced_) {
      auto [s1, from1, p1] = co_await positions.receive(step_);
      const auto t0 = busy_clock::now();
      if (self) {
        const int n = static_cast<int>(p1.size() / 3);
        roam::buffer<double> f(p1.size());
        const double u = self_forces(k, p1.data(), n, f.mutable_data());
        busy_ += std::chrono::duration<double>(busy_clock::now() - t0).count();
        cells_[a].send<&cell::forces>(step_, slot_of({0, 0, 0}), std::move(f), u);
      } else {
        auto [s2, from2, p2] = co_await positions.receive(step_);
        const auto t1 = busy_clock::now();
        if (from1 != number_of(a)) std::swap(p1, p2);
        const int na = static_cast<int>(p1.size() / 3), nb = static_cast<int>(p2.size() / 3);
        roam::buffer<double> fa(p1.size()), fb(p2.size());
        const double u = pair_forces(k, p1.data(), na, p2.data(), nb, shift, fa.mutable_data(), fb.mutable_data());
        busy_ += std::chrono::duration<double>(busy_clock::now() - t1).count();
        cells_[a].send<&cell::forces>(step_, slot_of(d), std::move(fa), u);
        cells_[b].send<&cell::forces>(step_, slot_of({-d[0], -d[1], -d[2]}), std::move(fb), 0.0);
      }
      if (report_step(step_))
        contribute(busy_by_pe(busy_), roam::sum, roam::callback<std::vector<double>>::to<&driver::loads>(driver_, step_));
      if (step_ == cfg->steps) break;
      if (sync_after(step_)) {
        synced_ = true;
        at_sync();
      }
    }
    if (synced_) {
      co_await resumed.receive(step_);
      synced_ = false;
    }
  }
}

roam::task<> driver::run(roam::promise<int> exit_code) {
  const constants k(*cfg);
  double first = 0, worst = 0, force_error = 0, stepping = 0, final = 0;
  auto last = busy_clock::now();
  int last_step = 0;
  std::uint32_t balanced = 0;
  for (int s = 0; s <= cfg->steps; ++s) {
    if (!report_step(s)) continue;
    const auto [es, e] = co_await energies.receive(s);
    std::vector<double> busy = std::get<1>(co_await loads.receive(s));
    const auto more = std::get<1>(co_await loads.receive(s));
    for (std::size_t p = 0; p < busy.size(); ++p) busy[p] += more[p];
    const double total = (e[0] + e[1]) * k.ev_per_unit;
    if (s == 0) first = total;
    final = total;
    const double drift = first == 0 ? 0 : (total - first) / std::abs(first);
    worst = std::max(worst, std::abs(drift));
    const auto now = busy_clock::now();
    const double ms = s == 0 ? 0 : std::chrono::duration<double, std::milli>(now - last).count() / (s - last_step);
    const double avg = std::accumulate(busy.begin(), busy.end(), 0.0) / static_cast<double>(busy.size());
    const double imbalance = avg > 0 ? *std::max_element(busy.begin(), busy.end()) / avg : 1.0;
    std::printf("step %6d  %9.3f ms/step  E %.10e eV (kinetic %.6e, potential %+.6e)  drift %+.2e  max/avg load %.3f",
                s, ms, total, e[0] * k.ev_per_unit, e[1] * k.ev_per_unit, drift, imbalance);
    if (roam::load_balancing_steps() != balanced) {
      std::printf("  [%u balancing steps]", roam::load_balancing_steps() - balanced);
      balanced = roam::load_balancing_steps();
    }
    std::printf("\n");
    std::fflush(stdout);
    if (s > 0) stepping += std::chrono::duration<double>(now - last).count();
    last_step = s;
    if (cfg->verify_forces && (s == 0 || s == cfg->steps)) {
      auto gathered = std::get<1>(co_await probes.receive(s));
      std::vector<probe> all, serial;
      for (auto& v : gathered) all.insert(all.end(), v.begin(), v.end());
      serial = all;
      const double u = serial_forces(*cfg, serial);
      std::sort(all.begin(), all.end(), [](const probe& p, const probe& q) { return p.id < q.id; });
      double largest = 0, diff = 0;
      for (std::size_t i = 0; i < all.size(); ++i)
        for (int c = 0; c < 3; ++c) {
          largest = std::max(largest, std::abs(serial[i].acc[c]));
          diff = std::max(diff, std::abs(serial[i].acc[c] - all[i].acc[c]));
        }
      const double e_diff = std::abs(u - e[1]) / std::max(std::abs(u), 1e-300);
      force_error = std::max({force_error, largest > 0 ? diff / largest : diff, e_diff});
      std::printf("step %6d  serial O(N^2) check of %zu atoms: max force difference %.2e of the largest force, potential %.2e\n",
                  s, all.size(), largest > 0 ? diff / largest : diff, e_diff);
    }
    last = busy_clock::now();  // time per step leaves the checks out
  }
  const bool energy_ok = worst <= cfg->tolerance;
  const bool forces_ok = force_error <= 1e-10;
  std::printf("leanmd: %d steps in %.3f s, %.3f ms/step; final total energy %.17g eV\n", cfg->steps, stepping,
              cfg->steps > 0 ? 1e3 * stepping / cfg->steps : 0.0, final);
  std::printf("leanmd: %s: total energy drifted at most %.2e (tolerance %.1e)%s\n", energy_ok && forces_ok ? "OK" : "FAILED",
              worst, cfg->tolerance,
              !cfg->verify_forces ? ""
              : forces_ok         ? "; forces match the serial computation to 1e-10"
                                  : "; forces DIFFER from the serial computation");
  exit_code.set_value(energy_ok && forces_ok ? 0 : 1);
}

}  // namespace leanmd

int main(int argc, char** argv) {
  using namespace leanmd;
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    int code = 0;
    std::optional<config> parsed = parse_options(a, code);
    if (!parsed) {
      roam::exit(code);
      co_return;
    }
    cfg = *parsed;
    print_configuration(*cfg);
    auto [done, exit_code] = roam::make_future<int>();
    auto drv = roam::create_chare_on<driver>(roam::pe_id{0});
    auto computes = roam::create_sparse_array<compute>(roam::sparse_options<compute_index>(roam::custom_map<&compute_home>()));
    auto cells = roam::create_array<cell>(
        roam::array_options<3>({cfg->cells[0], cfg->cells[1], cfg->cells[2]}, roam::custom_map<&cell_home>()), computes, drv);
    for (int x = 0; x < cfg->cells[0]; ++x)
      for (int y = 0; y < cfg->cells[1]; ++y)
        for (int z = 0; z < cfg->cells[2]; ++z)
          for (int s = slots() / 2; s < slots(); ++s) computes.insert(compute_of({x, y, z}, s), cells, drv);
    computes.done_inserting();
    drv.send<&driver::run>(exit_code);
    cells.send<&cell::run>();
    computes.send<&compute::run>();
    roam::exit(co_await done);
  });
}
