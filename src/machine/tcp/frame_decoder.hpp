#pragma once
// frame_decoder: turns a byte stream into validated frames. Pure (no sockets,
// no clocks), so it can be fuzzed on its own; every connection owns one.
//
// Invariants
// - buf_[begin_, end_) holds received bytes not yet handed out as frames.
// - Once an error is found the decoder stays failed: the stream has lost
//   framing and nothing after the bad header can be trusted.
// - The header is validated (magic, version, kind, reserved bits, length cap,
//   fixed sizes) before any payload is awaited or any memory sized by it.
//
// Receive path without copies: writable() returns space at the end of the
// buffer; once a header is known it is at least the rest of that frame, so a
// socket can read a large payload straight into its final place and next()
// hands out a span over it.
//
// Segmented user frames (frame_format.hpp, docs/design/zero-copy.md) that are
// still incomplete once their table and inline bytes are in switch to
// *segment mode*: the table is validated, one block is allocated per segment,
// segment bytes already read are moved into the blocks, and from then on
// writable() returns the current block's free part, so the socket reads each
// segment straight into the block the runtime will keep. next() then hands
// out the inline bytes and the blocks. A segmented frame that arrived whole
// in the buffer comes out as one payload, as before.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include <vector>

#include <roam/machine/detail/frame.hpp>

#include "tcp/frame_format.hpp"
#include "tcp/segmented_frame.hpp"

namespace roam::detail::tcp {

class frame_decoder {
 public:
  /// Largest payload accepted; longer frames are an error (a corrupt or
  /// hostile length must not make us allocate gigabytes).
  explicit frame_decoder(std::uint64_t max_payload, std::size_t read_chunk = 64 * 1024);

  enum class status { frame, need_more, error };
  struct result {
    status st = status::need_more;
    frame_kind kind{};
    /// The payload; valid until the next call to writable(), feed() or commit().
    /// For a segmented frame received in segment mode: only the inline bytes.
    std::span<const std::byte> payload;
    /// Segment mode: the frame's segments, each in its own block (may be moved
    /// out); valid until the next call to writable(), feed(), commit() or next().
    std::span<frame_segment> segments;
  };

  /// Space to receive into: at least `read_chunk` bytes, or the rest of the
  /// frame in progress when that is larger. Invalidates spans from next().
  std::span<std::byte> writable();
  /// Marks the first `n` bytes of the last writable() span as received.
  void commit(std::size_t n) noexcept;
  /// Copies `bytes` in (for callers that do not read from a socket).
  void feed(std::span<const std::byte> bytes);

  /// The next complete frame, need_more, or error (then error_message() says why).
  result next() noexcept;

  const std::string& error_message() const noexcept { return error_; }
  bool failed() const noexcept { return !error_.empty(); }
  /// Bytes received but not yet returned as frames.
  std::size_t buffered() const noexcept { return end_ - begin_; }
  /// The received bytes not yet returned as frames (to move them into another decoder).
  std::span<const std::byte> unread() const noexcept { return {buf_.get() + begin_, end_ - begin_}; }
  /// True when the buffered bytes hold at least one complete frame (or an error to report).
  bool has_complete_frame() const noexcept;
  std::uint64_t max_payload() const noexcept { return max_payload_; }

 private:
  bool validate(const frame_header& h) noexcept;
  void make_room(std::size_t need);
  // Enters segment mode if a segmented frame's table and inline bytes are in
  // but not all of its segments; may set error_; throws std::bad_alloc.
  void maybe_enter_segment_mode();
  // Moves past segments (and empty ones) that are full.
  void skip_full_segments() noexcept;
  bool segments_complete() const noexcept { return seg_index_ == segs_.size(); }
  // True if the buffered head of a segmented frame has an invalid table (and why).
  bool bad_segment_table(std::string* why) const noexcept;

  std::uint64_t max_payload_;
  std::size_t read_chunk_;
  std::unique_ptr<std::byte[]> buf_;
  std::size_t cap_ = 0;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  std::string error_;

  // Segment mode: buf_[begin_, begin_ + seg_head_) holds the frame's header,
  // table and inline bytes (end_ == begin_ + seg_head_ until the segments are
  // complete); segment seg_index_ has seg_filled_ bytes.
  bool seg_mode_ = false;
  std::size_t seg_head_ = 0;
  std::size_t seg_table_ = 0;  // tcp header + segment table bytes
  std::vector<frame_segment> segs_;
  segment_table_fields fields_;  // scratch for parse_segment_table
  std::size_t seg_index_ = 0;
  std::size_t seg_filled_ = 0;
};

}  // namespace roam::detail::tcp
