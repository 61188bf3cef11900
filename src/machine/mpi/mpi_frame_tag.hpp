#pragma once
// How frames travel (see docs/design/mpi-transport.md, "Frames on the wire",
// and docs/design/zero-copy.md).
// - A frame without segments of at most the small-frame size is one message
//   with mpi_frame_tag on the frames communicator.
// - A bigger one is announced there by a header message (mpi_header_tag, the
//   size as 8 bytes), and its bytes follow on the bulk communicator with
//   mpi_payload_tag.
// - A frame with segments is announced by a segmented header
//   (mpi_segmented_tag): the layout below, then (if they fit in a small
//   frame) the inline bytes themselves. On bulk follow, in order: the inline
//   bytes if they were not embedded, then every segment, each one message
//   sent from the segment's own block.
// Frames and headers share one ordered stream per pair; the k-th payload
// from a node belongs to its k-th header, since messages with one source,
// tag and communicator do not overtake each other.
#include <cstddef>
#include <cstdint>

namespace roam::detail {
inline constexpr int mpi_frame_tag = 1;
inline constexpr int mpi_header_tag = 2;
inline constexpr int mpi_payload_tag = 3;
inline constexpr int mpi_segmented_tag = 4;
/// An empty message on frames that says only "this node is alive"; not a
/// frame (never counted, never delivered).
inline constexpr int mpi_heartbeat_tag = 5;
using mpi_frame_header = std::uint64_t;  // the payload's size in bytes

/// The fixed part of a segmented header; `segments` u64 lengths follow it,
/// then the inline bytes when `embedded` is 1. Native byte order (one host
/// architecture per job, as for MPI_BYTE data in general).
struct mpi_segmented_header {
  std::uint64_t inline_bytes;
  std::uint32_t segments;
  std::uint32_t embedded;  // 1: the inline bytes follow in this message; 0: on bulk
};
static_assert(sizeof(mpi_segmented_header) == 16);

/// Size of a segmented header with `segments` lengths (without embedded bytes).
constexpr std::size_t mpi_segmented_header_bytes(std::size_t segments) noexcept {
  return sizeof(mpi_segmented_header) + 8 * segments;
}
}  // namespace roam::detail
