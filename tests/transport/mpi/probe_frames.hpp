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

namespace probe {

struct header {
  std::uint32_t src;
  std::uint32_t stream;
  std::uint64_t seq;
  std::uint64_t payload;
};

inline std::byte pattern(const header& h, std::size_t i) {
  return static_cast<std::byte>((h.src * 131u + h.stream * 31u + h.seq * 7u + i) & 0xffu);
}

inline std::vector<std::byte> make_frame(std::uint32_t src, std::uint32_t stream, std::uint64_t seq,
                                         std::size_t payload) {
  header h{src, stream, seq, payload};
  std::vector<std::byte> f(sizeof h + payload);
  std::memcpy(f.data(), &h, sizeof h);
  for (std::size_t i = 0; i < payload; ++i) f[sizeof h + i] = pattern(h, i);
  return f;
}

/// Per (source, stream): frames must arrive with seq 0, 1, 2, ... and intact.
class checker {
 public:
  checker(std::uint32_t nodes, std::uint32_t streams) : streams_(streams), next_(std::size_t{nodes} * streams, 0) {}

  /// Returns an empty string if the frame is the expected one, else what is wrong.
  std::string accept(std::uint32_t from, std::span<const std::byte> frame) {
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
