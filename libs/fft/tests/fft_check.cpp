// fft_check: roam::fft against FFTW's own serial transform of the same input.
//   fft_check n [--pencils P] [--messages] [+p P ...]
// Sets a pseudo-random vector of N = n·n, transforms it forward, compares
// with fftw_plan_dft_1d's result, transforms back, compares with the input.
// Errors are scaled as HPCC's: max |difference| / (ε log2 N max |reference|),
// and must be below 16. Prints "fft_check: OK (n N, N M, P pencils on Q pes,
// forward F, round trip R)".
#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include <roam/fft/fft1d.hpp>
#include <roam/roam.hpp>

namespace {

double scaled(const std::vector<roam::fft::complex>& got, const std::vector<roam::fft::complex>& want) {
  double diff = 0, size = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    diff = std::max(diff, std::abs(got[i] - want[i]));
    size = std::max(size, std::abs(want[i]));
  }
  const double n = static_cast<double>(want.size());
  const double log2n = std::max(1.0, std::log2(n));
  return diff / (std::numeric_limits<double>::epsilon() * log2n * std::max(size, 1e-300));
}

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    std::size_t n = 0;
    roam::fft::options o;
    for (std::size_t i = 1; i < a.size(); ++i) {
      if (a[i] == "--pencils" && i + 1 < a.size()) o.pencils = std::atoi(a[++i].c_str());
      else if (a[i] == "--messages") o.aggregated = false;
      else if (a[i] == "--help" || a[i] == "-h") {
        std::printf("usage: fft_check n [--pencils P] [--messages]  (N = n*n; +p P for PEs)\n");
        roam::exit(0);
        co_return;
      } else n = static_cast<std::size_t>(std::atoll(a[i].c_str()));
    }
    if (n == 0) {
      std::fprintf(stderr, "fft_check: give n >= 1 (N = n*n)\n");
      roam::exit(2);
      co_return;
    }
    const std::size_t big_n = n * n;
    std::vector<roam::fft::complex> x(big_n);
    for (std::size_t i = 0; i < big_n; ++i) x[i] = roam::fft::random_entry(7, i);

    std::vector<roam::fft::complex> want(big_n), scratch = x;
    fftw_plan p = fftw_plan_dft_1d(static_cast<int>(big_n), reinterpret_cast<fftw_complex*>(scratch.data()),
                                   reinterpret_cast<fftw_complex*>(want.data()), FFTW_FORWARD, FFTW_ESTIMATE);
    fftw_execute(p);
    fftw_destroy_plan(p);

    auto f = co_await roam::fft::fft1d::create(n, o);
    co_await f.set(x);
    co_await f.forward();
    const double fwd = scaled(co_await f.get(), want);
    co_await f.inverse();
    const double back = scaled(co_await f.get(), x);
    const bool ok = fwd < 16 && back < 16;
    std::printf("fft_check: %s (n %zu, N %zu, %d pencils on %u pes, forward %.3f, round trip %.3f)\n", ok ? "OK" : "FAILED",
                n, big_n, f.pencils(), roam::num_pes(), fwd, back);
    roam::exit(ok ? 0 : 1);
  });
}
