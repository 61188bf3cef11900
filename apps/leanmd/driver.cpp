// The driver chare (progress, verification) and main: what runs LeanMD (leanmd.hpp).
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <tuple>

#include "leanmd.hpp"
#include "options.hpp"

namespace leanmd {

// The driver's life, a restart entry: every member says where it is, so
// that after a checkpoint's restart it picks up at the same step.
roam::task<> driver::run() {
  for (; step_ <= cfg->steps; ++step_, reported_ = false, asked_ = false) {
    const int s = step_;
    if (report_step(s) && !reported_) {
      const auto [es, e] = co_await energies.receive(s);
      std::vector<double> busy = std::get<1>(co_await loads.receive(s));
      const auto more = std::get<1>(co_await loads.receive(s));
      for (std::size_t p = 0; p < busy.size(); ++p) busy[p] += more[p];
      if (cfg->verify_forces && (s == 0 || s == cfg->steps))
        checks_.emplace_back(s, e[1], std::get<1>(co_await probes.receive(s)));
      report(s, e, std::move(busy));
      reported_ = true;
    }
    if (!checkpoint_after(s)) continue;
    if (!asked_) {
      co_await paused.receive(s);
      pause_began_ = busy_clock::now();
      asked_ = true;
      auto done = roam::callback<roam::checkpoint_result>::to<&driver::saved>(this_proxy(), s);
      if (cfg->checkpoint_dir == "memory")  // in memory, a copy at the buddy: survives a failed process
        roam::checkpoint_in_memory(done);
      else
        roam::checkpoint(cfg->checkpoint_dir, done, {.keep = 2, .durable = cfg->checkpoint_durable});
    }
    const roam::checkpoint_result r = std::get<1>(co_await saved.receive(s));
    if (!r.ok)
      std::printf("step %5d checkpoint FAILED (the run goes on): %s\n", s, r.error.c_str());
    else
      std::printf("step %5d %s %s: %llu objects, %.1f KiB, %.1f ms\n", s, r.recovered ? "recovered from" : r.restarted ? "restarted from" : "checkpoint",
                  r.path.c_str(), static_cast<unsigned long long>(r.objects), static_cast<double>(r.bytes) / 1024,
                  r.seconds * 1e3);
    std::fflush(stdout);
    // The checkpoint's time is not the steps'. After a restart, the next
    // progress line measures from here.
    if (r.restarted) {
      last_ = busy_clock::now();
      last_step_ = s;
    } else {
      excluded_ += busy_clock::now() - pause_began_;
    }
    cells_.send<&cell::resumed>(s);
  }
  roam::exit(verify());
}

void driver::report(int s, const std::array<double, 3>& e, std::vector<double> busy) {
  const constants k(*cfg);
  const double total = (e[0] + e[1]) * k.ev_per_unit;
  if (s == 0) first_ = total;
  final_ = total;
  const double drift = first_ == 0 ? 0 : (total - first_) / std::abs(first_);
  worst_ = std::max(worst_, std::abs(drift));
  const auto now = busy_clock::now() - std::exchange(excluded_, {});
  const double ms =
      s == last_step_ ? 0 : std::chrono::duration<double, std::milli>(now - last_).count() / (s - last_step_);
  const double avg = std::accumulate(busy.begin(), busy.end(), 0.0) / static_cast<double>(busy.size());
  const double imbalance = avg > 0 ? *std::max_element(busy.begin(), busy.end()) / avg : 1.0;
  moved_ += static_cast<long>(e[2]);
  std::printf("step %5d %7.2f ms/step  E %.10f = K %.10f + U %+.2e eV (drift %+.1e)  load max/avg %.3f", s, ms, total,
              e[0] * k.ev_per_unit, e[1] * k.ev_per_unit, drift, imbalance);
  if (e[2] > 0) std::printf("  %.0f atoms moved", e[2]);
  if (roam::load_balancing_steps() != balanced_) {
    std::printf("  [balancing steps: %u]", roam::load_balancing_steps());
    balanced_ = roam::load_balancing_steps();
  }
  std::printf("\n");
  std::fflush(stdout);
  stepping_ += std::chrono::duration<double>(now - last_).count();
  last_step_ = s;
  // (A line after a report that arrived late, behind later steps' work,
  // shows a short interval; the total, from the driver's start, is exact.)
  last_ = now;
}

// The serial checks run after the last step: done at step 0, their second
// of PE 0's time would count as load for the first balancing step. Returns
// the exit code.
int driver::verify() {
  double force_error = 0;
  for (auto& [s, potential, gathered] : checks_) {
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
    const double e_diff = std::abs(u - potential) / std::max(std::abs(u), 1e-300);
    force_error = std::max({force_error, largest > 0 ? diff / largest : diff, e_diff});
    std::printf(
        "step %5d serial O(N^2) check of %zu atoms: max force difference %.2e of the largest force, potential %.2e\n",
        s, all.size(), largest > 0 ? diff / largest : diff, e_diff);
  }
  const bool energy_ok = worst_ <= cfg->tolerance;
  const bool forces_ok = force_error <= 1e-10;
  std::printf(
      "leanmd: %d steps in %.3f s, %.3f ms/step, %ld atoms changed cells, %u balancing steps; final total energy %.17g "
      "eV\n",
      cfg->steps, stepping_, cfg->steps > 0 ? 1e3 * stepping_ / cfg->steps : 0.0, moved_, roam::load_balancing_steps(),
      final_);
  std::printf("leanmd: %s: total energy drifted at most %.2e (tolerance %.1e)%s\n",
              energy_ok && forces_ok ? "OK" : "FAILED", worst_, cfg->tolerance,
              !cfg->verify_forces ? ""
              : forces_ok         ? "; forces match the serial computation to 1e-10"
                                  : "; forces DIFFER from the serial computation");
  std::fflush(stdout);
  return energy_ok && forces_ok ? 0 : 1;
}

}  // namespace leanmd

// LeanMD's --restart DIR is the runtime's +restart DIR: main does not run
// then (the checkpoint holds the configuration and every object).
static void restart_option_to_runtime(int argc, char** argv) {
  static char plus_restart[] = "+restart";
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string_view(argv[i]) == "--restart") argv[i] = plus_restart;
}

int main(int argc, char** argv) {
  using namespace leanmd;
  restart_option_to_runtime(argc, argv);
  return roam::run(argc, argv, [](const roam::args& a) {
    int code = 0;
    std::optional<config> parsed = parse_options(a, code);
    if (!parsed) {
      roam::exit(code);
      return;
    }
    cfg = *parsed;
    print_configuration(*cfg);
    auto drv = roam::create_chare_on<driver>(roam::pe_id{0});
    auto computes =
        roam::create_sparse_array<compute>(roam::sparse_options<compute_index>(roam::custom_map<&compute_home>()));
    auto cells = roam::create_array<cell>(
        roam::array_options<3>({cfg->cells[0], cfg->cells[1], cfg->cells[2]}, roam::custom_map<&cell_home>()), computes,
        drv);
    for (int x = 0; x < cfg->cells[0]; ++x)
      for (int y = 0; y < cfg->cells[1]; ++y)
        for (int z = 0; z < cfg->cells[2]; ++z)
          for (int s = slots() / 2; s < slots(); ++s) computes.insert(compute_of({x, y, z}, s), cells, drv);
    computes.done_inserting();
    drv.send<&driver::start>(cells);
    drv.send<&driver::run>();
    cells.send<&cell::run>();
    computes.send<&compute::run>();
  });
}
