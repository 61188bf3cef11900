#include "plans.hpp"

#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <tuple>

namespace roam::fft::detail {

aligned_complex allocate(std::size_t count) {
  const std::size_t n = count == 0 ? 1 : count;
  auto* p = static_cast<std::complex<double>*>(fftw_malloc(n * sizeof(std::complex<double>)));
  if (!p) throw std::bad_alloc();
  std::memset(static_cast<void*>(p), 0, n * sizeof(std::complex<double>));
  return aligned_complex(p);
}

namespace {
// Kept for the run, destroyed at exit (after the runtime, and the pencils
// holding them, are gone).
struct plan_cache {
  std::mutex mu;
  std::map<std::tuple<std::size_t, std::size_t, int, bool>, fftw_plan> plans;
  ~plan_cache() {
    for (auto& [key, p] : plans) fftw_destroy_plan(p);
    fftw_cleanup();
  }
};
}  // namespace

fftw_plan row_plan(std::size_t rows, std::size_t n, int sign, bool measure) {
  static plan_cache cache;
  auto& plans = cache.plans;
  std::lock_guard lock(cache.mu);
  const auto key = std::make_tuple(rows, n, sign, measure);
  if (auto it = plans.find(key); it != plans.end()) return it->second;
  // Planning with FFTW_MEASURE overwrites the arrays: plan on scratch ones.
  aligned_complex scratch = allocate(rows * n);
  const int len = static_cast<int>(n);
  fftw_plan p = fftw_plan_many_dft(1, &len, static_cast<int>(rows), reinterpret_cast<fftw_complex*>(scratch.get()),
                                   nullptr, 1, len, reinterpret_cast<fftw_complex*>(scratch.get()), nullptr, 1, len, sign,
                                   measure ? FFTW_MEASURE : FFTW_ESTIMATE);
  plans.emplace(key, p);
  return p;
}

}  // namespace roam::fft::detail
