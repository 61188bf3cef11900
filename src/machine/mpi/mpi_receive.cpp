// The receiving side: small frames from the pre-posted ring, big ones
// announced there and received into one reused buffer.
#include <algorithm>
#include <climits>
#include <cstring>

#include "mpi/mpi_error.hpp"
#include "mpi/mpi_frame_tag.hpp"
#include "mpi/mpi_transport.hpp"

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
    bool done = false;
    MPI_Status status;
    int rc = ring_.test_head(done, status);
    // (MPI_Test leaves status.MPI_ERROR alone on success: only rc counts.)
    if (rc != MPI_SUCCESS && !done) mpi_fatal(my_node_, "MPI_Test on the frame receives", rc);
    if (!done) break;
    ++received;
    auto src = static_cast<std::uint32_t>(status.MPI_SOURCE);
    if (rc != MPI_SUCCESS) {
      peer_failed(src, "receiving a frame from node " + std::to_string(src) + " failed: " + mpi_error_text(rc));
    } else {
      heard_[src] = 1;
      int count = 0;
      MPI_Get_count(&status, MPI_BYTE, &count);
      auto bytes = ring_.head_bytes(static_cast<std::size_t>(count));
      if (status.MPI_TAG == mpi_heartbeat_tag) {
        // Only "alive" (heard_ above): not a frame.
      } else if (status.MPI_TAG == mpi_header_tag) receive_big_frame(src, bytes);
      else if (status.MPI_TAG == mpi_segmented_tag) receive_segmented_frame(src, bytes);
      else deliver(src, bytes);
    }
    // Only now: the slot's bytes were in use until on_frame returned.
    rc = ring_.release_head();
    if (rc != MPI_SUCCESS) mpi_fatal(my_node_, "MPI_Start of a frame receive", rc);
  }
  return received;
}

void mpi_transport::receive_big_frame(std::uint32_t src, std::span<const std::byte> header) noexcept {
  mpi_frame_header size = 0;
  if (header.size() != sizeof size) {
    peer_failed(src, "node " + std::to_string(src) + " sent a malformed frame header");
    return;
  }
  std::memcpy(&size, header.data(), sizeof size);
  if (size > static_cast<mpi_frame_header>(INT_MAX)) {
    peer_failed(src, "node " + std::to_string(src) + " announced a frame of " + std::to_string(size) + " bytes");
    return;
  }
  // The bytes are the next payload from src (it started them right after the
  // header). Blocking here is the copy that has to happen anyway; with CMA
  // it is one process_vm_readv.
  // Straight into the runtime's message memory when it offers it (no copy
  // after MPI's), else into the reused buffer.
  std::byte* buf = nullptr;
  if (handlers_.frame_memory != nullptr) buf = handlers_.frame_memory(handlers_.ctx, static_cast<std::size_t>(size));
  if (buf == nullptr) buf = recv_buffer(static_cast<std::size_t>(size));
  if (!receive_bulk(src, buf, static_cast<std::size_t>(size), "a frame")) return;
  deliver(src, std::span<const std::byte>(buf, static_cast<std::size_t>(size)));
}

void mpi_transport::receive_segmented_frame(std::uint32_t src, std::span<const std::byte> header) noexcept {
  // Everything in the header is validated before anything is sized by it.
  auto malformed = [&](const std::string& why) {
    peer_failed(src, "node " + std::to_string(src) + " sent a malformed segmented frame header (" + why + ")");
  };
  mpi_segmented_header fixed{};
  if (header.size() < sizeof fixed) return malformed(std::to_string(header.size()) + " bytes");
  std::memcpy(&fixed, header.data(), sizeof fixed);
  if (fixed.segments == 0 || fixed.segments > max_frame_segments)
    return malformed(std::to_string(fixed.segments) + " segments, must be 1.." + std::to_string(max_frame_segments));
  if (fixed.embedded > 1) return malformed("embedded flag " + std::to_string(fixed.embedded));
  if (fixed.inline_bytes > static_cast<std::uint64_t>(INT_MAX))
    return malformed(std::to_string(fixed.inline_bytes) + " inline bytes");
  const std::size_t table = mpi_segmented_header_bytes(fixed.segments);
  const std::size_t expected = table + (fixed.embedded ? static_cast<std::size_t>(fixed.inline_bytes) : 0);
  if (header.size() != expected)
    return malformed(std::to_string(header.size()) + " bytes where its fields need " + std::to_string(expected));
  recv_segments_.clear();
  for (std::uint32_t i = 0; i < fixed.segments; ++i) {
    std::uint64_t len = 0;
    std::memcpy(&len, header.data() + sizeof fixed + 8 * i, 8);
    if (len > static_cast<std::uint64_t>(INT_MAX))
      return malformed("segment " + std::to_string(i) + " of " + std::to_string(len) + " bytes");
    recv_segments_.push_back({block_ref{}, static_cast<std::size_t>(len)});
  }
  // Then the bytes, in the order they were sent on bulk.
  const auto inline_bytes = static_cast<std::size_t>(fixed.inline_bytes);
  std::span<const std::byte> frame;
  if (fixed.embedded) {
    frame = header.subspan(table);
  } else {
    std::byte* buf = recv_buffer(inline_bytes);
    if (!receive_bulk(src, buf, inline_bytes, "a frame")) return;
    frame = std::span<const std::byte>(buf, inline_bytes);
  }
  for (auto& s : recv_segments_) {
    // Each segment lands in a block of its own, which the runtime keeps as
    // is (a roam::buffer adopts it): the only copy is MPI's.
    try {
      s.block = block_ref::allocate(s.bytes);
    } catch (const std::bad_alloc&) {
      mpi_fatal(my_node_, ("allocating a segment of " + std::to_string(s.bytes) + " bytes").c_str(), MPI_ERR_NO_MEM);
    }
    if (!receive_bulk(src, s.block.data(), s.bytes, "a segment")) {
      recv_segments_.clear();
      return;
    }
  }
  deliver(src, frame, recv_segments_);
  recv_segments_.clear();  // drops whatever the handler did not take
}

bool mpi_transport::receive_bulk(std::uint32_t src, std::byte* into, std::size_t bytes, const char* what) noexcept {
  MPI_Status status;
  int rc = MPI_Recv(into, static_cast<int>(bytes), MPI_BYTE, static_cast<int>(src), mpi_payload_tag, comms_.bulk,
                    &status);
  if (rc != MPI_SUCCESS) {
    peer_failed(src, std::string("receiving ") + what + " from node " + std::to_string(src) +
                         " failed: " + mpi_error_text(rc));
    return false;
  }
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  if (static_cast<std::size_t>(count) != bytes) {
    peer_failed(src, "node " + std::to_string(src) + " sent " + std::to_string(count) + " bytes of " + what +
                         " announced as " + std::to_string(bytes));
    return false;
  }
  return true;
}

void mpi_transport::deliver(std::uint32_t src, std::span<const std::byte> frame,
                            std::span<frame_segment> segments) noexcept {
  ++received_from_[src];
  // A silenced process drops what it receives (still counted: the finish
  // handshake needs every frame sent here accounted for).
  if (handlers_.on_frame == nullptr || silenced_.load(std::memory_order_relaxed)) return;
  ++handler_depth_;
  handlers_.on_frame(handlers_.ctx, src, frame, segments);
  --handler_depth_;
}

bool mpi_transport::frame_waiting() noexcept {
  bool ready = false;
  int rc = ring_.peek_head(ready);
  if (rc != MPI_SUCCESS) mpi_fatal(my_node_, "MPI_Request_get_status on the frame receives", rc);
  return ready;
}

}  // namespace roam::detail
