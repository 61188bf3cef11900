#include "mpi/mpi_error.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>

namespace roam::detail {

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) return "MPI error code " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(len));
}

void mpi_fatal(unsigned node, const char* what, int code) noexcept {
  std::fprintf(stderr, "roam mpi transport (node %u): %s failed: %s\n", node, what, mpi_error_text(code).c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();  // MPI_Abort should not return
}

}  // namespace roam::detail
