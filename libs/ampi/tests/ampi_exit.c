/* ampi_exit: how an MPI program's end reaches the job's exit status.
 *   ampi_exit exit CODE     the last rank calls exit(CODE) while the others
 *                           wait in MPI_Recv for a message that never comes:
 *                           the program ends with CODE (as an MPI process's
 *                           exit ends its job), output flushed
 *   ampi_exit return CODE   every rank returns CODE from main after
 *                           MPI_Finalize: the program ends with CODE
 * Rank 0 prints "ampi_exit: rank 0 waiting" (exit) or "ampi_exit: returning
 * CODE" (return) before. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (argc != 3 || (strcmp(argv[1], "exit") != 0 && strcmp(argv[1], "return") != 0)) {
    if (me == 0) fprintf(stderr, "usage: ampi_exit exit|return CODE\n");
    MPI_Finalize();
    return 2;
  }
  const int code = atoi(argv[2]);
  if (strcmp(argv[1], "return") == 0) {
    if (me == 0) printf("ampi_exit: returning %d\n", code);
    MPI_Finalize();
    return code;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == np - 1) {
    printf("ampi_exit: rank %d calls exit(%d)\n", me, code); /* no newline flush needed: exit flushes */
    exit(code);
  }
  if (me == 0) {
    printf("ampi_exit: rank 0 waiting\n");
    fflush(stdout);
  }
  int never = 0;
  MPI_Recv(&never, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  printf("ampi_exit: rank %d received a message nobody sent\n", me);
  MPI_Finalize();
  return 1;
}
