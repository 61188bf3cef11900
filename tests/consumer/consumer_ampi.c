/* consumer_ampi: an MPI program built by the installed ampicc (Adaptive MPI)
 * and run on roam: every rank adds its rank to a global of its own, and the
 * sum over the ranks of (global - 100) must be the sum of the ranks. */
#include <mpi.h>
#include <stdio.h>

int mine = 100; /* each rank its own (ampicc privatizes globals) */

int main(int argc, char** argv) {
  int me, np, sum = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  mine += me;
  MPI_Barrier(MPI_COMM_WORLD);
  int v = mine - 100;
  MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) printf("consumer_ampi: %d ranks, sum %d: %s\n", np, sum, sum == np * (np - 1) / 2 ? "OK" : "WRONG");
  MPI_Finalize();
  return sum == np * (np - 1) / 2 ? 0 : 1;
}
