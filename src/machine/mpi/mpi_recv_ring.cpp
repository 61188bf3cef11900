#include "mpi/mpi_recv_ring.hpp"

namespace roam::detail {

mpi_recv_ring::~mpi_recv_ring() { close(); }

int mpi_recv_ring::open(MPI_Comm comm, std::size_t slots, std::size_t slot_bytes) {
  slot_bytes_ = slot_bytes;
  buffers_ = std::make_unique_for_overwrite<std::byte[]>(slots * slot_bytes);
  requests_.assign(slots, MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < slots; ++i) {
    int rc = MPI_Recv_init(slot(i), static_cast<int>(slot_bytes), MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm,
                           &requests_[i]);
    if (rc == MPI_SUCCESS) rc = MPI_Start(&requests_[i]);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

int mpi_recv_ring::test_head(bool& done, MPI_Status& status) {
  int flag = 0;
  int rc = MPI_Test(&requests_[head_], &flag, &status);
  done = flag != 0;
  return rc;
}

int mpi_recv_ring::release_head() {
  int rc = MPI_Start(&requests_[head_]);
  head_ = head_ + 1 == requests_.size() ? 0 : head_ + 1;
  return rc;
}

int mpi_recv_ring::peek_head(bool& ready) {
  int flag = 0;
  int rc = MPI_Request_get_status(requests_[head_], &flag, MPI_STATUS_IGNORE);
  ready = flag != 0;
  return rc;
}

void mpi_recv_ring::close() noexcept {
  // Without finish() the program may have finalized MPI itself; then there
  // is nothing left to cancel (and no MPI call is allowed).
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) requests_.clear();
  for (MPI_Request& r : requests_) {
    if (r == MPI_REQUEST_NULL) continue;
    MPI_Cancel(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Request_free(&r);
  }
  requests_.clear();
}

}  // namespace roam::detail
