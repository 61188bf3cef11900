// lu: the HPC Challenge's HPL on roam (libs/lu), under HPL's rules: a
// random matrix, A x = b solved by LU with partial pivoting (timed:
// factorization and solve), the scaled residual ||Ax - b||∞ / (ε (||A||∞
// ||x||∞ + ||b||∞) N) checked against 16, and GFlop/s = (2/3 N³ + 3/2 N²) /
// time.
//
//   lu [--n N] [--block B] [--map block_cyclic|column_cyclic|row_cyclic]
//      [--memory F] [--lookahead L] [--panel gathered|distributed] [--repeat R] [--seed S]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <roam/lu/lu.hpp>
#include <roam/roam.hpp>

namespace {
using lu_clock = std::chrono::steady_clock;

int usage(bool help) {
  std::fprintf(help ? stdout : stderr,
               "usage: lu [--n N] [--block B] [--map block_cyclic|column_cyclic[:W]|row_cyclic] [--memory F] [--lookahead L]\n"
               "          [--panel gathered|distributed] [--repeat R] [--seed S]\n"
               "  HPL: solves a random N x N system by LU with partial pivoting in B x B blocks (default N 2000, B 128);\n"
               "  column_cyclic:W places W block columns at a time on each PE (W 1 to 4);\n"
               "  F: each PE's panel cache as a fraction of its share of the matrix (default 0.5); L: most panels\n"
               "  a PE holds at once (default 0: the memory bound only); --panel: a panel factored on its diagonal\n"
               "  block's PE (default) or where its blocks are; R runs (the best time)\n"
               "example: lu --n 4000 --block 128 +p2\n");
  return help ? 0 : 2;
}

bool number(const std::string& text, double& out) {
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end != text.c_str() && *end == '\0' && std::isfinite(out);
}
}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    double n = 2000, block = 128, memory = 0.5, lookahead = 0, repeat = 1, seed = 1;
    std::string map = "block_cyclic", panel = "gathered";
    for (std::size_t i = 1; i < a.size(); ++i) {
      const std::string& w = a[i];
      const bool has = i + 1 < a.size();
      double* target = w == "--n" ? &n : w == "--block" ? &block : w == "--memory" ? &memory : w == "--lookahead" ? &lookahead
                     : w == "--repeat" ? &repeat : w == "--seed" ? &seed : nullptr;
      if (target != nullptr && has) {
        if (!number(a[++i], *target)) {
          std::fprintf(stderr, "lu: %s takes a number, not '%s'\n", w.c_str(), a[i].c_str());
          roam::exit(2);
          co_return;
        }
      } else if (w == "--map" && has) {
        map = a[++i];
      } else if (w == "--panel" && has) {
        panel = a[++i];
      } else {
        if (w != "--help" && w != "-h") std::fprintf(stderr, "lu: unknown option '%s'\n", w.c_str());
        roam::exit(usage(w == "--help" || w == "-h"));
        co_return;
      }
    }
    roam::lu::options o;
    if (map == "column_cyclic") o.map = roam::lu::column_cyclic();
    else if (map.rfind("column_cyclic:", 0) == 0 && map.size() == 15 && map[14] >= '1' && map[14] <= '4')
      o.map = roam::lu::column_cyclic(map[14] - '0');
    else if (map == "row_cyclic") o.map = roam::lu::row_cyclic();
    else if (map != "block_cyclic") {
      std::fprintf(stderr, "lu: unknown map '%s' (block_cyclic, column_cyclic, column_cyclic:W with W 1-4, or row_cyclic)\n", map.c_str());
      roam::exit(2);
      co_return;
    }
    if (panel != "gathered" && panel != "distributed") {
      std::fprintf(stderr, "lu: unknown panel '%s' (gathered or distributed)\n", panel.c_str());
      roam::exit(2);
      co_return;
    }
    o.panel = panel == "distributed" ? roam::lu::panel_mode::distributed : roam::lu::panel_mode::gathered;
    if (n < 1 || block < 1 || memory < 0 || lookahead < 0 || repeat < 1) {
      std::fprintf(stderr, "lu: N and B must be at least 1, F and L at least 0, R at least 1\n");
      roam::exit(2);
      co_return;
    }
    o.block = static_cast<int>(block);
    o.memory = memory;
    o.lookahead = static_cast<int>(lookahead);
    const auto order = static_cast<std::size_t>(n);
    const auto s = static_cast<std::uint64_t>(seed);
    auto m = co_await roam::lu::matrix::create(order, o);
    const std::vector<double> b = roam::lu::random_vector(s, order);
    double best = 1e300, factor_s = 0, worst = 0;
    roam::lu::factor_stats st;
    for (int r = 0; r < static_cast<int>(repeat); ++r) {
      co_await m.fill_random(s);
      const auto t0 = lu_clock::now();
      st = co_await m.factor();
      if (st.singular) {
        std::fprintf(stderr, "lu: the matrix is singular (a zero pivot in column %lld)\n", static_cast<long long>(st.zero_pivot_column));
        roam::exit(1);
        co_return;
      }
      const auto t1 = lu_clock::now();
      const std::vector<double> x = co_await m.solve(b);
      const double total = std::chrono::duration<double>(lu_clock::now() - t0).count();
      if (total < best) {
        best = total;
        factor_s = std::chrono::duration<double>(t1 - t0).count();
      }
      const roam::lu::residual_norms res = co_await m.residual(s, x, b);
      worst = std::max(worst, res.scaled);
    }
    const double nn = static_cast<double>(order);
    const double gflops = (2.0 / 3.0 * nn * nn * nn + 1.5 * nn * nn) / best * 1e-9;
    const bool ok = worst < 16.0;
    std::printf("lu: N %zu, block %d (%d x %d blocks, map %s, %s panels) on %u pes in %u processes\n", order, m.block(), m.blocks(),
                m.blocks(), map.c_str(), panel.c_str(), roam::num_pes(), roam::num_nodes());
    std::printf("lu: %.6f s (factor %.6f, solve %.6f; best of %d), %.3f GFlop/s; %lld row exchanges\n", best, factor_s,
                best - factor_s, static_cast<int>(repeat), gflops, static_cast<long long>(st.row_swaps));
    std::printf("lu: work, summed over the PEs: panels %.3f s, U blocks %.3f s, updates %.3f s (%.1f GFlop/s), row exchanges %.3f s\n",
                st.panel_seconds, st.solve_u_seconds, st.update_seconds,
                st.update_seconds > 0 ? 2.0 / 3.0 * static_cast<double>(order) * static_cast<double>(order) * static_cast<double>(order) / st.update_seconds * 1e-9 : 0.0,
                st.swap_seconds);
    std::printf("lu: panel cache per PE: peak %.1f MiB of %.1f MiB allowed, %d panels at most\n",
                static_cast<double>(st.peak_panel_bytes) / 1048576.0, static_cast<double>(st.budget_bytes) / 1048576.0,
                st.most_panels_held);
    std::printf("lu: ||Ax-b||/(eps (||A|| ||x|| + ||b||) N) = %.6f (threshold 16): %s\n", worst, ok ? "PASSED" : "FAILED");
    std::printf("{\"bench\":\"lu\",\"n\":%zu,\"block\":%d,\"map\":\"%s\",\"panel\":\"%s\",\"pes\":%u,\"nodes\":%u,\"seconds\":%.6f,\"factor_seconds\":%.6f,"
                "\"gflops\":%.4f,\"residual\":%.6f,\"peak_panel_bytes\":%llu}\n",
                order, m.block(), map.c_str(), panel.c_str(), roam::num_pes(), roam::num_nodes(), best, factor_s, gflops, worst,
                static_cast<unsigned long long>(st.peak_panel_bytes));
    roam::exit(ok ? 0 : 1);
  });
}
