#pragma once
// The wire format of one message: a fixed little-endian header, the pup
// payload, and a CRC32C over both (the payload only up to 16 KiB), plus the
// out-of-line segments of large roam::buffers, which travel beside the frame
// (detail/segments.hpp). Everything read from a peer is untrusted: every
// field is validated before a message is built from it.
#include <cstddef>
#include <span>
#include <stdexcept>
#include <vector>

#include <roam/machine/detail/frame.hpp>
#include <roam/msg/detail/message.hpp>
#include <roam/sched/detail/heap_route.hpp>
#include <roam/sched/detail/pe_state.hpp>

namespace roam {

/// A frame that failed validation (bad magic, length, checksum, unknown entry...).
class wire_error : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace detail {

inline constexpr std::uint32_t wire_magic = 0x4d414f52;  // "ROAM"
inline constexpr std::uint16_t wire_version = 2;

/// Serializes a message (typed, shared or packed payload) into one frame:
/// inline bytes that are never zero-filled first, and a segment per large
/// roam::buffer (shared with the message's arguments, not copied).
out_frame pack_message(const message& m);
/// Validates a frame and its segments and builds a message with a packed
/// payload; takes over the segments' blocks (by reference), or copies them
/// into the message when its target fans out (packed_payload.hpp); throws
/// wire_error (the segments are then released).
message* unpack_message(std::span<const std::byte> frame, std::span<frame_segment> segments = {});

/// Receiving without a copy: memory for a frame of `frame_bytes` placed so
/// that its payload already sits where a message's payload goes. Returns the
/// block (for unpack_message_in_place / free_frame_block) and where the frame
/// must be written.
void* allocate_frame_block(std::size_t frame_bytes, std::byte*& frame_at);
/// Validates the frame written into `block` and builds the message in place
/// (the block becomes the message); throws wire_error (the block is then
/// still the caller's). Only for frames without segments.
message* unpack_message_in_place(void* block, std::size_t frame_bytes);
void free_frame_block(void* block) noexcept;
/// +serialize: replaces a typed message by the result of packing and unpacking it.
message* roundtrip_through_wire(message* m);

/// Whether a message built on the calling PE (`me`, null off-PE) goes
/// through the wire format before it is posted: under +serialize, and when
/// a migratable thread whose allocations go to its slot heap sent it (the
/// arguments it moved in may live there, and the message outlives its stay:
/// the copy is the process's, docs/design/isomalloc.md).
inline bool must_copy_through_wire(const pe_state* me) noexcept {
  return tls_heap_route != nullptr || (me && me->runtime().opts.serialize);
}

}  // namespace detail
}  // namespace roam
