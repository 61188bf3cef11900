#include "machine/tcp/segmented_frame.hpp"

#include "machine/tcp/frame_format.hpp"

namespace roam::detail::tcp {

std::vector<std::byte> encode_segment_table(const out_frame& frame) {
  const auto segments = frame.segments();
  std::vector<std::byte> table(segment_table_size(segments.size()));
  store_le(table.data(), segments.size(), 4);
  store_le(table.data() + 4, 0, 4);
  store_le(table.data() + 8, frame.size(), 8);
  for (std::size_t i = 0; i < segments.size(); ++i) store_le(table.data() + 16 + 8 * i, segments[i].bytes, 8);
  return table;
}

bool parse_segmented(std::span<const std::byte> payload, segmented_payload& out, std::string& error) {
  out.inline_bytes = {};
  out.segments.clear();
  if (payload.size() < segment_table_size(0)) {
    error = "segmented frame of " + std::to_string(payload.size()) + " bytes, shorter than its table";
    return false;
  }
  const std::uint64_t count = load_le(payload.data(), 4);
  const std::uint64_t reserved = load_le(payload.data() + 4, 4);
  if (count == 0 || count > max_frame_segments) {
    error = "segmented frame with " + std::to_string(count) + " segments (must be 1.." +
            std::to_string(max_frame_segments) + ")";
    return false;
  }
  if (reserved != 0) {
    error = "segmented frame with reserved bits set (" + std::to_string(reserved) + ")";
    return false;
  }
  const std::size_t table = segment_table_size(static_cast<std::size_t>(count));
  if (payload.size() < table) {
    error = "segmented frame of " + std::to_string(payload.size()) + " bytes, shorter than its table of " +
            std::to_string(count) + " segments";
    return false;
  }
  // Every length is checked against what is left, so no sum can overflow.
  std::size_t left = payload.size() - table;
  auto take = [&](std::uint64_t n, const char* what, std::span<const std::byte>& into) {
    if (n > left) {
      error = std::string("segmented frame: ") + what + " of " + std::to_string(n) + " bytes exceeds the " +
              std::to_string(left) + " bytes left in the frame";
      return false;
    }
    into = payload.subspan(payload.size() - left, static_cast<std::size_t>(n));
    left -= static_cast<std::size_t>(n);
    return true;
  };
  if (!take(load_le(payload.data() + 8, 8), "the inline part", out.inline_bytes)) return false;
  out.segments.resize(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < count; ++i)
    if (!take(load_le(payload.data() + 16 + 8 * i, 8), "a segment", out.segments[i])) return false;
  if (left != 0) {
    error = "segmented frame: " + std::to_string(left) + " bytes after the last segment";
    return false;
  }
  return true;
}

}  // namespace roam::detail::tcp
