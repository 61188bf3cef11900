#pragma once
// FFTW plans for the pencils' row FFTs, one per (rows, n, direction) and
// process, shared by the PEs (FFTW's planner is not thread-safe; executing
// a plan on new arrays is: fftw_execute_dft). Buffers come from
// fftw_malloc so every array has the alignment the plans assume.
#include <fftw3.h>

#include <complex>
#include <cstddef>
#include <memory>

namespace roam::fft::detail {

struct fftw_deleter {
  void operator()(void* p) const noexcept { fftw_free(p); }
};
using aligned_complex = std::unique_ptr<std::complex<double>[], fftw_deleter>;

/// `count` complex numbers, SIMD-aligned (zeroed).
aligned_complex allocate(std::size_t count);

/// `rows` in-place FFTs of length `n` over consecutive rows; sign is
/// FFTW_FORWARD or FFTW_BACKWARD.
fftw_plan row_plan(std::size_t rows, std::size_t n, int sign, bool measure);

}  // namespace roam::fft::detail
