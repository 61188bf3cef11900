#pragma once
// Turning MPI error codes into text, and the one fatal exit for MPI failures
// that no peer explains.
#include <string>

namespace roam::detail {

/// MPI's own words for `code` (MPI_Error_string), e.g. "MPI_ERR_RANK: invalid rank".
std::string mpi_error_text(int code);

/// Prints "roam mpi transport (node N): <what> failed: <MPI's text>" and ends
/// the whole job (MPI_Abort), as MPI's default error handler would have.
[[noreturn]] void mpi_fatal(unsigned node, const char* what, int code) noexcept;

}  // namespace roam::detail
