// The machine's dgemm rate, the yardstick of docs/perf.md's LU figures: C -=
// A B for square matrices of order M on T threads at once (one per core,
// OpenBLAS single-threaded in each), GFlop/s per thread and in all.
//
//   dgemm_peak [M] [T] [SECONDS]      (default 2000, 2 threads, 2 s)
#include <cblas.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  if (argc > 1 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::printf("usage: dgemm_peak [M] [THREADS] [SECONDS]\n  C -= A B (order M) on THREADS threads at once for SECONDS\n"
                "example: dgemm_peak 2000 2 2\n");
    return 0;
  }
  const int m = argc > 1 ? std::atoi(argv[1]) : 2000;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  const double seconds = argc > 3 ? std::atof(argv[3]) : 2.0;
  if (m < 1 || threads < 1 || seconds <= 0) {
    std::fprintf(stderr, "dgemm_peak: M, THREADS and SECONDS must be positive numbers\nusage: dgemm_peak [M] [THREADS] [SECONDS]\n");
    return 2;
  }
  openblas_set_num_threads(1);
  std::vector<double> rate(static_cast<std::size_t>(threads));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      const std::size_t cells = static_cast<std::size_t>(m) * static_cast<std::size_t>(m);
      std::vector<double> a(cells, 0.5), b(cells, 0.25), c(cells, 0.0);
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, m, m, -1.0, a.data(), m, b.data(), m, 1.0, c.data(), m);  // warm
      int calls = 0;
      const auto t0 = std::chrono::steady_clock::now();
      double elapsed = 0;
      do {
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, m, m, -1.0, a.data(), m, b.data(), m, 1.0, c.data(), m);
        ++calls;
        elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      } while (elapsed < seconds);
      rate[static_cast<std::size_t>(t)] = 2.0 * m * static_cast<double>(m) * m * calls / elapsed * 1e-9;
    });
  for (auto& th : pool) th.join();
  double total = 0;
  for (int t = 0; t < threads; ++t) {
    std::printf("dgemm_peak: thread %d: %.2f GFlop/s\n", t, rate[static_cast<std::size_t>(t)]);
    total += rate[static_cast<std::size_t>(t)];
  }
  std::printf("dgemm_peak: M %d, %d threads: %.2f GFlop/s in all\n", m, threads, total);
  return 0;
}
