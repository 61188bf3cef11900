#include "tcp/segmented_frame.hpp"

#include "tcp/frame_format.hpp"

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

table_status parse_segment_table(std::span<const std::byte> head, std::uint64_t payload_length,
                                 segment_table_fields& out, std::string& error) {
  const std::size_t fixed = segment_table_size(0);
  if (payload_length < fixed) {
    error = "segmented frame of " + std::to_string(payload_length) + " bytes, shorter than its table";
    return table_status::error;
  }
  if (head.size() < fixed) return table_status::need_more;
  const std::uint64_t count = load_le(head.data(), 4);
  const std::uint64_t reserved = load_le(head.data() + 4, 4);
  if (count == 0 || count > max_frame_segments) {
    error = "segmented frame with " + std::to_string(count) + " segments (must be 1.." +
            std::to_string(max_frame_segments) + ")";
    return table_status::error;
  }
  if (reserved != 0) {
    error = "segmented frame with reserved bits set (" + std::to_string(reserved) + ")";
    return table_status::error;
  }
  const std::size_t table = segment_table_size(static_cast<std::size_t>(count));
  if (payload_length < table) {
    error = "segmented frame of " + std::to_string(payload_length) + " bytes, shorter than its table of " +
            std::to_string(count) + " segments";
    return table_status::error;
  }
  if (head.size() < table) return table_status::need_more;
  // Every length is checked against what is left, so no sum can overflow.
  std::uint64_t left = payload_length - table;
  auto take = [&](std::uint64_t n, const char* what) {
    if (n > left) {
      error = std::string("segmented frame: ") + what + " of " + std::to_string(n) + " bytes exceeds the " +
              std::to_string(left) + " bytes left in the frame";
      return false;
    }
    left -= n;
    return true;
  };
  out.table_bytes = table;
  out.inline_bytes = load_le(head.data() + 8, 8);
  if (!take(out.inline_bytes, "the inline part")) return table_status::error;
  out.lengths.resize(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < count; ++i) {
    out.lengths[i] = load_le(head.data() + 16 + 8 * i, 8);
    if (!take(out.lengths[i], "a segment")) return table_status::error;
  }
  if (left != 0) {
    error = "segmented frame: " + std::to_string(left) + " bytes after the last segment";
    return table_status::error;
  }
  return table_status::ok;
}

bool parse_segmented(std::span<const std::byte> payload, segmented_payload& out, std::string& error) {
  out.inline_bytes = {};
  out.segments.clear();
  segment_table_fields t;
  if (parse_segment_table(payload, payload.size(), t, error) != table_status::ok) return false;
  std::size_t at = t.table_bytes;
  out.inline_bytes = payload.subspan(at, static_cast<std::size_t>(t.inline_bytes));
  at += static_cast<std::size_t>(t.inline_bytes);
  out.segments.resize(t.lengths.size());
  for (std::size_t i = 0; i < t.lengths.size(); ++i) {
    out.segments[i] = payload.subspan(at, static_cast<std::size_t>(t.lengths[i]));
    at += static_cast<std::size_t>(t.lengths[i]);
  }
  return true;
}

}  // namespace roam::detail::tcp
