#pragma once
// Out-of-line segments of a message frame (docs/design/zero-copy.md).
//
// When a message is packed for the wire, the pup pass carries a
// segment_table: a roam::buffer larger than out_of_line_above is not copied
// into the frame but recorded as a segment (a reference to the buffer's
// block), and the frame's inline bytes only say "out of line, n elements".
// Sizing and packing make the same decision for every buffer (same sizes, same
// order, same count limit), so the two passes always agree. When the frame is
// unpacked, the k-th out-of-line buffer takes the k-th received segment, whose
// length must match exactly; a buffer adopts the segment's block without a copy.
//
// Without a table (roam::pack, checkpoints, callbacks' inline storage) every
// buffer is packed inline, and an out-of-line marker is corrupt input.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include <roam/machine/detail/frame.hpp>
#include <roam/msg/pup.hpp>

namespace roam::detail {

/// A received segment as the unpacker sees it: its bytes, and the block that
/// holds them, with one reference handed to the taker, when a buffer may adopt
/// them without a copy (null: the bytes sit inside a message and are copied out).
struct segment_view {
  shared_block* block = nullptr;
  const std::byte* data = nullptr;
  std::size_t bytes = 0;
};

/// One entry of a received message's segment table (packed_payload.hpp).
struct segment_entry {
  std::uint64_t where;  ///< by reference: the shared_block* (the message owns one reference); by value: byte offset from the payload start
  std::uint64_t bytes;
};

/// What a pup pass over a message payload does with large buffers.
class segment_table {
 public:
  /// Buffers of more bytes than this travel out of line. Below it a separate
  /// transfer costs more than copying (an MPI rendezvous or a TCP iovec per
  /// segment); 16 KiB is also where the wire checksum stops covering payload.
  static constexpr std::size_t out_of_line_above = 16 * 1024;

  /// A sizing pass: counts what the packing pass will place out of line.
  segment_table() noexcept = default;
  /// A packing pass: out-of-line buffers become segments of `frame`.
  explicit segment_table(out_frame& frame) noexcept : frame_(&frame) {}
  /// An unpacking pass over received segments described by `entries`. By
  /// reference, next() hands each entry's block reference over to the taker
  /// and clears the entry (so whoever frees the entries later skips it).
  segment_table(std::span<segment_entry> entries, const std::byte* base, bool by_reference) noexcept
      : entries_(entries.data()), entry_count_(entries.size()), base_(base), by_reference_(by_reference) {}

  segment_table(const segment_table&) = delete;
  segment_table& operator=(const segment_table&) = delete;

  /// Sizing and packing: whether a buffer of `bytes` held in `block` goes out
  /// of line; if so it is recorded (packing: the frame takes a reference).
  bool place(shared_block* block, std::size_t bytes) {
    if (bytes <= out_of_line_above || count_ >= max_frame_segments) return false;
    if (frame_ != nullptr) frame_->add_segment(block_ref::share(block), bytes);
    ++count_;
    return true;
  }
  /// Sizing and packing: records a segment whatever its size (re-packing a
  /// received payload). Packing shares `block`, or copies `data` into a new
  /// block when `block` is null. Throws pup_error beyond max_frame_segments.
  void add(shared_block* block, const std::byte* data, std::size_t bytes) {
    if (count_ >= max_frame_segments)
      throw pup_error("roam: a message would carry more than " + std::to_string(max_frame_segments) + " segments");
    if (frame_ != nullptr) {
      if (block != nullptr) {
        frame_->add_segment(block_ref::share(block), bytes);
      } else {
        block_ref copy = block_ref::allocate(bytes);
        if (bytes != 0 && data != nullptr) std::memcpy(copy.data(), data, bytes);
        frame_->add_segment(std::move(copy), bytes);
      }
    }
    ++count_;
  }
  /// Segments recorded so far (sizing and packing).
  std::size_t count() const noexcept { return count_; }

  /// Unpacking: the next received segment into `out`; false when none is left.
  bool next(segment_view& out) noexcept {
    if (next_ == entry_count_) return false;
    segment_entry& e = entries_[next_++];
    if (by_reference_) {
      auto* b = reinterpret_cast<shared_block*>(static_cast<std::uintptr_t>(e.where));
      e.where = 0;  // the reference is the taker's now
      out = {b, b->data(), static_cast<std::size_t>(e.bytes)};
    } else {
      out = {nullptr, base_ + e.where, static_cast<std::size_t>(e.bytes)};
    }
    return true;
  }
  /// Unpacking: segments received so far not taken by next() (and the index of the next one).
  std::size_t unused() const noexcept { return entry_count_ - next_; }
  std::size_t taken() const noexcept { return next_; }
  std::size_t available() const noexcept { return entry_count_; }

 private:
  out_frame* frame_ = nullptr;
  std::size_t count_ = 0;
  segment_entry* entries_ = nullptr;
  std::size_t entry_count_ = 0;
  std::size_t next_ = 0;
  const std::byte* base_ = nullptr;
  bool by_reference_ = false;
};

/// Pups the storage of a roam::buffer: its element count (u64), a placement
/// byte (0: the `count * elem` bytes follow inline; 1: they are the next
/// out-of-line segment), then the bytes if inline. Unpacking checks the
/// placement byte, that inline bytes fit the input, and that a segment exists
/// and has exactly `count * elem` bytes; the buffer adopts a segment's block
/// (or, for bytes held inside a message, a copy). Errors are pup_error.
inline void pup_buffer_storage(pup_er& p, block_ref& block, std::size_t& count, std::size_t elem,
                               std::string_view of) {
  const std::size_t at = pup_impl::offset(p);
  const std::uint64_t n = pup_impl::length(p, count, of);
  segment_table* segs = pup_impl::segments(p);
  if (!p.is_unpacking()) {
    const std::size_t bytes = count * elem;
    unsigned char where = segs != nullptr && segs->place(block.get(), bytes) ? 1 : 0;
    pup_impl::raw(p, &where, 1, "placement", of);
    if (where == 0) pup_impl::raw(p, block.data(), bytes, "elements", of);
    return;
  }
  const std::size_t placement_at = pup_impl::offset(p);
  unsigned char where = 0;
  pup_impl::raw(p, &where, 1, "placement", of);
  if (n > SIZE_MAX / elem) [[unlikely]]
    pup_impl::corrupt(p, at, "length", of, "length " + std::to_string(n) + " overflows the address space");
  const auto bytes = static_cast<std::size_t>(n) * elem;
  if (where == 0) {
    if (bytes > p.remaining()) [[unlikely]]
      pup_impl::corrupt(p, at, "length", of,
                        "length " + std::to_string(n) + " needs " + std::to_string(bytes) + " bytes, " +
                            std::to_string(p.remaining()) + " remain");
    block_ref b = bytes != 0 ? block_ref::allocate(bytes) : block_ref{};
    pup_impl::raw(p, b.data(), bytes, "elements", of);
    block = std::move(b);
  } else if (where == 1) {
    segment_view s;
    if (segs == nullptr) [[unlikely]]
      pup_impl::corrupt(p, placement_at, "placement", of, "elements out of line, but this input has no segments");
    const std::size_t index = segs->taken();
    if (!segs->next(s)) [[unlikely]]
      pup_impl::corrupt(p, placement_at, "placement", of,
                        "elements in out-of-line segment " + std::to_string(index) + ", but only " +
                            std::to_string(segs->available()) + " arrived");
    block_ref taken(s.block);  // owned from here on, also if the length is wrong
    if (s.bytes != bytes) [[unlikely]]
      pup_impl::corrupt(p, at, "length", of,
                        "length " + std::to_string(n) + " needs " + std::to_string(bytes) + " bytes, segment " +
                            std::to_string(index) + " has " + std::to_string(s.bytes));
    if (taken) {
      block = std::move(taken);  // no copy: the buffer adopts the received block
    } else {
      block_ref b = bytes != 0 ? block_ref::allocate(bytes) : block_ref{};
      if (bytes != 0) std::memcpy(b.data(), s.data, bytes);
      block = std::move(b);
    }
  } else [[unlikely]] {
    pup_impl::corrupt(p, placement_at, "placement", of,
                      "placement byte must be 0 (inline) or 1 (out of line), got " + std::to_string(where));
  }
  count = static_cast<std::size_t>(n);
}

}  // namespace roam::detail
