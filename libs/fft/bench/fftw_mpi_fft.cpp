// fftw_mpi_fft: the anchor of apps/fft's benchmark (docs/perf.md): FFTW's
// own distributed 1-D transform (fftw_mpi_plan_dft_1d, output in natural
// order) of 2^L complex doubles under HPCC's rules: pseudo-random input,
// forward (timed, best of R), inverse, residual ||x - x'||/(eps log2 N).
//
//   mpirun -n P fftw_mpi_fft --log2 L [--measure] [--repeat R]
#include <fftw3-mpi.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace {
double entry(std::uint64_t i, int part) {
  std::uint64_t z = i * 2 + static_cast<std::uint64_t>(part) + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  fftw_mpi_init();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int log2n = 20, repeat = 3;
  unsigned flags = FFTW_ESTIMATE;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--log2") && i + 1 < argc) log2n = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--measure")) flags = FFTW_MEASURE;
    else {
      if (rank == 0) std::fprintf(stderr, "usage: mpirun -n P fftw_mpi_fft --log2 L [--measure] [--repeat R]\n");
      MPI_Finalize();
      return std::strcmp(argv[i], "--help") ? 2 : 0;
    }
  }
  const ptrdiff_t n = ptrdiff_t{1} << log2n;
  ptrdiff_t ni, i0, no, o0;
  const ptrdiff_t alloc = fftw_mpi_local_size_1d(n, MPI_COMM_WORLD, FFTW_FORWARD, flags, &ni, &i0, &no, &o0);
  fftw_complex* in = fftw_alloc_complex(static_cast<std::size_t>(alloc));
  fftw_complex* out = fftw_alloc_complex(static_cast<std::size_t>(alloc));
  fftw_plan fwd = fftw_mpi_plan_dft_1d(n, in, out, MPI_COMM_WORLD, FFTW_FORWARD, flags);
  fftw_plan bwd = fftw_mpi_plan_dft_1d(n, out, in, MPI_COMM_WORLD, FFTW_BACKWARD, flags);
  double best = 1e300, residual = 0;
  for (int r = 0; r < repeat; ++r) {
    for (ptrdiff_t i = 0; i < ni; ++i) {
      in[i][0] = entry(static_cast<std::uint64_t>(i0 + i), 0);
      in[i][1] = entry(static_cast<std::uint64_t>(i0 + i), 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    fftw_execute(fwd);
    MPI_Barrier(MPI_COMM_WORLD);
    best = std::min(best, MPI_Wtime() - t0);
    fftw_execute(bwd);
    double worst = 0;
    for (ptrdiff_t i = 0; i < ni; ++i) {
      const std::complex<double> got(in[i][0] / static_cast<double>(n), in[i][1] / static_cast<double>(n));
      const std::complex<double> want(entry(static_cast<std::uint64_t>(i0 + i), 0), entry(static_cast<std::uint64_t>(i0 + i), 1));
      worst = std::max(worst, std::abs(got - want));
    }
    double all = 0;
    MPI_Allreduce(&worst, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    residual = std::max(residual, all / (std::numeric_limits<double>::epsilon() * log2n));
  }
  if (rank == 0) {
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const double gflops = 5.0 * static_cast<double>(n) * log2n / best * 1e-9;
    std::printf("fftw_mpi_fft: N 2^%d on %d ranks: forward %.6f s (best of %d), %.3f GFlop/s, residual %.4f (%s)\n", log2n,
                size, best, repeat, gflops, residual, residual < 16 ? "PASSED" : "FAILED");
  }
  fftw_destroy_plan(fwd);
  fftw_destroy_plan(bwd);
  fftw_free(in);
  fftw_free(out);
  fftw_mpi_cleanup();
  MPI_Finalize();
  return 0;
}
