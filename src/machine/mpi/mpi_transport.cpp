// Placeholder until the MPI transport lands (replaced by its implementation).
#include "machine/transport.hpp"
namespace roam::detail {
std::unique_ptr<transport> make_mpi_transport(std::string& error) {
  error = "mpi transport: not built yet";
  return nullptr;
}
}  // namespace roam::detail
