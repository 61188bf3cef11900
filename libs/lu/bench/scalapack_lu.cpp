// The anchor of docs/perf.md's LU figures beside HPL: ScaLAPACK's pdgetrf
// on a random N×N matrix in NB×NB blocks over a P×Q process grid (block-
// cyclic), timed alone; GFlop/s = 2/3 N³ / time.
//
//   mpirun -n P*Q scalapack_lu [N] [NB] [P]      (default 4000, 128, 1)
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

extern "C" {
void Cblacs_pinfo(int* me, int* procs);
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int rows, int cols);
void Cblacs_gridinfo(int context, int* rows, int* cols, int* row, int* col);
void Cblacs_gridexit(int context);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc, const int* icsrc,
               const int* context, const int* lld, int* info);
void pdgetrf_(const int* m, const int* n, double* a, const int* ia, const int* ja, const int* desc, int* ipiv, int* info);
void openblas_set_num_threads(int);
}

int main(int argc, char** argv) {
  if (argc > 1 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::printf("usage: mpirun -n P*Q scalapack_lu [N] [NB] [P]\n  ScaLAPACK's pdgetrf of a random N x N matrix on a P x Q grid\n"
                "example: mpirun -n 2 scalapack_lu 4000 64 1\n");
    return 0;
  }
  MPI_Init(&argc, &argv);
  openblas_set_num_threads(1);
  int me = 0, procs = 1;
  Cblacs_pinfo(&me, &procs);
  const int n = argc > 1 ? std::atoi(argv[1]) : 4000, nb = argc > 2 ? std::atoi(argv[2]) : 128;
  const int p = argc > 3 ? std::atoi(argv[3]) : 1, q = procs / std::max(1, p);
  if (n < 1 || nb < 1 || p < 1 || p * q != procs) {
    if (me == 0)
      std::fprintf(stderr, "scalapack_lu: N, NB and P must be positive and P must divide the %d processes\n"
                           "usage: mpirun -n P*Q scalapack_lu [N] [NB] [P]\n", procs);
    MPI_Finalize();
    return 2;
  }
  int ctx = 0, rows = 0, cols = 0, row = 0, col = 0;
  Cblacs_get(-1, 0, &ctx);
  Cblacs_gridinit(&ctx, "Row", p, q);
  Cblacs_gridinfo(ctx, &rows, &cols, &row, &col);
  const int zero = 0, one = 1;
  const int mloc = numroc_(&n, &nb, &row, &zero, &rows), nloc = numroc_(&n, &nb, &col, &zero, &cols);
  const int lld = std::max(1, mloc);
  int desc[9], info = 0;
  descinit_(desc, &n, &n, &nb, &nb, &zero, &zero, &ctx, &lld, &info);
  std::vector<double> a(static_cast<std::size_t>(lld) * static_cast<std::size_t>(std::max(1, nloc)));
  std::mt19937_64 g(static_cast<std::uint64_t>(me) + 1);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  for (double& x : a) x = u(g);
  std::vector<int> ipiv(static_cast<std::size_t>(mloc + nb));
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  pdgetrf_(&n, &n, a.data(), &one, &one, desc, ipiv.data(), &info);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t = MPI_Wtime() - t0;
  if (me == 0)
    std::printf("scalapack_lu: N %d, NB %d, grid %dx%d: pdgetrf %.6f s, %.3f GFlop/s (info %d)\n", n, nb, p, q, t,
                2.0 / 3.0 * n * static_cast<double>(n) * n / t * 1e-9, info);
  Cblacs_gridexit(ctx);
  MPI_Finalize();
  return info == 0 ? 0 : 1;
}
