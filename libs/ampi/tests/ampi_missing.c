/* ampi_missing: an MPI program that calls an MPI function Adaptive MPI does
 * not provide (declared here by hand, as an implicit declaration would).
 * The loader must refuse it by name before it runs, rather than let another
 * MPI library in the process (the MPI transport's) answer the call. */
#include <mpi.h>
#include <stdio.h>

int MPI_Roam_not_a_function(int x);

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  printf("ampi_missing: ran (%d)\n", argc > 5 ? MPI_Roam_not_a_function(argc) : 0);
  MPI_Finalize();
  return 0;
}
