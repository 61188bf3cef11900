// fft_mpi: the Global FFT called from an MPI program (seed §2.4.4). The even
// ranks of MPI_COMM_WORLD start roam on their own communicator (library
// mode, include/roam/interop/mpi_library.hpp); the odd ranks stay plain MPI
// and transform vectors of their own with serial FFTW meanwhile. K times:
// an MPI phase over the whole world (an allreduce), then one library call on
// the roam ranks, the same libs/fft code the pure-roam driver (fft.cpp)
// runs: fill, forward (timed), inverse, residual by HPCC's rule. Rank 0
// broadcasts each call's figures over the world, and every rank checks them.
//
//   mpirun -n 4 fft_mpi [--log2 L | --n n] [--calls K] [--pencils P] [--measure] [--all] [+ppn P]
#include <mpi.h>

#include <fftw3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include <roam/fft/fft1d.hpp>
#include <roam/interop/mpi_library.hpp>
#include <roam/roam.hpp>

namespace {

struct settings {
  std::size_t n = 256;
  int calls = 10;
  bool all = false;
  roam::fft::options fft;
};

int usage(bool help) {
  std::fprintf(help ? stdout : stderr,
               "usage: fft_mpi [--log2 L | --n n] [--calls K] [--pencils P] [--measure] [--all] [+ppn P]\n"
               "  the Global FFT of N = 2^L (L even) or n*n from an MPI program: roam on the even ranks\n"
               "  (--all: every rank) through library mode, K calls between MPI phases\n"
               "example: mpirun -n 4 fft_mpi --log2 16 --calls 10\n");
  return help ? 0 : 2;
}

// Parses the program's own options (roam's `+` ones are left for library_init).
bool parse(int argc, char** argv, settings& s, int& status) {
  for (int i = 1; i < argc; ++i) {
    const std::string w = argv[i];
    const bool has = i + 1 < argc;
    if (w == "--log2" && has) {
      const int l = std::atoi(argv[++i]);
      if (l < 0 || l % 2 != 0 || l > 62) {
        std::fprintf(stderr, "fft_mpi: --log2 takes an even number from 0 to 62 (N = n*n); %s is not\n", argv[i]);
        status = 2;
        return false;
      }
      s.n = std::size_t{1} << (l / 2);
    } else if (w == "--n" && has) s.n = static_cast<std::size_t>(std::atoll(argv[++i]));
    else if (w == "--calls" && has) s.calls = std::max(1, std::atoi(argv[++i]));
    else if (w == "--pencils" && has) s.fft.pencils = std::atoi(argv[++i]);
    else if (w == "--measure") s.fft.measure = true;
    else if (w == "--all") s.all = true;
    else if (!w.empty() && w[0] == '+') {
      if (has && argv[i + 1][0] != '+' && argv[i + 1][0] != '-') ++i;  // a roam option's value
    } else {
      if (w != "--help" && w != "-h") std::fprintf(stderr, "fft_mpi: unknown option '%s'\n", w.c_str());
      status = usage(w == "--help" || w == "-h");
      return false;
    }
  }
  if (s.n == 0) {
    std::fprintf(stderr, "fft_mpi: n must be at least 1\n");
    status = 2;
    return false;
  }
  return true;
}

// One call's figures, from PE 0 to every rank.
struct figures {
  double seconds = 0;   // the forward transform
  double residual = 0;  // ||x - x'|| / (eps log2 N)
  void pup(roam::pup_er& p) { p | seconds | residual; }
};

// The library's handle, made by the first call on node 0 and kept.
std::optional<roam::fft::fft1d> g_fft;

roam::task<figures> transform_once(const settings& s, std::uint64_t seed) {
  if (!g_fft) g_fft = co_await roam::fft::fft1d::create(s.n, s.fft);
  co_await g_fft->fill_random(seed);
  const auto t0 = std::chrono::steady_clock::now();
  co_await g_fft->forward();
  figures f;
  f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  co_await g_fft->inverse();
  const double big_n = static_cast<double>(s.n) * static_cast<double>(s.n);
  f.residual = co_await g_fft->max_difference(seed) /
               (std::numeric_limits<double>::epsilon() * std::max(1.0, std::log2(big_n)));
  co_return f;
}

// The plain MPI ranks' own work between collectives: a serial forward and
// inverse FFTW transform of n points; its round-trip error.
double serial_work(std::size_t n, std::uint64_t seed) {
  auto* x = static_cast<fftw_complex*>(fftw_malloc(sizeof(fftw_complex) * n));
  auto* y = static_cast<fftw_complex*>(fftw_malloc(sizeof(fftw_complex) * n));
  const int len = static_cast<int>(n);
  fftw_plan fwd = fftw_plan_dft_1d(len, x, y, FFTW_FORWARD, FFTW_ESTIMATE);
  fftw_plan inv = fftw_plan_dft_1d(len, y, x, FFTW_BACKWARD, FFTW_ESTIMATE);
  for (std::size_t i = 0; i < n; ++i) {
    const auto v = roam::fft::random_entry(seed, i);
    x[i][0] = v.real();
    x[i][1] = v.imag();
  }
  fftw_execute(fwd);
  fftw_execute(inv);
  double err = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto v = roam::fft::random_entry(seed, i);
    err = std::max(err, std::hypot(x[i][0] / len - v.real(), x[i][1] / len - v.imag()));
  }
  fftw_destroy_plan(fwd);
  fftw_destroy_plan(inv);
  fftw_free(x);
  fftw_free(y);
  return err;
}

}  // namespace

int main(int argc, char** argv) {
  settings s;
  int status = 0;
  if (!parse(argc, argv, s, status)) return status;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const bool in_roam = s.all || rank % 2 == 0;
  MPI_Comm roam_comm = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, in_roam ? 0 : MPI_UNDEFINED, rank, &roam_comm);
  try {
    if (in_roam) roam::library_init(roam_comm, argc, argv);
  } catch (const roam::library_error& e) {
    std::fprintf(stderr, "fft_mpi: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const double big_n = static_cast<double>(s.n) * static_cast<double>(s.n);
  double best = 1e300, worst = 0, serial_error = 0;
  for (int k = 0; k < s.calls; ++k) {
    // MPI phase: the whole world agrees on the call's seed.
    int mine = k + 1, seed = 0;
    MPI_Allreduce(&mine, &seed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    figures f;
    if (in_roam) {
      f = roam::library_call([&s, seed] { return transform_once(s, static_cast<std::uint64_t>(seed)); });
    } else {
      serial_error = std::max(serial_error, serial_work(s.n, static_cast<std::uint64_t>(seed)));
    }
    double pair[2] = {f.seconds, f.residual};
    MPI_Bcast(pair, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    best = std::min(best, pair[0]);
    worst = std::max(worst, pair[1]);
    if (rank == 0)
      std::printf("fft_mpi: call %d: forward %.6f s, %.3f GFlop/s, residual %.4f\n", k, pair[0],
                  5.0 * big_n * std::log2(std::max(2.0, big_n)) / pair[0] * 1e-9, pair[1]);
  }
  std::uint32_t pes = 0;
  if (in_roam) {
    pes = roam::library_call([] { return roam::num_pes(); });
    roam::library_exit();
    MPI_Comm_free(&roam_comm);
  }
  double serial_worst = 0;
  MPI_Reduce(&serial_error, &serial_worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  const bool ok = worst < 16.0 && serial_worst < 1e-12;
  if (rank == 0) {
    const double gflops = 5.0 * big_n * std::log2(std::max(2.0, big_n)) / best * 1e-9;
    std::printf("fft_mpi: N %.0f (n %zu) on %u roam pes of %d MPI ranks, %d calls between MPI phases\n", big_n, s.n,
                pes, size, s.calls);
    std::printf("fft_mpi: best forward %.6f s, %.3f GFlop/s; plain MPI ranks' serial error %.2e\n", best, gflops,
                serial_worst);
    std::printf("fft_mpi: residual ||x - x'||/(eps log2 N) = %.4f (threshold 16): %s\n", worst,
                ok ? "PASSED" : "FAILED");
  }
  MPI_Finalize();
  return ok ? 0 : 1;
}
