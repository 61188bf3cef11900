/* privatize_check: an MPI program with ordinary globals and statics, built
 * by ampicc. Every rank changes them, hops round the PEs (and processes)
 * with AMPI_Migrate_to_pe, and checks it still sees its own values.
 *   privatize_check [private|shared] [HOPS=6]
 * "shared" is the same program under +ampi_privatize=no on one process: the
 * ranks must then see each other's changes (the check that privatization is
 * what makes the difference). Rank 0 prints
 * "privatize_check: OK (<mode>, N ranks, H hops)". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int counter = 5;                                  /* .data */
static double table[4096];                        /* .bss (32 KiB) */
int* counter_at = &counter;                       /* a pointer between globals */
static const char* names[] = {"zero", "one", "two", "three"}; /* pointers into .rodata */
static int twice(int x) { return 2 * x; }
static int thrice(int x) { return 3 * x; }
static int (*ops[2])(int) = {twice, thrice};      /* function pointers in data */
char label[32] = "unset";

static int calls(void) {
  static int n = 0; /* a static local */
  return ++n;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const int shared = argc > 1 && strcmp(argv[1], "shared") == 0;
  const int hops = argc > 2 ? atoi(argv[2]) : 6;
  int bad = 0;
  if (shared) {
    ++counter; /* every rank of the process bumps the one counter */
    MPI_Barrier(MPI_COMM_WORLD);
    bad += counter != 5 + np;
  } else {
    counter += me;
    table[4095] = me * 0.5;
    snprintf(label, sizeof label, "rank %d", me);
    for (int h = 0; h < hops; ++h) {
      calls();
      AMPI_Migrate_to_pe((AMPI_My_pe() + 1) % AMPI_Num_pes());
      MPI_Barrier(MPI_COMM_WORLD);
    }
    char want[32];
    snprintf(want, sizeof want, "rank %d", me);
    bad += counter != 5 + me;
    bad += *counter_at != 5 + me;
    bad += counter_at != &counter;
    bad += table[4095] != me * 0.5;
    bad += strcmp(label, want) != 0;
    bad += calls() != hops + 1;
    bad += strcmp(names[me % 4], me % 4 == 0 ? "zero" : me % 4 == 1 ? "one" : me % 4 == 2 ? "two" : "three") != 0;
    bad += ops[me % 2](me + 1) != (me % 2 == 0 ? 2 : 3) * (me + 1);
    if (bad) fprintf(stderr, "privatize_check: rank %d: counter %d, label '%s', table %g\n", me, counter, label, table[4095]);
  }
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0 && total == 0)
    printf("privatize_check: OK (%s, %d ranks, %d hops)\n", shared ? "shared" : "private", np, shared ? 0 : hops);
  if (me == 0 && total != 0) printf("privatize_check: FAILED (%d wrong values)\n", total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
