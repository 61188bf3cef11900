// The receiving side: matched probe + receive into one reused buffer.
#include <algorithm>

#include "machine/mpi/mpi_error.hpp"
#include "machine/mpi/mpi_frame_tag.hpp"
#include "machine/mpi/mpi_transport.hpp"

namespace roam::detail {

std::byte* mpi_transport::recv_buffer(std::size_t bytes) {
  // Shrink only after many frames without a huge one: alternating huge and
  // small frames must not reallocate (and page-fault) the buffer every time.
  if (bytes > recv_buffer_kept) frames_since_huge_ = 0;
  else if (frames_since_huge_ < frames_before_shrink) ++frames_since_huge_;
  bool shrink = recv_capacity_ > recv_buffer_kept && frames_since_huge_ >= frames_before_shrink;
  if (bytes > recv_capacity_ || shrink) {
    std::size_t capacity = std::max(bytes, recv_buffer_initial);
    recv_buf_.reset();  // free first: the old and new buffer need not coexist
    recv_buf_ = std::make_unique_for_overwrite<std::byte[]>(capacity);
    recv_capacity_ = capacity;
  }
  return recv_buf_.get();
}

std::size_t mpi_transport::receive_frames(std::size_t cap) noexcept {
  std::size_t received = 0;
  while (received < cap) {
    // Probe-then-receive (rather than pre-posted receives) takes frames of any
    // size in the order they were sent, and MPI_Mrecv on the matched message
    // cannot be stolen by another receive.
    int flag = 0;
    MPI_Message message = MPI_MESSAGE_NULL;
    MPI_Status status;
    int rc = MPI_Improbe(MPI_ANY_SOURCE, mpi_frame_tag, data_comm_, &flag, &message, &status);
    if (rc != MPI_SUCCESS) mpi_fatal(my_node_, "MPI_Improbe for frames", rc);
    if (!flag) break;
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    auto src = static_cast<std::uint32_t>(status.MPI_SOURCE);
    std::byte* buf = recv_buffer(static_cast<std::size_t>(count));
    rc = MPI_Mrecv(buf, count, MPI_BYTE, &message, MPI_STATUS_IGNORE);
    ++received;
    if (rc != MPI_SUCCESS) {
      peer_failed(src, "receiving a frame from node " + std::to_string(src) + " failed: " + mpi_error_text(rc));
      continue;
    }
    ++received_from_[src];
    if (handlers_.on_frame != nullptr)
      handlers_.on_frame(handlers_.ctx, src, std::span<const std::byte>(buf, static_cast<std::size_t>(count)));
  }
  return received;
}

bool mpi_transport::frame_waiting() noexcept {
  int flag = 0;
  int rc = MPI_Iprobe(MPI_ANY_SOURCE, mpi_frame_tag, data_comm_, &flag, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) mpi_fatal(my_node_, "MPI_Iprobe for frames", rc);
  return flag != 0;
}

}  // namespace roam::detail
