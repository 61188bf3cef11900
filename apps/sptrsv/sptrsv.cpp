// sptrsv: the sparse triangular solve L x = b on roam (solver.hpp), timed
// against a serial forward substitution on the same L, with HPL's scaled
// residual checked and the solution compared with the serial one.
//
//   sptrsv (--lower FILE | --matrix FILE | --laplace2d K | --laplace3d K | --random N) [options]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <malloc.h>
#include <string>

#include <roam/roam.hpp>

#include "factor.hpp"
#include "generate.hpp"
#include "mtx.hpp"
#include "solver.hpp"

namespace {
using sptrsv_clock = std::chrono::steady_clock;

int usage(bool help) {
  std::fprintf(help ? stdout : stderr,
               "usage: sptrsv (--lower FILE | --matrix FILE | --laplace2d K | --laplace3d K | --geometric N | --random N)\n"
               "              [--seed S] [--degree D] [--per-column P] [--regions R] [--order nd|mmd|colamd|natural]\n"
               "              [--solve lower|both] [--rhs K] [--blocks B] [--map round_robin|block] [--dense F] [--no-regions] [--repeat R]\n"
               "  --lower: a lower-triangular L (Matrix Market, gzip accepted); --matrix / --laplace*: A, factored by\n"
               "  SuperLU, and its L solved (--solve both: L, then U, and A x = b checked); --geometric: the same for\n"
               "  an irregular mesh of N random points (about D neighbours each, default 8); --random: a random L\n"
               "  with P entries a column on average and R dense regions. B column blocks (default 8 per PE), F\n"
               "  the fill that makes a region below the diagonal an element of its own (default 0.5)\n"
               "example: sptrsv --laplace2d 400 +p2\n");
  return help ? 0 : 2;
}

bool whole(const std::string& text, long long& out) {
  char* end = nullptr;
  out = std::strtoll(text.c_str(), &end, 10);
  return end != text.c_str() && *end == '\0';
}

struct timed {
  double seconds = 1e300;
  std::vector<double> x;
};

// Best of `repeat` parallel solves of l x = b.
roam::task<timed> solve_parallel(const sptrsv::csc& l, const std::vector<double>& b, int k, const sptrsv::solver_options& o,
                                 int repeat, sptrsv::solver_stats& stats) {
  auto s = co_await sptrsv::solver::create(l, o);
  stats = s.stats();
  timed out;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = sptrsv_clock::now();
    std::vector<double> x = co_await s.solve(b, k);
    const double t = std::chrono::duration<double>(sptrsv_clock::now() - t0).count();
    if (t < out.seconds) out.seconds = t;
    out.x = std::move(x);
  }
  s.close();
  co_return out;
}

timed solve_serial(const sptrsv::csc& l, const std::vector<double>& b, int k, int repeat) {
  timed out;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = sptrsv_clock::now();
    std::vector<double> x = sptrsv::forward_substitution(l, b, k);
    out.seconds = std::min(out.seconds, std::chrono::duration<double>(sptrsv_clock::now() - t0).count());
    out.x = std::move(x);
  }
  return out;
}

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return scale > 0 ? worst / scale : worst;
}

std::vector<double> random_rhs(std::int64_t n, int k, std::uint64_t seed) {
  std::vector<double> b(static_cast<std::size_t>(n) * static_cast<std::size_t>(k));
  std::uint64_t z = seed * 0x9e3779b97f4a7c15ull + 12345;
  for (double& v : b) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    v = static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0) - 0.5;
  }
  return b;
}

// The triangular solve of one factor: both timings, the checks. False if a check failed.
bool report(const char* name, const timed& par, const timed& ser, const sptrsv::csc& l, const std::vector<double>& b, int k,
            const sptrsv::solver_stats& st) {
  const double res = sptrsv::scaled_residual(l, par.x, b, k), diff = max_difference(par.x, ser.x);
  std::printf("sptrsv: %s: n %lld, %lld nonzeros; %d blocks, %d dense regions (%lld nonzeros), %lld contributions per solve\n", name,
              static_cast<long long>(l.n), static_cast<long long>(l.nnz()), st.blocks, st.regions,
              static_cast<long long>(st.region_nonzeros), static_cast<long long>(st.messages));
  std::printf("sptrsv: %s: solve %.6f s on %u pes, serial %.6f s: speedup %.2f\n", name, par.seconds, roam::num_pes(), ser.seconds,
              ser.seconds / par.seconds);
  const bool ok = res < 16 && diff < 1e-10;
  std::printf("sptrsv: %s: ||Lx-b||/(eps ||L|| ||x|| N) = %.6f (threshold 16), largest difference from serial %.3g: %s\n", name, res,
              diff, ok ? "PASSED" : "FAILED");
  return ok;
}
}  // namespace

int main(int argc, char** argv) {
  // Freed memory stays in the process: each solve's vectors would otherwise
  // be fresh pages, a page fault per 4 KiB (~10 µs each on the VMs this was
  // measured on: a third of a solve of 10^5 rows).
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    std::string lower, matrix, order = "nd", solve = "lower";
    long long lap2 = 0, lap3 = 0, geometric = 0, degree = 8, random_n = 0, seed = 1, per_column = 4, regions = 2, rhs = 1, repeat = 3;
    sptrsv::solver_options o;
    for (std::size_t i = 1; i < a.size(); ++i) {
      const std::string& w = a[i];
      const bool has = i + 1 < a.size();
      long long* number = w == "--laplace2d" ? &lap2 : w == "--laplace3d" ? &lap3 : w == "--geometric" ? &geometric : w == "--degree" ? &degree : w == "--random" ? &random_n : w == "--seed" ? &seed
                        : w == "--per-column" ? &per_column : w == "--regions" ? &regions : w == "--rhs" ? &rhs : w == "--repeat" ? &repeat
                        : nullptr;
      long long blocks = 0;
      if (w == "--blocks") number = &blocks;
      if (number != nullptr && has) {
        if (!whole(a[++i], *number) || *number < (w == "--seed" || w == "--regions" || w == "--per-column" ? 0 : 1)) {
          std::fprintf(stderr, "sptrsv: %s takes a whole number%s, not '%s'\n", w.c_str(), w == "--seed" ? "" : " (at least 1)", a[i].c_str());
          roam::exit(2);
          co_return;
        }
        if (w == "--blocks") o.blocks = static_cast<int>(blocks);
      } else if (w == "--lower" && has) {
        lower = a[++i];
      } else if (w == "--matrix" && has) {
        matrix = a[++i];
      } else if (w == "--order" && has) {
        order = a[++i];
      } else if (w == "--solve" && has && (a[i + 1] == "lower" || a[i + 1] == "both")) {
        solve = a[++i];
      } else if (w == "--map" && has) {
        o.map = a[++i];
      } else if (w == "--dense" && has) {
        char* end = nullptr;
        o.dense = std::strtod(a[++i].c_str(), &end);
        if (*end != '\0' || !(o.dense > 0)) {
          std::fprintf(stderr, "sptrsv: --dense takes a fill above 0, not '%s'\n", a[i].c_str());
          roam::exit(2);
          co_return;
        }
      } else if (w == "--no-regions") {
        o.regions = false;
      } else {
        if (w != "--help" && w != "-h") std::fprintf(stderr, "sptrsv: unknown option '%s'\n", w.c_str());
        roam::exit(usage(w == "--help" || w == "-h"));
        co_return;
      }
    }
    const int inputs = !lower.empty() + !matrix.empty() + (lap2 > 0) + (lap3 > 0) + (geometric > 0) + (random_n > 0);
    if (inputs != 1) {
      std::fprintf(stderr, "sptrsv: give one input: --lower, --matrix, --laplace2d, --laplace3d, --geometric or --random\n");
      roam::exit(usage(false));
      co_return;
    }
    const int k = static_cast<int>(rhs), reps = static_cast<int>(repeat);
    try {
      sptrsv::csc l;
      sptrsv::factors f;
      sptrsv::triplets a_entries;
      const bool factored = lower.empty() && random_n == 0;
      if (!lower.empty()) {
        l = sptrsv::compress(sptrsv::read_matrix_market(lower));
        sptrsv::check_lower(l);
      } else if (random_n > 0) {
        l = sptrsv::random_lower(random_n, static_cast<std::uint64_t>(seed), static_cast<int>(per_column), static_cast<int>(regions));
        std::printf("sptrsv: random L, seed %lld: %lld entries a column on average, %lld dense regions\n", seed, per_column, regions);
      } else {
        if (!matrix.empty())
          a_entries = sptrsv::read_matrix_market(matrix);
        else if (geometric > 0)
          a_entries = sptrsv::random_geometric(geometric, static_cast<std::uint64_t>(seed), static_cast<int>(degree));
        else
          a_entries = sptrsv::laplacian(lap2 > 0 ? 2 : 3, lap2 > 0 ? lap2 : lap3);
        f = sptrsv::factor_with_superlu(a_entries, order);
        std::printf("sptrsv: A: n %lld, %zu entries; SuperLU (%s ordering) in %.3f s: L %lld, U %lld nonzeros\n",
                    static_cast<long long>(a_entries.n), a_entries.v.size(), order.c_str(), f.seconds, static_cast<long long>(f.l.nnz()),
                    static_cast<long long>(f.u_reversed.nnz()));
        l = std::move(f.l);
      }
      const std::vector<double> b = random_rhs(l.n, k, static_cast<std::uint64_t>(seed));
      sptrsv::solver_stats st;
      const timed par = co_await solve_parallel(l, b, k, o, reps, st);
      const timed ser = solve_serial(l, b, k, reps);
      bool ok = report("L", par, ser, l, b, k, st);
      double total = par.seconds, total_serial = ser.seconds;
      if (factored && solve == "both") {
        // U z = y as (J U J)(J z) = J y; then x = Pc z, for A x = b' with b' = Pr⁻¹ b.
        const std::int64_t n = l.n;
        std::vector<double> y_rev(par.x.size());
        for (std::int64_t r = 0; r < n; ++r)
          for (int t = 0; t < k; ++t) y_rev[static_cast<std::size_t>((n - 1 - r) * k + t)] = par.x[static_cast<std::size_t>(r * k + t)];
        sptrsv::solver_stats su;
        const timed upar = co_await solve_parallel(f.u_reversed, y_rev, k, o, reps, su);
        const timed user = solve_serial(f.u_reversed, y_rev, k, reps);
        ok = report("U", upar, user, f.u_reversed, y_rev, k, su) && ok;
        total += upar.seconds;
        total_serial += user.seconds;
        // A x = b' checked: b'[i] = b[perm_r[i]], x[i] = z[perm_c[i]].
        const sptrsv::csc am = sptrsv::compress(a_entries);
        std::vector<double> x(par.x.size()), bb(b.size());
        for (std::int64_t i = 0; i < n; ++i)
          for (int t = 0; t < k; ++t) {
            const auto zi = static_cast<std::size_t>((n - 1 - f.perm_c[static_cast<std::size_t>(i)]) * k + t);
            x[static_cast<std::size_t>(i * k + t)] = upar.x[zi];
            bb[static_cast<std::size_t>(i * k + t)] = b[static_cast<std::size_t>(f.perm_r[static_cast<std::size_t>(i)] * k + t)];
          }
        double worst = 0;  // ||Ax - b'||∞ / (ε ||A||∞ ||x||∞ n), per right-hand side
        {
          std::vector<double> r(bb), rowsum(static_cast<std::size_t>(n), 0.0);
          for (std::int64_t c = 0; c < n; ++c)
            for (auto e = am.colptr[static_cast<std::size_t>(c)]; e < am.colptr[static_cast<std::size_t>(c) + 1]; ++e) {
              const auto i = static_cast<std::size_t>(am.row[static_cast<std::size_t>(e)]);
              rowsum[i] += std::abs(am.val[static_cast<std::size_t>(e)]);
              for (int t = 0; t < k; ++t)
                r[i * static_cast<std::size_t>(k) + static_cast<std::size_t>(t)] -=
                    am.val[static_cast<std::size_t>(e)] * x[static_cast<std::size_t>(c * k + t)];
            }
          const double a_inf = *std::max_element(rowsum.begin(), rowsum.end());
          for (int t = 0; t < k; ++t) {
            double r_inf = 0, x_inf = 0;
            for (std::int64_t i = 0; i < n; ++i) {
              r_inf = std::max(r_inf, std::abs(r[static_cast<std::size_t>(i * k + t)]));
              x_inf = std::max(x_inf, std::abs(x[static_cast<std::size_t>(i * k + t)]));
            }
            worst = std::max(worst, r_inf / (2.220446049250313e-16 * a_inf * x_inf * static_cast<double>(n)));
          }
        }
        const bool a_ok = worst < 16;
        std::printf("sptrsv: A x = b: ||Ax-b||/(eps ||A|| ||x|| N) = %.6f (threshold 16): %s\n", worst, a_ok ? "PASSED" : "FAILED");
        std::printf("sptrsv: L and U: solve %.6f s, serial %.6f s: speedup %.2f\n", total, total_serial, total_serial / total);
        ok = ok && a_ok;
      }
      std::printf("{\"bench\":\"sptrsv\",\"n\":%lld,\"nonzeros\":%lld,\"rhs\":%d,\"pes\":%u,\"nodes\":%u,\"blocks\":%d,\"regions\":%d,"
                  "\"seconds\":%.6f,\"serial_seconds\":%.6f,\"solves\":\"%s\"}\n",
                  static_cast<long long>(l.n), static_cast<long long>(l.nnz()), k, roam::num_pes(), roam::num_nodes(), st.blocks, st.regions,
                  total, total_serial, factored && solve == "both" ? "L and U" : "L");
      roam::exit(ok ? 0 : 1);
    } catch (const sptrsv::input_error& e) {
      std::fprintf(stderr, "sptrsv: %s\n", e.what());
      roam::exit(2);
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "%s\n", e.what());
      roam::exit(2);
    }
  });
}
