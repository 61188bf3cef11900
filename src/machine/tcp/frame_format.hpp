#pragma once
// The wire format of every roam tcp connection (process<->process and
// process<->roamrun): a 16-byte header, then `length` payload bytes.
//
//   offset 0  u32 magic    0x4D414F52 ("ROAM" in memory order, little-endian)
//   offset 4  u8  version  1
//   offset 5  u8  kind     frame_kind below
//   offset 6  u16 reserved must be 0 (room for flags without a version bump)
//   offset 8  u64 length   payload bytes
//
// All integers are little-endian, written byte by byte, so the format does not
// depend on the host's byte order or on struct layout. A fixed header (rather
// than a varint) keeps the receive path a single bounds check and lets send()
// hand the kernel one iovec for the header and one for the untouched payload.
//
// A user_segmented frame (a runtime frame with out-of-line segments,
// docs/design/zero-copy.md) carries in its payload:
//
//   offset 0  u32 segments      1..max_frame_segments
//   offset 4  u32 reserved      must be 0
//   offset 8  u64 inline bytes
//   offset 16 u64 length of each segment
//   then the inline bytes, then each segment's bytes, in order
//
// so the sender hands the kernel the segments' own memory (one iovec each).
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace roam::detail::tcp {

inline constexpr std::uint32_t frame_magic = 0x4D414F52u;
inline constexpr std::uint8_t frame_version = 1;
inline constexpr std::size_t frame_header_size = 16;

/// What a frame carries. User frames are the only ones the runtime sees; the
/// rest are transport and launcher control traffic.
enum class frame_kind : std::uint8_t {
  hello = 1,            ///< handshake: job secret + who is talking to whom (first frame of every connection)
  user = 2,             ///< runtime bytes, handed to on_frame
  user_segmented = 5,   ///< runtime bytes with out-of-line segments (layout above), handed to on_frame
  heartbeat = 3,        ///< empty; keeps an idle connection provably alive
  finish = 4,           ///< empty; the sender is ending in order and sends nothing after it
  register_node = 16,   ///< process -> roamrun: the host:port its peers should connect to
  peer_table = 17,      ///< roamrun -> process: every node's host:port
  allgather = 18,       ///< process -> roamrun: this node's blob for one allgather round
  allgather_result = 19, ///< roamrun -> process: every node's blob for that round
  launcher_note = 20     ///< process -> roamrun: one line about a failure or a recovery (fault tolerance)
};

/// True for the kinds this version understands.
constexpr bool is_known_kind(std::uint8_t k) noexcept {
  return (k >= 1 && k <= 5) || (k >= 16 && k <= 20);
}

/// The exact payload size a kind requires, or -1 when it is variable.
constexpr std::int64_t fixed_payload_size(frame_kind k) noexcept {
  switch (k) {
    case frame_kind::hello: return 24;
    case frame_kind::heartbeat:
    case frame_kind::finish: return 0;
    default: return -1;
  }
}

std::string_view kind_name(frame_kind k) noexcept;

using frame_header_bytes = std::array<std::byte, frame_header_size>;

/// The raw fields of a header, before validation.
struct frame_header {
  std::uint32_t magic = 0;
  std::uint8_t version = 0;
  std::uint8_t kind = 0;
  std::uint16_t reserved = 0;
  std::uint64_t length = 0;
};

inline void store_le(std::byte* p, std::uint64_t v, std::size_t bytes) noexcept {
  for (std::size_t i = 0; i < bytes; ++i) p[i] = static_cast<std::byte>((v >> (8 * i)) & 0xFFu);
}
inline std::uint64_t load_le(const std::byte* p, std::size_t bytes) noexcept {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return v;
}

/// The header for a frame of `kind` with `length` payload bytes.
inline frame_header_bytes encode_header(frame_kind kind, std::uint64_t length) noexcept {
  frame_header_bytes h{};
  store_le(h.data(), frame_magic, 4);
  h[4] = static_cast<std::byte>(frame_version);
  h[5] = static_cast<std::byte>(kind);
  store_le(h.data() + 6, 0, 2);
  store_le(h.data() + 8, length, 8);
  return h;
}

/// Bytes of a user_segmented frame's table with `segments` lengths.
constexpr std::size_t segment_table_size(std::size_t segments) noexcept { return 16 + 8 * segments; }

inline frame_header parse_header(const std::byte* p) noexcept {
  frame_header h;
  h.magic = static_cast<std::uint32_t>(load_le(p, 4));
  h.version = static_cast<std::uint8_t>(p[4]);
  h.kind = static_cast<std::uint8_t>(p[5]);
  h.reserved = static_cast<std::uint16_t>(load_le(p + 6, 2));
  h.length = load_le(p + 8, 8);
  return h;
}

}  // namespace roam::detail::tcp
