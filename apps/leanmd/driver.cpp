// The driver chare (progress, verification) and main: what runs LeanMD (leanmd.hpp).
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <tuple>

#include "leanmd.hpp"
#include "options.hpp"

namespace leanmd {

roam::task<> driver::run(roam::promise<int> exit_code) {
  const constants k(*cfg);
  double first = 0, worst = 0, force_error = 0, stepping = 0, final = 0;
  long moved = 0;
  std::vector<std::tuple<int, double, std::vector<std::vector<probe>>>> checks;  // (step, potential, atoms)
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
    moved += static_cast<long>(e[2]);
    std::printf("step %5d %7.2f ms/step  E %.10f = K %.10f + U %+.2e eV (drift %+.1e)  load max/avg %.3f", s, ms, total,
                e[0] * k.ev_per_unit, e[1] * k.ev_per_unit, drift, imbalance);
    if (e[2] > 0) std::printf("  %.0f atoms moved", e[2]);
    if (roam::load_balancing_steps() != balanced) {
      std::printf("  [balancing steps: %u]", roam::load_balancing_steps());
      balanced = roam::load_balancing_steps();
    }
    std::printf("\n");
    std::fflush(stdout);
    stepping += std::chrono::duration<double>(now - last).count();
    last_step = s;
    if (cfg->verify_forces && (s == 0 || s == cfg->steps))
      checks.emplace_back(s, e[1], std::get<1>(co_await probes.receive(s)));
    // (A line after a report that arrived late, behind later steps' work,
    // shows a short interval; the total, from the driver's start, is exact.)
    last = now;
  }
  // The serial checks run after the last step: done at step 0, their second
  // of PE 0's time would count as load for the first balancing step.
  for (auto& [s, potential, gathered] : checks) {
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
  const bool energy_ok = worst <= cfg->tolerance;
  const bool forces_ok = force_error <= 1e-10;
  std::printf(
      "leanmd: %d steps in %.3f s, %.3f ms/step, %ld atoms changed cells, %u balancing steps; final total energy %.17g "
      "eV\n",
      cfg->steps, stepping, cfg->steps > 0 ? 1e3 * stepping / cfg->steps : 0.0, moved, roam::load_balancing_steps(),
      final);
  std::printf("leanmd: %s: total energy drifted at most %.2e (tolerance %.1e)%s\n",
              energy_ok && forces_ok ? "OK" : "FAILED", worst, cfg->tolerance,
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
    drv.send<&driver::run>(exit_code);
    cells.send<&cell::run>();
    computes.send<&compute::run>();
    roam::exit(co_await done);
  });
}
