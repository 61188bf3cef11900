#pragma once
// Packed message payloads (payload_kind::packed), with or without out-of-line
// segments: unpacking them into arguments, packing them again (a message
// forwarded to another node), and releasing what they hold.
//
// A packed payload with segments (message flag work_segments) ends with their
// table; payload_bytes covers everything:
//
//   [pup bytes][by value: each segment's bytes, 16-aligned][segment_entry x count][segment_trailer]
//
// By value, an entry holds the offset of its bytes, so a memcpy of the whole
// payload (the object layer's fan-out, forward_copy) is a valid copy. By
// reference, an entry holds a block reference that the message owns, and the
// payload must never be copied bytewise: wire.cpp builds messages whose
// target fans out (array_all, group_all, section_all) by value, all others by
// reference (no copy: an unpacked roam::buffer adopts the block).
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include <roam/msg/detail/message.hpp>
#include <roam/msg/detail/segments.hpp>
#include <roam/msg/pup.hpp>

namespace roam::detail {

/// The last bytes of a packed payload with segments.
struct segment_trailer {
  std::uint32_t pup_bytes;     ///< the pup bytes at the start of the payload
  std::uint32_t count;         ///< segment_entry records in front of this trailer
  std::uint32_t by_reference;  ///< 1: entries hold block references; 0: offsets into the payload
  std::uint32_t reserved;
};
static_assert(sizeof(segment_trailer) == 16 && sizeof(segment_entry) == 16);

/// True for targets whose messages the object layer copies bytewise per destination.
constexpr bool fans_out(target_kind t) noexcept {
  return t == target_kind::array_all || t == target_kind::group_all || t == target_kind::section_all;
}

inline segment_trailer trailer_of(const message& m) noexcept {
  segment_trailer t;
  std::memcpy(&t, static_cast<const std::byte*>(m.payload_ptr()) + m.payload_bytes - sizeof t, sizeof t);
  return t;
}

inline std::span<segment_entry> entries_of(message& m, const segment_trailer& t) noexcept {
  auto* end = static_cast<std::byte*>(m.payload_ptr()) + m.payload_bytes - sizeof(segment_trailer);
  return {reinterpret_cast<segment_entry*>(end - t.count * sizeof(segment_entry)), t.count};
}

/// Unpacks the packed payload of `m` into `values`, in order, with its
/// segments; throws pup_error on corrupt input, trailing bytes, or segments
/// the values did not take. By reference, the values take over the blocks.
template <class... T>
void unpack_packed(message* m, T&... values) {
  const auto* base = static_cast<const std::byte*>(m->payload_ptr());
  if (!(m->flags & work_segments)) {
    auto p = pup_er::unpacker(base, m->payload_bytes);
    ((void)(p | values), ...);
    if (p.remaining() != 0) throw pup_error("trailing bytes after the arguments");
    return;
  }
  const segment_trailer t = trailer_of(*m);
  segment_table table(entries_of(*m, t), base, t.by_reference != 0);
  auto p = pup_er::unpacker(base, t.pup_bytes);
  pup_impl::attach_segments(p, &table);
  ((void)(p | values), ...);
  if (p.remaining() != 0) throw pup_error("trailing bytes after the arguments");
  if (table.unused() != 0)
    throw pup_error(std::to_string(table.unused()) + " of " + std::to_string(table.available()) +
                    " out-of-line segments not taken by the arguments");
}

/// Packs a packed payload again (sizing or packing pass of a frame): the pup
/// bytes, and each segment (shared by reference, copied by value).
inline void pup_packed_payload(pup_er& p, const message* m) {
  auto* base = static_cast<std::byte*>(const_cast<void*>(m->payload_ptr()));
  if (!(m->flags & work_segments)) {
    p.bytes(base, m->payload_bytes);
    return;
  }
  auto& mm = const_cast<message&>(*m);  // the entries are only read here
  const segment_trailer t = trailer_of(mm);
  segment_table* table = pup_impl::segments(p);
  if (table == nullptr) throw pup_error("roam: a message with out-of-line segments can only be packed into a frame");
  p.bytes(base, t.pup_bytes);
  for (const segment_entry& e : entries_of(mm, t)) {
    if (t.by_reference) {
      auto* b = reinterpret_cast<shared_block*>(static_cast<std::uintptr_t>(e.where));
      if (b == nullptr) throw pup_error("roam: packing a message whose segments were already taken");
      table->add(b, nullptr, static_cast<std::size_t>(e.bytes));
    } else {
      table->add(nullptr, base + e.where, static_cast<std::size_t>(e.bytes));
    }
  }
}

/// Drops the block references a packed payload still holds (destroy).
inline void release_packed_segments(message* m) noexcept {
  if (!(m->flags & work_segments)) return;
  const segment_trailer t = trailer_of(*m);
  if (!t.by_reference) return;
  for (segment_entry& e : entries_of(*m, t)) {
    block_ref(reinterpret_cast<shared_block*>(static_cast<std::uintptr_t>(e.where))).reset();
    e.where = 0;
  }
}

}  // namespace roam::detail
