// What Global Arrays calls beyond the rest of armci.h (issue #39's aim: GA
// built against roam's ARMCI, libs/armci/tests/ga_suite.py): ARMCI-MPI's
// initialisation over a communicator (GA_Initialize_comm) and its
// memory-device allocations (GA's allocation and free paths name them
// whatever the array's device, so every GA program needs them to load).
#include <string>

#include <armci.h>

#include "state.hpp"

using namespace roam::armci;

namespace {

// roam's ARMCI processes are the ranks of MPI_COMM_WORLD (every target, group
// and block list is kept by world rank), so ARMCI runs over `comm` only when
// `comm` holds all of them in the same order (MPI_COMM_WORLD or a duplicate).
// Anything else stops the job saying so, rather than silently numbering the
// processes differently from what the caller expects.
int init_over(int armci_requested, MPI_Comm comm, const char* function) {
  int up = 0;
  MPI_Initialized(&up);
  if (!up) fatal(function, "MPI is not initialized (the communicator is MPI's: call MPI_Init first)");
  if (comm == MPI_COMM_NULL) fatal(function, "the communicator is MPI_COMM_NULL");
  int same = MPI_UNEQUAL;
  MPI_Comm_compare(comm, MPI_COMM_WORLD, &same);
  if (same != MPI_IDENT && same != MPI_CONGRUENT) {
    int size = 0, world = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    fatal(function, "a communicator of " + std::to_string(size) + " of MPI_COMM_WORLD's " + std::to_string(world) +
                        " ranks" + (size == world ? " (in another order)" : "") +
                        ": roam's ARMCI runs over all of MPI_COMM_WORLD only (its processes are the world's ranks)");
  }
  return PARMCI_Init_thread(armci_requested);
}

}  // namespace

extern "C" {

int PARMCI_Init_thread_comm(int armci_requested, MPI_Comm comm) {
  return init_over(armci_requested, comm, "ARMCI_Init_thread_comm");
}

// 0 on success, as ARMCI-MPI (GA's own ARMCI returns nonzero instead, and
// GA_Initialize_comm takes 0 for a failure: with ARMCI-MPI, and here, it
// returns without initializing GA).
int PARMCI_Init_mpi_comm(MPI_Comm comm) { return init_over(MPI_THREAD_SINGLE, comm, "ARMCI_Init_mpi_comm"); }

// The device is ignored, as in ARMCI-MPI: a rank's blocks are in its own
// heap, the only memory that moves with it.
int PARMCI_Malloc_memdev(void** ptr_arr, armci_size_t bytes, const char*) { return PARMCI_Malloc(ptr_arr, bytes); }
int PARMCI_Malloc_group_memdev(void** ptr_arr, armci_size_t bytes, ARMCI_Group* group, const char*) {
  return ARMCI_Malloc_group(ptr_arr, bytes, group);
}
int PARMCI_Free_memdev(void* ptr) { return PARMCI_Free(ptr); }

}  // extern "C"

// The profiling interface: ARMCI_<name> is a weak alias of PARMCI_<name>.
ROAM_ARMCI_PARMCI(Init_thread_comm)
ROAM_ARMCI_PARMCI(Init_mpi_comm)
ROAM_ARMCI_PARMCI(Malloc_memdev)
ROAM_ARMCI_PARMCI(Malloc_group_memdev)
ROAM_ARMCI_PARMCI(Free_memdev)
