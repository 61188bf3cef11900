#pragma once
// The communicator the mpi transport builds its job on. A program started
// by mpirun uses MPI_COMM_WORLD; library mode (include/roam/interop/
// mpi_library.hpp) starts roam on the processes of a communicator the MPI
// program chose, and the other ranks never take part.
// Empty in a roam built without MPI (no ROAM_HAVE_MPI).
#ifdef ROAM_HAVE_MPI
#include <mpi.h>

namespace roam::detail {

/// The next mpi transport duplicates `comm` (its ranks are the job's
/// processes, in rank order) instead of MPI_COMM_WORLD (the default). Before it is made,
/// on the thread that makes it.
void set_mpi_base_comm(MPI_Comm comm) noexcept;

}  // namespace roam::detail

#endif  // ROAM_HAVE_MPI
