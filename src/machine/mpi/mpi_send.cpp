// The sending side: send() from any thread, the direct path on the progress
// thread, and the capped start/test tasks of progress().
#include <algorithm>
#include <climits>
#include <cstring>
#include <cstdio>
#include <cstdlib>

#include "mpi/mpi_error.hpp"
#include "mpi/mpi_frame_tag.hpp"
#include "mpi/mpi_progress_owner.hpp"
#include "mpi/mpi_transport.hpp"

namespace roam::detail {

void mpi_transport::send(std::uint32_t dst, out_frame frame) {
  if (dst >= num_nodes_ || dst == my_node_) {
    std::fprintf(stderr, "roam mpi transport (node %u): send() to node %u, outside the other nodes [0,%u) \\ {%u}\n",
                 my_node_, dst, num_nodes_, my_node_);
    std::abort();
  }
  std::size_t largest = frame.size();
  for (const auto& s : frame.segments()) largest = std::max(largest, s.bytes);
  if (largest > static_cast<std::size_t>(INT_MAX)) {
    // MPI-3 counts are int; splitting would need a second frame format.
    std::fprintf(stderr, "roam mpi transport (node %u): a frame (or segment) of %zu bytes to node %u exceeds the "
                 "largest MPI message (%d bytes); split the data\n", my_node_, largest, dst, INT_MAX);
    std::abort();
  }
  if (frame.segments().size() > max_frame_segments) {
    std::fprintf(stderr, "roam mpi transport (node %u): a frame to node %u has %zu segments, more than %zu\n",
                 my_node_, dst, frame.segments().size(), max_frame_segments);
    std::abort();
  }
  if (silenced_.load(std::memory_order_relaxed)) return;  // a silent process sends nothing
  if (closing_.load(std::memory_order_relaxed)) {
    // The finish handshake already told dst how many frames to expect.
    std::fprintf(stderr, "roam mpi transport (node %u): send() to node %u after finish() began; frame of %zu bytes "
                 "dropped\n", my_node_, dst, frame.size());
    return;
  }
  if (is_progress_owner(this)) {
    // Non-SMP mode (or a handler replying): start it now unless something
    // older is still queued, which must go first (per-pair order).
    if (!outbox_.maybe_nonempty() && staging_next_ == staging_.size() && inflight_.size() < limits_.max_inflight) {
      start_send(dst, std::move(frame));
      return;
    }
    outbox_.push(dst, std::move(frame));
    return;
  }
  outbox_.push(dst, std::move(frame));
  wake_.wake();
}

void mpi_transport::start_send(std::uint32_t dst, out_frame frame) noexcept {
  if (dropped_[dst]) return;  // declared failed: nobody will read it
  sent_recently_[dst] = 1;   // no heartbeat needed this interval
  if (frame.has_segments()) {
    start_segmented_send(dst, std::move(frame));
    return;
  }
  const std::byte* data = frame.data();
  const std::size_t size = frame.size();
  if (size <= limits_.small_frame) {
    if (isend(dst, data, size, mpi_frame_tag, comms_.frames, std::move(frame))) ++sent_to_[dst];
    return;
  }
  // A big frame: its header joins the ordered stream of small frames, its
  // bytes go out on the bulk communicator straight from the frame.
  mpi_frame_header announced = size;
  out_frame header = out_frame::copy_of(std::as_bytes(std::span(&announced, 1)));
  const std::byte* header_data = header.data();
  if (isend(dst, header_data, sizeof announced, mpi_header_tag, comms_.frames, std::move(header)) &&
      isend(dst, data, size, mpi_payload_tag, comms_.bulk, std::move(frame)))
    ++sent_to_[dst];
}

void mpi_transport::start_segmented_send(std::uint32_t dst, out_frame frame) noexcept {
  std::vector<frame_segment> segments = frame.take_segments();
  const std::size_t table = mpi_segmented_header_bytes(segments.size());
  // The inline bytes ride in the header message when both fit a ring slot:
  // the usual case (a message header and a few arguments beside a big
  // buffer), one small message and one bulk message per segment.
  const bool embedded = table + frame.size() <= limits_.small_frame;
  out_frame header(table + (embedded ? frame.size() : 0));
  mpi_segmented_header fixed{frame.size(), static_cast<std::uint32_t>(segments.size()), embedded ? 1u : 0u};
  std::memcpy(header.data(), &fixed, sizeof fixed);
  for (std::size_t i = 0; i < segments.size(); ++i) {
    std::uint64_t len = segments[i].bytes;
    std::memcpy(header.data() + sizeof fixed + 8 * i, &len, 8);
  }
  if (embedded && frame.size() != 0) std::memcpy(header.data() + table, frame.data(), frame.size());
  const std::byte* header_data = header.data();
  const std::size_t header_size = header.size();
  if (!isend(dst, header_data, header_size, mpi_segmented_tag, comms_.frames, std::move(header))) return;
  if (!embedded) {
    const std::byte* data = frame.data();
    const std::size_t size = frame.size();
    if (!isend(dst, data, size, mpi_payload_tag, comms_.bulk, std::move(frame))) return;
  }
  // Each segment straight from its block, which the in-flight table keeps
  // alive until MPI is done reading it.
  for (auto& s : segments) {
    const std::byte* data = s.block.data();
    if (!isend(dst, data, s.bytes, mpi_payload_tag, comms_.bulk, out_frame{}, std::move(s.block))) return;
  }
  ++sent_to_[dst];
}

bool mpi_transport::isend(std::uint32_t dst, const std::byte* data, std::size_t bytes, int tag, MPI_Comm comm,
                          out_frame frame, block_ref block) noexcept {
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = MPI_Isend(data, static_cast<int>(bytes), MPI_BYTE, static_cast<int>(dst), tag, comm, &request);
  if (rc != MPI_SUCCESS) {
    peer_failed(dst, "MPI_Isend to node " + std::to_string(dst) + " failed: " + mpi_error_text(rc));
    return false;
  }
  // Small messages are usually copied out by MPI_Isend itself (eager
  // protocol): one test frees them here and keeps them out of inflight_.
  int done = 0;
  rc = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) {
    peer_failed(dst, "a send to node " + std::to_string(dst) + " failed: " + mpi_error_text(rc));
    return true;  // it was started; the peer is gone either way
  }
  if (!done) inflight_.add(request, dst, std::move(frame), std::move(block));
  return true;
}

std::size_t mpi_transport::start_queued_sends(std::size_t cap) noexcept {
  std::size_t started = 0;
  while (started < cap && inflight_.size() < limits_.max_inflight) {
    if (staging_next_ == staging_.size()) {
      staging_.clear();
      staging_next_ = 0;
      if (!outbox_.take_all(staging_)) break;
    }
    mpi_outgoing& next = staging_[staging_next_++];
    start_send(next.dst, std::move(next.frame));
    ++started;
  }
  return started;
}

std::size_t mpi_transport::test_sends(std::size_t cap) noexcept {
  if (inflight_.empty()) return 0;
  send_failures_.clear();
  int call_error = MPI_SUCCESS;
  long done = inflight_.test_some(cap, send_failures_, call_error);
  if (done < 0) mpi_fatal(my_node_, "MPI_Testsome on the frames in flight", call_error);
  for (const auto& f : send_failures_)
    peer_failed(f.dst, "a send to node " + std::to_string(f.dst) + " failed: " + mpi_error_text(f.code));
  return static_cast<std::size_t>(done);
}

bool mpi_transport::sends_pending() const noexcept {
  return outbox_.maybe_nonempty() || staging_next_ < staging_.size() || !inflight_.empty();
}

bool mpi_transport::startable_sends() const noexcept {
  return inflight_.size() < limits_.max_inflight && (outbox_.maybe_nonempty() || staging_next_ < staging_.size());
}

void mpi_transport::peer_failed(std::uint32_t node, const std::string& why) noexcept {
  if (failed_[node]) return;
  failed_[node] = true;
  if (handlers_.on_peer_failure != nullptr) {
    handlers_.on_peer_failure(handlers_.ctx, node, why);
  } else {
    std::fprintf(stderr, "roam mpi transport (node %u): node %u failed: %s\n", my_node_, node, why.c_str());
  }
}

}  // namespace roam::detail
