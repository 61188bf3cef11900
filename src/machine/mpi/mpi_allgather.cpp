// The bootstrap exchange: every node's blob to every node (MPI_Allgatherv on
// the control communicator, so it never mixes with frames).
#include "mpi/mpi_error.hpp"
#include "mpi/mpi_transport.hpp"

#include <climits>

namespace roam::detail {

std::vector<std::vector<std::byte>> mpi_transport::allgather(std::span<const std::byte> mine) {
  if (mine.size() > static_cast<std::size_t>(INT_MAX)) mpi_fatal(my_node_, "allgather (blob over 2 GiB)", MPI_ERR_COUNT);
  const int n = static_cast<int>(num_nodes_);
  int my_size = static_cast<int>(mine.size());
  std::vector<int> sizes(num_nodes_);
  int rc = MPI_Allgather(&my_size, 1, MPI_INT, sizes.data(), 1, MPI_INT, comms_.control);
  if (rc != MPI_SUCCESS) mpi_fatal(my_node_, "MPI_Allgather of the bootstrap sizes", rc);
  std::vector<int> offsets(num_nodes_);
  long long total = 0;
  for (int i = 0; i < n; ++i) {
    offsets[static_cast<std::size_t>(i)] = static_cast<int>(total);
    total += sizes[static_cast<std::size_t>(i)];
    if (total > INT_MAX) mpi_fatal(my_node_, "allgather (blobs over 2 GiB in all)", MPI_ERR_COUNT);
  }
  std::vector<std::byte> all(static_cast<std::size_t>(total));
  rc = MPI_Allgatherv(mine.data(), my_size, MPI_BYTE, all.data(), sizes.data(), offsets.data(), MPI_BYTE, comms_.control);
  if (rc != MPI_SUCCESS) mpi_fatal(my_node_, "MPI_Allgatherv of the bootstrap blobs", rc);
  std::vector<std::vector<std::byte>> out(num_nodes_);
  for (std::size_t i = 0; i < num_nodes_; ++i) {
    auto first = all.begin() + offsets[i];
    out[i].assign(first, first + sizes[i]);
  }
  return out;
}

}  // namespace roam::detail
