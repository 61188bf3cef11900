#pragma once
/// \file
/// roam::fft: a distributed one-dimensional complex FFT of size N = n², the
/// HPC Challenge's Global FFT (docs/design/fft.md). The vector is an n×n
/// matrix of rows (x[r·n + c] is row r, column c) spread over *pencils*,
/// array elements of consecutive rows, more of them than PEs. A transform
/// is the six-step algorithm: transpose, n FFTs of length n, twiddle,
/// transpose, n FFTs, transpose; the transposes are all-to-all exchanges
/// between pencils, the row FFTs FFTW's (plans made once per process and
/// shape). Forward and inverse (scaled by 1/N) leave the result in natural
/// order, in place.
///
/// ```cpp
/// roam::task<> main_task() {
///   auto f = co_await roam::fft::fft1d::create(1024);  // N = 2^20, 4 pencils per PE
///   co_await f.fill_random(42);
///   co_await f.forward();
///   co_await f.inverse();
///   double err = co_await f.max_difference(42);       // against the input regenerated
/// }
/// ```
///
/// Every call is collective over the pencils and returns when all of them
/// are done; calls must not overlap (await each before the next). The
/// handle is used from one task (the program's main, or a library call).
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <roam/msg/complex.hpp>
#include <roam/roam.hpp>

namespace roam::fft {

using complex = std::complex<double>;

struct options {
  /// Pencils (array elements); 0: four per PE, at most n.
  int pencils = 0;
  /// FFTW's planning effort: false FFTW_ESTIMATE (instant), true FFTW_MEASURE
  /// (seconds once per shape and process, faster transforms).
  bool measure = false;
  /// How the transposes travel: through the aggregation library
  /// (libs/aggregation: a PE's blocks for another PE share its buffers,
  /// sent when full or when the PE goes idle), or (false) one message per
  /// block, pencil to pencil. Measured: the same rate with large blocks,
  /// 1.5-2.6x faster with small ones (many pencils, small n; docs/perf.md,
  /// session 35), so aggregation is the default.
  bool aggregated = true;
};

namespace detail {
struct plan_state;
}

class fft1d {
 public:
  /// Makes the pencils for a transform of size n·n (n ≥ 1). Collective: call
  /// from one task; the pencils are spread by blocks of rows over the PEs.
  static roam::task<fft1d> create(std::size_t n, options o = {});

  std::size_t n() const noexcept;
  std::size_t size() const noexcept { return n() * n(); }
  int pencils() const noexcept;

  /// x[i] = a pseudo-random complex number of i and `seed` (real and
  /// imaginary parts in [-1, 1)), generated where the row lives.
  roam::task<> fill_random(std::uint64_t seed);
  /// The whole vector from the caller (small N: it travels through the caller).
  roam::task<> set(std::vector<complex> x);
  /// The whole vector to the caller (small N).
  roam::task<std::vector<complex>> get();

  roam::task<> forward();
  roam::task<> inverse();

  /// max |x[i] - fill_random(seed)'s x[i]| over the vector: the error of a
  /// forward and inverse transform of that input.
  roam::task<double> max_difference(std::uint64_t seed);

 private:
  explicit fft1d(std::shared_ptr<detail::plan_state> s) : state_(std::move(s)) {}
  roam::task<> transform(int sign);
  std::shared_ptr<detail::plan_state> state_;
};

/// The pseudo-random input of fill_random: entry i of the vector for `seed`.
complex random_entry(std::uint64_t seed, std::uint64_t i) noexcept;

}  // namespace roam::fft
