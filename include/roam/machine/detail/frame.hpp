#pragma once
// What a transport sends and receives: a frame is a run of inline bytes (the
// message header and its packed payload, never zero-filled) plus up to
// max_frame_segments out-of-line segments, each the leading bytes of a
// reference-counted block. Segments are sent from the block's own memory and
// received into a block of their own, so large data (roam::buffer<T>) is
// never copied by the runtime: not when packing, not when sending, not when
// unpacking. docs/design/zero-copy.md.
//
// Ownership: an out_frame owns its inline bytes and one reference per
// segment; a transport keeps the frame (or the references) until the bytes
// are on their way, then drops them. Received segments are handed to the
// runtime as frame_segments, whose references it takes over.
#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include <roam/machine/detail/byte_block.hpp>

namespace roam::detail {

/// Most segments one frame may carry; transports reject frames announcing more.
inline constexpr std::size_t max_frame_segments = 256;

/// One out-of-line segment: the first `bytes` bytes of `block`.
struct frame_segment {
  block_ref block;
  std::size_t bytes = 0;
};

/// An outgoing frame. Move-only.
class out_frame {
 public:
  out_frame() noexcept = default;
  /// `bytes` inline bytes, uninitialised (the packer writes every one).
  /// Large ones come from the block cache, whose pages stay mapped.
  explicit out_frame(std::size_t bytes) : size_(bytes) {
    if (bytes >= large_inline) {
      large_ = block_ref::allocate(bytes);
      data_ = large_.data();
    } else if (bytes != 0) {
      small_ = std::make_unique_for_overwrite<std::byte[]>(bytes);
      data_ = small_.get();
    }
  }
  /// A frame holding a copy of `bytes` (tests, benchmarks, control traffic).
  static out_frame copy_of(std::span<const std::byte> bytes) {
    out_frame f(bytes.size());
    if (!bytes.empty()) std::memcpy(f.data(), bytes.data(), bytes.size());
    return f;
  }

  out_frame(out_frame&& o) noexcept
      : small_(std::move(o.small_)),
        large_(std::move(o.large_)),
        data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        segments_(std::move(o.segments_)) {}
  out_frame& operator=(out_frame&& o) noexcept {
    small_ = std::move(o.small_);
    large_ = std::move(o.large_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    segments_ = std::move(o.segments_);
    return *this;
  }

  std::byte* data() noexcept { return data_; }
  const std::byte* data() const noexcept { return data_; }
  /// Inline bytes.
  std::size_t size() const noexcept { return size_; }
  std::span<const std::byte> bytes() const noexcept { return {data_, size_}; }

  /// Appends a segment: the first `bytes` bytes of `block` (bytes <= its capacity).
  void add_segment(block_ref block, std::size_t bytes) { segments_.push_back({std::move(block), bytes}); }
  std::span<const frame_segment> segments() const noexcept { return segments_; }
  /// Moves the segments out (the frame keeps its inline bytes).
  std::vector<frame_segment> take_segments() noexcept { return std::exchange(segments_, {}); }
  bool has_segments() const noexcept { return !segments_.empty(); }
  /// Inline bytes plus every segment's bytes.
  std::size_t total_bytes() const noexcept {
    std::size_t n = size_;
    for (const auto& s : segments_) n += s.bytes;
    return n;
  }

 private:
  static constexpr std::size_t large_inline = std::size_t{32} << 10;
  std::unique_ptr<std::byte[]> small_;  // inline bytes below large_inline
  block_ref large_;                     // or from the block cache
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  std::vector<frame_segment> segments_;
};

}  // namespace roam::detail
