#pragma once
// The payload of a user_segmented tcp frame (layout: frame_format.hpp): a
// table of lengths, the runtime frame's inline bytes, then each segment.
// Pure functions, so the parser can be tested and fuzzed without sockets.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <roam/machine/detail/frame.hpp>

namespace roam::detail::tcp {

/// The table that starts a user_segmented payload for `frame` (which has segments).
std::vector<std::byte> encode_segment_table(const out_frame& frame);

/// A validated user_segmented payload: views into it.
struct segmented_payload {
  std::span<const std::byte> inline_bytes;
  std::vector<std::span<const std::byte>> segments;
};

/// Splits `payload` into its parts, checking every field (segment count in
/// 1..max_frame_segments, reserved bits zero, lengths that add up exactly to
/// the payload, without overflow). False with `error` set otherwise.
bool parse_segmented(std::span<const std::byte> payload, segmented_payload& out, std::string& error);

/// The table of a user_segmented payload of `payload_length` bytes.
struct segment_table_fields {
  std::size_t table_bytes = 0;    ///< the table itself
  std::uint64_t inline_bytes = 0;
  std::vector<std::uint64_t> lengths;
};
enum class table_status { need_more, ok, error };
/// Parses the table from `head`, the first bytes of the payload received so
/// far (need_more until the whole table is there), with the checks of
/// parse_segmented against `payload_length`. The frame decoder uses it to
/// receive segments straight into blocks before the whole payload arrived.
table_status parse_segment_table(std::span<const std::byte> head, std::uint64_t payload_length,
                                 segment_table_fields& out, std::string& error);

}  // namespace roam::detail::tcp
