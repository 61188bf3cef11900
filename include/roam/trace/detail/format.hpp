#pragma once
// The trace file format, shared by the recorder (src/trace/) and roam-trace
// (tools/roam-trace/). docs/design/trace.md describes it in prose.
//
// A run traced into DIR leaves, per process, `process-<node>.json` (what the
// run was, the clock, names of entries, collections and user events) and per
// PE `pe-<pe>.roamtrace`:
//
//   file_header | chunk_header + records ... | chunk_header + records ... | file_trailer
//
// Records are fixed 32-byte structs in the machine's byte order (the header
// says which); a chunk holds the records one flush wrote, raw or compressed
// with zstd, with a checksum of the stored bytes. The trailer counts every
// record: a file without one was cut short and is refused.
#include <cstdint>
#include <cstring>

namespace roam::trace::detail {

inline constexpr char file_magic[8] = {'R', 'O', 'A', 'M', 'T', 'R', 'C', '1'};
inline constexpr std::uint32_t format_version = 1;
inline constexpr std::uint32_t chunk_magic = 0x4b4e4843;    // "CHNK"
inline constexpr std::uint32_t trailer_magic = 0x21444e45;  // "END!"
inline constexpr std::uint32_t byte_order_mark = 0x01020304;

enum class codec : std::uint32_t { raw = 0, zstd = 1 };

struct file_header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t byte_order;  ///< byte_order_mark as the writer stored it
  std::uint32_t record_size;
  std::uint32_t pe;
  std::uint32_t node;
  std::uint32_t reserved;
};
static_assert(sizeof(file_header) == 32);

struct chunk_header {
  std::uint32_t magic;
  std::uint32_t codec;
  std::uint32_t records;       ///< records in the chunk once decoded
  std::uint32_t stored_bytes;  ///< bytes that follow this header
  std::uint64_t checksum;      ///< of the stored bytes (detail::checksum)
};
static_assert(sizeof(chunk_header) == 24);

struct file_trailer {
  std::uint32_t magic;
  std::uint32_t chunks;
  std::uint64_t records;
  std::uint64_t stalls;  ///< times the PE waited for the writer because every buffer chunk was full
};
static_assert(sizeof(file_trailer) == 24);

enum class record_type : std::uint8_t {
  entry_begin = 1,  ///< kind: object_kind, dims, how: run_kind, a: collection, b: entry id, c: object (below)
  entry_end,        ///< how: run_kind
  index_ext,        ///< after a record naming an array element of more than 2 dims: b: index 2,3; c: index 4,5
  send,             ///< kind: 1 to a node, a: peer, b: bytes | flow << 32, c: entry id
  receive,          ///< kind: 1 to a node, a: peer (source PE), b: bytes | flow << 32, c: entry id
  idle_begin,
  idle_end,
  phase,            ///< kind: phase_kind, a: collection, b: number
  span_begin,       ///< a: user name id
  span_end,         ///< a: user name id
  mark,             ///< a: user name id
  counter,          ///< a: user name id, b: the double value's bits
  born,             ///< object as entry_begin (kind, dims, a, c)
  arrived,          ///< same
  leaving,          ///< same, b: destination PE
  died,             ///< same
  last = died,
};

/// The object of entry_begin and the lifecycle records, in `c`: array
/// elements' index 0 and 1 (as uint32, low word first), a chare's id, a group
/// member's PE.
struct record {
  std::uint64_t ticks;
  record_type type;
  std::uint8_t kind;
  std::uint8_t dims;
  std::uint8_t how;
  std::uint32_t a;
  std::uint64_t b;
  std::uint64_t c;
};
static_assert(sizeof(record) == 32);

inline std::uint64_t pack_pair(std::int32_t lo, std::int32_t hi) noexcept {
  return static_cast<std::uint32_t>(lo) | (static_cast<std::uint64_t>(static_cast<std::uint32_t>(hi)) << 32);
}
inline std::int32_t low_of(std::uint64_t v) noexcept { return static_cast<std::int32_t>(static_cast<std::uint32_t>(v)); }
inline std::int32_t high_of(std::uint64_t v) noexcept { return static_cast<std::int32_t>(static_cast<std::uint32_t>(v >> 32)); }

/// A fast 64-bit checksum of stored chunk bytes (multiply-xor over 8-byte
/// words): catches corruption and truncation, not an adversary.
inline std::uint64_t checksum(const void* data, std::size_t n) noexcept {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  for (; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h ^ (h >> 29);
}

}  // namespace roam::trace::detail
