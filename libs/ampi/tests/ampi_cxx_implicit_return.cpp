// ampi_cxx_implicit_return: a C++ MPI program whose main ends without a
// return statement, as C++ allows (main alone returns 0 then). Built by
// ampicxx, every rank's main must end with status 0; the last call before
// the end returns nonzero, so a main that lost its implicit return (renamed
// into an ordinary function) ends the job with a garbage status.
#include <mpi.h>
#include <cstdio>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, np = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  if (me == 0) std::printf("ampi_cxx_implicit_return: %d ranks ended main without a return statement\n", np);
  else std::fflush(stdout);
}
