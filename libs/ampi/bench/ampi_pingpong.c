/* ampi_pingpong: MPI latency benchmarks in standard MPI, so that the same
 * source runs on roam's Adaptive MPI (ampicc), Charm++'s AMPI and a native
 * MPI (mpicc) side by side:
 *   ampi_pingpong pingpong BYTES [ITERS=10000]   ranks 0 and 1 (the others
 *                                               wait): microseconds one way
 *   ampi_pingpong allreduce BYTES [ITERS=10000]  every rank: microseconds
 *                                               per MPI_Allreduce (MPI_SUM
 *                                               of doubles)
 * Each prints one line "ampi_pingpong <what> <bytes> B: <us> us" (the median
 * of 5 repetitions after a warm-up). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const char* what = argc > 1 ? argv[1] : "pingpong";
  long bytes = argc > 2 ? atol(argv[2]) : 8;
  int iters = argc > 3 ? atoi(argv[3]) : 10000;
  const int allreduce = strcmp(what, "allreduce") == 0;
  if (!allreduce && np < 2) {
    if (me == 0) fprintf(stderr, "ampi_pingpong: pingpong needs 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char* buf = malloc((size_t)bytes + 8);
  char* out = malloc((size_t)bytes + 8);
  memset(buf, 1, (size_t)bytes);
  double times[5];
  for (int rep = -1; rep < 5; ++rep) {
    MPI_Barrier(MPI_COMM_WORLD);
    const int n = rep < 0 ? iters / 10 + 1 : iters;
    double t0 = MPI_Wtime();
    if (allreduce) {
      for (int i = 0; i < n; ++i)
        MPI_Allreduce(buf, out, (int)(bytes / 8 > 0 ? bytes / 8 : 1), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    } else if (me == 0) {
      for (int i = 0; i < n; ++i) {
        MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    } else if (me == 1) {
      for (int i = 0; i < n; ++i) {
        MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
    }
    double t = (MPI_Wtime() - t0) * 1e6 / n;
    if (!allreduce) t /= 2;
    if (rep >= 0) times[rep] = t;
  }
  qsort(times, 5, sizeof times[0], cmp);
  if (me == 0) printf("ampi_pingpong %s %ld B: %.3f us\n", what, bytes, times[2]);
  free(buf);
  free(out);
  MPI_Finalize();
  return 0;
}
