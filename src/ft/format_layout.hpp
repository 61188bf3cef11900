#pragma once
// Where every byte of a checkpoint's files goes (docs/design/checkpoint-format.md
// describes the same layout; keep the two in step): the magic, the kinds, the
// field offsets of headers, records, footers and manifest entries, alignment,
// little-endian integers and the CRC-32C arithmetic; and the encoders every
// writer shares (format_layout.cpp). One place, so that the writers
// (format_stream.cpp, format_memory.cpp, format_publish.cpp) and the checks
// (format_checks.cpp) cannot disagree on a field.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <roam/msg/detail/crc32c.hpp>

#include "format.hpp"

namespace roam::detail::ckpt {

using bytes_view = std::span<const std::byte>;

// ---------------------------------------------------------------------------
// Layout. Every integer is little-endian.

inline constexpr std::string_view file_magic = "ROAMCKPT";
inline constexpr std::uint32_t data_kind = 1;
inline constexpr std::uint32_t manifest_kind = 2;
inline constexpr std::string_view manifest_name = "manifest";
inline constexpr std::string_view dir_prefix = "ckpt-";
inline constexpr std::string_view partial_suffix = ".partial";

// Record headers and states start at multiples of 8 in the file (and so in a
// page-aligned mapping): a state of 8-byte words can be read in place.
inline constexpr std::size_t alignment = 8;
inline constexpr std::array<std::byte, alignment> zeros{};

namespace header_at {  // both kinds of file
inline constexpr std::size_t magic = 0, version = 8, kind = 12, program_hash = 16, number = 24, processes = 32,
                             pes = 36;
inline constexpr std::size_t process = 40, records = 44;  // data file
inline constexpr std::size_t manifest_length = 40;        // manifest (u64)
inline constexpr std::size_t reserved = 48, crc = 52, end = 56;
}  // namespace header_at

namespace record_at {
inline constexpr std::size_t state_length = 0, meta_length = 8, meta_crc = 12, state_crc = 16, crc = 20, end = 24;
}  // namespace record_at

namespace footer_at {
inline constexpr std::size_t file_length = 0, records = 8, file_crc = 12, end = 16;
}  // namespace footer_at

namespace entry_at {  // a file-table entry of the manifest; its name follows, then padding
inline constexpr std::size_t size = 0, crc = 8, records = 12, name_length = 16, end = 20;
}  // namespace entry_at

inline constexpr std::size_t blob_length_size = 8;
inline constexpr std::size_t manifest_crc_size = 4;
inline constexpr std::size_t smallest_manifest = header_at::end + blob_length_size + manifest_crc_size;

inline void put_u32(std::byte* at, std::uint32_t value) {
  for (std::size_t i = 0; i < 4; ++i) at[i] = static_cast<std::byte>(value >> (8 * i));
}

inline void put_u64(std::byte* at, std::uint64_t value) {
  for (std::size_t i = 0; i < 8; ++i) at[i] = static_cast<std::byte>(value >> (8 * i));
}

inline std::uint32_t get_u32(const std::byte* at) {
  std::uint32_t value = 0;
  for (std::size_t i = 4; i-- > 0;) value = value << 8 | std::to_integer<std::uint32_t>(at[i]);
  return value;
}

inline std::uint64_t get_u64(const std::byte* at) {
  std::uint64_t value = 0;
  for (std::size_t i = 8; i-- > 0;) value = value << 8 | std::to_integer<std::uint64_t>(at[i]);
  return value;
}

inline std::size_t padding_after(std::uint64_t offset) { return (alignment - offset % alignment) % alignment; }

inline std::uint32_t crc_of(bytes_view bytes, std::uint32_t running = 0) {
  return crc32c(bytes.data(), bytes.size(), running);
}

// ---------------------------------------------------------------------------
// CRC-32C is linear: the CRC a record header needs for a state also extends
// the file's running CRC (crc32c_combine), so a 1 GiB state is read once,
// not twice, on writing and on loading.

// A combination costs about 50 ns (-O2), what the CRC instruction takes for
// about 500 bytes; below the threshold the piece, just read and so in cache,
// is run through the CRC again instead.
inline constexpr std::size_t combine_threshold = 1024;

/// The running CRC extended over `piece`, whose own CRC is `piece_crc`.
inline std::uint32_t extend_crc(std::uint32_t running, bytes_view piece, std::uint32_t piece_crc) {
  if (piece.size() < combine_threshold) return crc_of(piece, running);
  return crc32c_combine(running, piece_crc, piece.size());
}

// ---------------------------------------------------------------------------
// Encoding (format_layout.cpp).

using header_bytes = std::array<std::byte, header_at::end>;

/// The header without its CRC, and without the kind-specific fields at 40..48.
header_bytes common_header(std::uint32_t kind, const file_identity& id);
/// Puts the header's CRC in.
void seal_header(header_bytes& h);

/// A record's header: its lengths and CRCs, and its own CRC over them.
inline std::array<std::byte, record_at::end> record_header(std::uint64_t state_length, std::uint32_t meta_length,
                                                           std::uint32_t meta_crc, std::uint32_t state_crc) {
  std::array<std::byte, record_at::end> header{};
  put_u64(header.data() + record_at::state_length, state_length);
  put_u32(header.data() + record_at::meta_length, meta_length);
  put_u32(header.data() + record_at::meta_crc, meta_crc);
  put_u32(header.data() + record_at::state_crc, state_crc);
  put_u32(header.data() + record_at::crc, crc32c(header.data(), record_at::crc));
  return header;
}

// A data file's header and footer once its records are known (on disk or
// in memory): `length` the whole file's, `records_crc` the CRC of every byte
// between the two. The footer's CRC covers the header too: crc(header, then
// the rest) from both parts' CRCs.
struct header_and_footer {
  header_bytes header{};
  std::array<std::byte, footer_at::end> footer{};
  std::uint32_t file_crc = 0;
};

header_and_footer seal_of(const file_identity& id, std::uint32_t process, std::uint32_t records,
                          std::uint32_t records_crc, std::uint64_t length);

}  // namespace roam::detail::ckpt
