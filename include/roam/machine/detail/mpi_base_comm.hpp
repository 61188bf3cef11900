#pragma once
// The communicator the mpi transport builds its job on. A program started
// by mpirun uses MPI_COMM_WORLD; library mode (include/roam/interop/
// mpi_library.hpp) starts roam on the processes of a communicator the MPI
// program chose, and the other ranks never take part.
#ifndef ROAM_HAVE_MPI
#error "roam/machine/detail/mpi_base_comm.hpp needs a roam built with MPI (ROAM_HAVE_MPI)"
#endif
#include <mpi.h>

namespace roam::detail {

/// The next mpi transport duplicates `comm` (its ranks are the job's
/// processes, in rank order) instead of MPI_COMM_WORLD. Before it is made,
/// on the thread that makes it.
void set_mpi_base_comm(MPI_Comm comm) noexcept;
/// MPI_COMM_WORLD unless set_mpi_base_comm said otherwise.
MPI_Comm mpi_base_comm() noexcept;

}  // namespace roam::detail
