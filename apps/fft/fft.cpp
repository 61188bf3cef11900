// fft: the HPC Challenge's Global FFT on roam (libs/fft), under HPCC's rules:
// pseudo-random complex input, forward transform (timed), inverse
// transform, residual ||x - x'||∞ / (ε log2 N) checked against 16, and
// GFlop/s = 5 N log2 N / forward time.
//
//   fft [--log2 L | --n n] [--pencils P] [--measure] [--messages] [--repeat R] [--seed S]
//     N = 2^L (L even) or n·n; P pencils (default 4 per PE); --measure plans
//     with FFTW_MEASURE; --messages sends the transposes as one message per
//     block instead of through the aggregation library; R forward/inverse
//     pairs (the best forward time).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include <roam/fft/fft1d.hpp>
#include <roam/roam.hpp>

namespace {
using fft_clock = std::chrono::steady_clock;

int usage(bool help) {
  std::fprintf(help ? stdout : stderr,
               "usage: fft [--log2 L | --n n] [--pencils P] [--measure] [--messages] [--repeat R] [--seed S]\n"
               "  the HPC Challenge Global FFT of N = 2^L (L even) or n*n complex doubles\n"
               "example: fft --log2 20 +p2\n");
  return help ? 0 : 2;
}
}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    std::size_t n = 1024;
    int repeat = 1;
    std::uint64_t seed = 1;
    roam::fft::options o;
    for (std::size_t i = 1; i < a.size(); ++i) {
      const std::string& w = a[i];
      const bool has = i + 1 < a.size();
      if (w == "--log2" && has) {
        const int l = std::atoi(a[++i].c_str());
        if (l < 0 || l % 2 != 0 || l > 62) {
          std::fprintf(stderr, "fft: --log2 takes an even number from 0 to 62 (N = n*n); %s is not\n", a[i].c_str());
          roam::exit(2);
          co_return;
        }
        n = std::size_t{1} << (l / 2);
      } else if (w == "--n" && has) n = static_cast<std::size_t>(std::atoll(a[++i].c_str()));
      else if (w == "--pencils" && has) o.pencils = std::atoi(a[++i].c_str());
      else if (w == "--repeat" && has) repeat = std::max(1, std::atoi(a[++i].c_str()));
      else if (w == "--seed" && has) seed = std::strtoull(a[++i].c_str(), nullptr, 10);
      else if (w == "--measure") o.measure = true;
      else if (w == "--messages") o.aggregated = false;
      else {
        if (w != "--help" && w != "-h") std::fprintf(stderr, "fft: unknown option '%s'\n", w.c_str());
        roam::exit(usage(w == "--help" || w == "-h"));
        co_return;
      }
    }
    if (n == 0) {
      std::fprintf(stderr, "fft: n must be at least 1\n");
      roam::exit(2);
      co_return;
    }
    const double big_n = static_cast<double>(n) * static_cast<double>(n);
    const auto t_plan = fft_clock::now();
    auto f = co_await roam::fft::fft1d::create(n, o);
    co_await f.fill_random(seed);
    const double setup = std::chrono::duration<double>(fft_clock::now() - t_plan).count();
    double best = 1e300, worst_residual = 0;
    for (int r = 0; r < repeat; ++r) {
      if (r > 0) co_await f.fill_random(seed);
      const auto t0 = fft_clock::now();
      co_await f.forward();
      best = std::min(best, std::chrono::duration<double>(fft_clock::now() - t0).count());
      co_await f.inverse();
      const double err = co_await f.max_difference(seed);
      worst_residual = std::max(worst_residual, err / (std::numeric_limits<double>::epsilon() * std::max(1.0, std::log2(big_n))));
    }
    const double gflops = 5.0 * big_n * std::log2(std::max(2.0, big_n)) / best * 1e-9;
    const bool ok = worst_residual < 16.0;
    std::printf("fft: N %.0f (n %zu), %d pencils on %u pes in %u processes\n", big_n, n, f.pencils(), roam::num_pes(),
                roam::num_nodes());
    std::printf("fft: forward %.6f s (best of %d), %.3f GFlop/s; set-up %.3f s\n", best, repeat, gflops, setup);
    std::printf("fft: residual ||x - x'||/(eps log2 N) = %.4f (threshold 16): %s\n", worst_residual, ok ? "PASSED" : "FAILED");
    std::printf("{\"bench\":\"fft\",\"n\":%zu,\"N\":%.0f,\"pencils\":%d,\"pes\":%u,\"nodes\":%u,\"seconds\":%.6f,\"gflops\":%.4f,"
                "\"residual\":%.4f}\n",
                n, big_n, f.pencils(), roam::num_pes(), roam::num_nodes(), best, gflops, worst_residual);
    roam::exit(ok ? 0 : 1);
  });
}
