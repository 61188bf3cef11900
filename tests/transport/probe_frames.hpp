#pragma once
// The probe's frame format and the checker that verifies order and content.
// A frame: header {src, stream, seq, payload bytes} then a payload whose every
// byte is a function of (src, stream, seq, position), so a reordered,
// truncated or corrupted frame is caught.
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <roam/machine/detail/frame.hpp>

namespace probe {

struct header {
  std::uint32_t src;
  std::uint32_t stream;
  std::uint64_t seq;
  std::uint64_t payload;
  std::uint32_t segmented;  // 1: the frame carries segment_sizes(seq) segments
  std::uint32_t reserved;
};

inline std::byte pattern(const header& h, std::size_t i) {
  return static_cast<std::byte>((h.src * 131u + h.stream * 31u + h.seq * 7u + i) & 0xffu);
}

/// The segments of frame `seq` of a segmented stream: a third of the frames
/// carry some, of sizes around the interesting limits (empty, one byte, just
/// over the runtime's 16 KiB out-of-line threshold, and now and then 1 MiB).
inline std::vector<std::size_t> segment_sizes(std::uint64_t seq) {
  if (seq % 3 != 1) return {};
  std::vector<std::size_t> v{seq % 2 ? std::size_t{1} : std::size_t{0}, 16385 + seq % 64};
  if (seq % 41 == 1) v.push_back(std::size_t{1} << 20);
  return v;
}

/// Byte i of segment k of the frame with header h.
inline std::byte segment_pattern(const header& h, std::size_t k, std::size_t i) {
  return pattern(h, i * 3 + (k + 1) * 7919);
}

inline roam::detail::out_frame make_frame(std::uint32_t src, std::uint32_t stream, std::uint64_t seq,
                                          std::size_t payload, bool segmented = false) {
  header h{src, stream, seq, payload, segmented ? 1u : 0u, 0};
  roam::detail::out_frame f(sizeof h + payload);
  std::memcpy(f.data(), &h, sizeof h);
  for (std::size_t i = 0; i < payload; ++i) f.data()[sizeof h + i] = pattern(h, i);
  if (segmented) {
    const auto sizes = segment_sizes(seq);
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      auto b = roam::detail::block_ref::allocate(sizes[k]);
      for (std::size_t i = 0; i < sizes[k]; ++i) b.data()[i] = segment_pattern(h, k, i);
      f.add_segment(std::move(b), sizes[k]);
    }
  }
  return f;
}

/// Per (source, stream): frames must arrive with seq 0, 1, 2, ... and intact.
class checker {
 public:
  checker(std::uint32_t nodes, std::uint32_t streams) : streams_(streams), next_(std::size_t{nodes} * streams, 0) {}

  /// Returns an empty string if the frame is the expected one, else what is wrong.
  std::string accept(std::uint32_t from, std::span<const std::byte> frame,
                     std::span<const roam::detail::frame_segment> segments = {}) {
    header h{};
    if (frame.size() < sizeof h) return "frame of " + std::to_string(frame.size()) + " bytes has no header";
    std::memcpy(&h, frame.data(), sizeof h);
    if (h.src != from) return "frame from node " + std::to_string(from) + " says it is from " + std::to_string(h.src);
    if (h.stream >= streams_) return "frame with unknown stream " + std::to_string(h.stream);
    if (frame.size() != sizeof h + h.payload)
      return "frame size " + std::to_string(frame.size()) + " != header's " + std::to_string(sizeof h + h.payload);
    std::uint64_t& next = next_[std::size_t{from} * streams_ + h.stream];
    if (h.seq != next)
      return "from node " + std::to_string(from) + " stream " + std::to_string(h.stream) + ": got seq " +
             std::to_string(h.seq) + ", expected " + std::to_string(next) + " (order broken)";
    for (std::size_t i = 0; i < h.payload; ++i)
      if (frame[sizeof h + i] != pattern(h, i))
        return "from node " + std::to_string(from) + " stream " + std::to_string(h.stream) + " seq " +
               std::to_string(h.seq) + ": payload byte " + std::to_string(i) + " corrupted";
    const auto sizes = h.segmented ? segment_sizes(h.seq) : std::vector<std::size_t>{};
    const std::string where = "from node " + std::to_string(from) + " stream " + std::to_string(h.stream) + " seq " +
                              std::to_string(h.seq) + ": ";
    if (segments.size() != sizes.size())
      return where + std::to_string(segments.size()) + " segments, expected " + std::to_string(sizes.size());
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      if (segments[k].bytes != sizes[k])
        return where + "segment " + std::to_string(k) + " has " + std::to_string(segments[k].bytes) +
               " bytes, expected " + std::to_string(sizes[k]);
      if (sizes[k] != 0 && (!segments[k].block || segments[k].block.capacity() < sizes[k]))
        return where + "segment " + std::to_string(k) + " without memory";
      for (std::size_t i = 0; i < sizes[k]; ++i)
        if (segments[k].block.data()[i] != segment_pattern(h, k, i))
          return where + "segment " + std::to_string(k) + " byte " + std::to_string(i) + " corrupted";
    }
    ++next;
    ++total_;
    return {};
  }

  std::uint64_t received(std::uint32_t from, std::uint32_t stream) const {
    return next_[std::size_t{from} * streams_ + stream];
  }
  std::uint64_t total() const { return total_; }

 private:
  std::uint32_t streams_;
  std::vector<std::uint64_t> next_;
  std::uint64_t total_ = 0;
};

}  // namespace probe
