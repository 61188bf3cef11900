#pragma once
// How frames travel (see docs/design/mpi-transport.md, "Frames on the wire").
// A frame of at most the small-frame size is one message with
// mpi_frame_tag on the frames communicator. A bigger one is announced there
// by a header message (mpi_header_tag, the size as 8 bytes), and its bytes
// follow on the bulk communicator with mpi_payload_tag. Frames and headers
// share one ordered stream per pair; the k-th payload from a node belongs to
// its k-th header, since messages with one source, tag and communicator do
// not overtake each other.
#include <cstdint>

namespace roam::detail {
inline constexpr int mpi_frame_tag = 1;
inline constexpr int mpi_header_tag = 2;
inline constexpr int mpi_payload_tag = 3;
using mpi_frame_header = std::uint64_t;  // the payload's size in bytes
}  // namespace roam::detail
