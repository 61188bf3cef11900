/* armci_bench: ARMCI latency and bandwidth in standard ARMCI + MPI, so that
 * the same source runs on roam (ampicc) and on ARMCI-MPI over a native MPI
 * (mpicc ... -larmci) side by side:
 *
 *   armci_bench OP BYTES [ITERS=2000]
 *
 * OP: put, get, acc (doubles, scale 1), their strided forms puts, gets, accs
 * (BYTES in 64-byte segments 128 bytes apart at both ends), and putf (a put
 * made complete at the target by ARMCI_Fence each time). Rank 0 operates on
 * rank 1's ARMCI_Malloc'd block; the other ranks wait. Puts and accumulates
 * are timed as ITERS calls and one ARMCI_Fence (ARMCI's blocking put returns
 * when the source may be reused), gets as ITERS blocking calls. Prints
 * "armci_bench OP BYTES B: US us MBS MB/s" (the median of 5 repetitions
 * after a warm-up). */
#include <armci.h>
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
  ARMCI_Init();
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const char* op = argc > 1 ? argv[1] : "put";
  long bytes = argc > 2 ? atol(argv[2]) : 8;
  int iters = argc > 3 ? atoi(argv[3]) : 2000;
  if (np < 2) {
    if (me == 0) fprintf(stderr, "armci_bench: needs 2 processes\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int strided = op[strlen(op) - 1] == 's' && strcmp(op, "puts") * strcmp(op, "gets") * strcmp(op, "accs") == 0;
  const long seg = bytes < 64 ? bytes : 64;
  const long nseg = (bytes + seg - 1) / seg;
  const long span = strided ? nseg * 128 : bytes;
  void** base = malloc(sizeof(void*) * (size_t)np);
  ARMCI_Malloc(base, span + 64);
  char* local = malloc((size_t)span + 64);
  memset(local, 0, (size_t)span + 64);
  // Ones to accumulate (a run of zeros added to zeros measured twice as slow
  // on this machine's virtual CPU, for ARMCI-MPI as for roam).
  for (long i = 0; i < (span + 64) / (long)sizeof(double); ++i) ((double*)local)[i] = 1.0;
  memset(base[me], 0, (size_t)span + 64);
  int stride[1] = {128};
  int count[2] = {(int)seg, (int)nseg};
  double scale = 1.0;
  double times[5];
  ARMCI_Barrier();
  for (int rep = -1; rep < 5; ++rep) {
    MPI_Barrier(MPI_COMM_WORLD);
    const int n = rep < 0 ? iters / 10 + 1 : iters;
    double t0 = MPI_Wtime();
    if (me == 0) {
      char* remote = (char*)base[1];
      for (int i = 0; i < n; ++i) {
        if (strcmp(op, "put") == 0) ARMCI_Put(local, remote, (int)bytes, 1);
        else if (strcmp(op, "putf") == 0) ARMCI_Put(local, remote, (int)bytes, 1), ARMCI_Fence(1);
        else if (strcmp(op, "get") == 0) ARMCI_Get(remote, local, (int)bytes, 1);
        else if (strcmp(op, "acc") == 0) ARMCI_Acc(ARMCI_ACC_DBL, &scale, local, remote, (int)bytes, 1);
        else if (strcmp(op, "puts") == 0) ARMCI_PutS(local, stride, remote, stride, count, 1, 1);
        else if (strcmp(op, "gets") == 0) ARMCI_GetS(remote, stride, local, stride, count, 1, 1);
        else if (strcmp(op, "accs") == 0) ARMCI_AccS(ARMCI_ACC_DBL, &scale, local, stride, remote, stride, count, 1, 1);
        else {
          fprintf(stderr, "armci_bench: unknown operation %s\n", op);
          MPI_Abort(MPI_COMM_WORLD, 2);
        }
      }
      ARMCI_Fence(1);
    }
    double t = (MPI_Wtime() - t0) / n * 1e6;
    if (rep >= 0) times[rep] = t;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) {
    qsort(times, 5, sizeof times[0], cmp);
    printf("armci_bench %s %ld B: %.3f us %.1f MB/s\n", op, bytes, times[2], bytes / times[2]);
  }
  ARMCI_Free(base[me]);
  free(local);
  free(base);
  ARMCI_Finalize();
  MPI_Finalize();
  return 0;
}
