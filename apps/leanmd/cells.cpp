// The cells: atoms, positions out, forces in, integration, atom migration (leanmd.hpp).
#include <algorithm>
#include <cstdio>

#include "leanmd.hpp"

namespace leanmd {

cell::cell(roam::array_proxy<compute> computes, roam::chare_proxy<driver> d)
    : computes_(computes),
      driver_(d),
      atoms_(initial_atoms(*cfg, {this_index()[0], this_index()[1], this_index()[2]})) {
  std::vector<compute_index> mine;
  for (int s = 0; s < slots(); ++s) mine.push_back(compute_of(this_index(), s));
  section_ = roam::section_proxy<compute>::of(computes, mine);
}

roam::task<> cell::run() {
  const int n_slots = slots();
  std::vector<roam::buffer<double>> by_slot(n_slots);
  std::vector<double> potential_by_slot(n_slots);
  std::vector<travellers> in;
  for (;; ++step_) {
    if (!synced_ && !paused_) {
      if (step_ == 0 && cfg->reduce_forces)  // each compute learns the sections it contributes to
        for (int s = 0; s < n_slots; ++s)
          computes_[compute_of(this_index(), s)].send<&compute::joined>(number_of(this_index()), section_);
      atoms_.sort_by_x();
      send_positions();
      std::vector<double> acc(atoms_.pos.size(), 0.0);
      double potential = 0;
      if (cfg->reduce_forces) {
        std::tie(acc, potential) = std::get<1>(co_await summed.receive(step_));
      } else {
        for (int k = 0; k < n_slots; ++k) {
          auto [s, slot, f, u] = co_await forces.receive(step_);
          by_slot[slot] = std::move(f);
          potential_by_slot[slot] = u;
        }
      }
      const auto t0 = busy_clock::now();
      for (int slot = 0; slot < n_slots && !cfg->reduce_forces; ++slot) {  // slot order: the same sum on any PE count
        const auto& f = by_slot[slot];
        for (std::size_t i = 0; i < acc.size(); ++i) acc[i] += f[i];
        potential += potential_by_slot[slot];
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
      if (checkpoint_after(step_)) {  // the driver checkpoints once every cell is here, then resumes them
        paused_ = true;
        contribute(roam::callback<void>::to<&driver::paused>(driver_, step_));
      }
    }
    // A balancing step's resume comes before a checkpoint's: the checkpoint waits for quiescence.
    if (synced_) {
      co_await resumed.receive(step_);
      synced_ = false;
    }
    if (paused_) {
      co_await resumed.receive(step_);
      paused_ = false;
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
  contribute(std::array<double, 3>{kinetic, potential, static_cast<double>(std::exchange(moved_, 0))},
             roam::deterministic(roam::sum),
             roam::callback<std::array<double, 3>>::to<&driver::energies>(driver_, step_));
  contribute(busy_by_pe(busy_), roam::sum, roam::callback<std::vector<double>>::to<&driver::loads>(driver_, step_));
  if (cfg->verify_forces && (step_ == 0 || step_ == cfg->steps)) {
    const int n = atoms_.size();
    std::vector<probe> mine(n);
    for (int i = 0; i < n; ++i) {
      probe& p = mine[i];
      p.id = atoms_.id[i];
      for (int d = 0; d < 3; ++d) {
        p.pos[d] = atoms_.pos[d * n + i];
        p.acc[d] = acc[d * n + i];
      }
    }
    contribute(mine, roam::concat,
               roam::callback<std::vector<std::vector<probe>>>::to<&driver::probes>(driver_, step_));
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
      const double x = atoms_.pos[c * n + i];
      // Between migrations an atom may stray at most margin / 2 out of its
      // cell, or pairs within the cutoff would be missed.
      if (std::abs(x - (this_index()[c] + 0.5) * w) > stray) {
        roam::abort("leanmd: cell (" + std::to_string(this_index()[0]) + "," + std::to_string(this_index()[1]) + "," +
                    std::to_string(this_index()[2]) + ") run(): atom " + std::to_string(atoms_.id[i]) +
                    " strayed more than margin/2 out of its cell; migrate more often (--migrate-every)");
        return {};
      }
      to = to * 3 + std::clamp(static_cast<int>(std::floor(x / w)) - this_index()[c], -1, 1) + 1;
    }
    out[to].add(atoms_, i);
  }
  for (int k = 0; k < 27; ++k) {
    if (k == 13) continue;
    travellers& t = out[k];
    moved_ += static_cast<int>(t.id.size());
    cell_index to{this_index()[0] + k / 9 - 1, this_index()[1] + k / 3 % 3 - 1, this_index()[2] + k % 3 - 1};
    for (int c = 0; c < 3; ++c) {  // across the box's edge: into the periodic image
      const int inside = wrap(to[c], cfg->cells[c]);
      for (std::size_t i = 0; i < t.id.size(); ++i) t.state[6 * i + c] += (inside - to[c]) * w;
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

}  // namespace leanmd
