/* getopt() in every rank: each rank parses its own command line (the C
 * library's parse state is per process; libs/ampi/src/getopt.cpp gives it
 * to each rank), with short and long options and the positional argument
 * after them, the ranks' parses interleaved (a barrier after each option);
 * then a second parse from optind = 1, one rank at a time.
 * Prints "ampi_getopt: OK (N ranks)". */
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One parse; `interleave`: a barrier after each option (the other ranks
 * parse meanwhile). */
static int parse(int argc, char** argv, int* n, int* b, int* verbose, int interleave) {
  static const struct option longs[] = {{"verbose", no_argument, NULL, 'v'}, {NULL, 0, NULL, 0}};
  int c;
  *n = *b = -1;
  *verbose = 0;
  while ((c = getopt_long(argc, argv, "n:b:", longs, NULL)) != -1) {
    if (c == 'n') *n = atoi(optarg);
    else if (c == 'b') *b = atoi(optarg);
    else if (c == 'v') *verbose = 1;
    else return 0;
    if (interleave) MPI_Barrier(MPI_COMM_WORLD);
  }
  return optind == argc - 1 && strcmp(argv[optind], "last") == 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, size, n, b, verbose, ok;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ok = parse(argc, argv, &n, &b, &verbose, 1) && n == 100 && b == 7 && verbose;
  if (!ok) printf("ampi_getopt: FAILED: rank %d saw -n %d -b %d --verbose %d\n", me, n, b, verbose);
  /* Parse again from optind = 1, one rank at a time (optind itself is one
   * variable of the process: a rank that writes it while another parses on
   * another PE would move that one's). */
  int again = 1;
  for (int turn = 0; turn < size; ++turn) {
    if (turn == me) {
      optind = 1;
      again = parse(argc, argv, &n, &b, &verbose, 0) && n == 100 && b == 7 && verbose;
      if (!again) printf("ampi_getopt: FAILED: rank %d's second parse saw -n %d -b %d --verbose %d\n", me, n, b, verbose);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  int mine = ok && again, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (me == 0 && all) printf("ampi_getopt: OK (%d ranks)\n", size);
  MPI_Finalize();
  return all ? 0 : 1;
}
