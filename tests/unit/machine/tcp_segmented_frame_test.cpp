// The payload of a user_segmented tcp frame (segmented_frame.hpp): encoding,
// and a parser that rejects every malformed table without crashing.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "machine/tcp/frame_format.hpp"
#include "machine/tcp/segmented_frame.hpp"

using namespace roam::detail;
using namespace roam::detail::tcp;

namespace {
// A whole payload, as the receiver sees it: table, inline bytes, segments.
std::vector<std::byte> wire_payload(const out_frame& f) {
  std::vector<std::byte> p = encode_segment_table(f);
  p.insert(p.end(), f.bytes().begin(), f.bytes().end());
  for (const auto& s : f.segments()) p.insert(p.end(), s.block.data(), s.block.data() + s.bytes);
  return p;
}
out_frame sample() {
  out_frame f = out_frame::copy_of(std::vector<std::byte>(30, std::byte{9}));
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{17000}}) {
    block_ref b = block_ref::allocate(n);
    for (std::size_t i = 0; i < n; ++i) b.data()[i] = static_cast<std::byte>(i * 3 + n);
    f.add_segment(std::move(b), n);
  }
  return f;
}
}  // namespace

TEST(tcp_segmented_frame, a_payload_splits_into_its_inline_bytes_and_segments) {
  out_frame f = sample();
  auto p = wire_payload(f);
  EXPECT_EQ(p.size(), segment_table_size(3) + f.total_bytes());
  segmented_payload out;
  std::string err;
  ASSERT_TRUE(parse_segmented(p, out, err)) << err;
  ASSERT_EQ(out.inline_bytes.size(), 30u);
  EXPECT_EQ(out.inline_bytes[29], std::byte{9});
  ASSERT_EQ(out.segments.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    ASSERT_EQ(out.segments[k].size(), f.segments()[k].bytes);
    EXPECT_EQ(std::memcmp(out.segments[k].data(), f.segments()[k].block.data(), out.segments[k].size()), 0);
  }
}

TEST(tcp_segmented_frame, every_truncation_and_extension_is_rejected) {
  auto p = wire_payload(sample());
  segmented_payload out;
  std::string err;
  for (std::size_t n = 0; n < p.size(); n += (n < 100 ? 1 : 997)) {
    EXPECT_FALSE(parse_segmented(std::span(p).first(n), out, err)) << n;
    EXPECT_FALSE(err.empty());
  }
  p.push_back(std::byte{0});
  EXPECT_FALSE(parse_segmented(p, out, err));
}

TEST(tcp_segmented_frame, bad_table_fields_are_rejected) {
  const auto good = wire_payload(sample());
  segmented_payload out;
  std::string err;
  auto with = [&](std::size_t at, std::uint64_t v, std::size_t bytes) {
    auto p = good;
    store_le(p.data() + at, v, bytes);
    return p;
  };
  EXPECT_FALSE(parse_segmented(with(0, 0, 4), out, err)) << "no segments";
  EXPECT_FALSE(parse_segmented(with(0, max_frame_segments + 1, 4), out, err));
  EXPECT_FALSE(parse_segmented(with(0, 0xffffffffu, 4), out, err));
  EXPECT_FALSE(parse_segmented(with(4, 1, 4), out, err)) << "reserved bits";
  EXPECT_FALSE(parse_segmented(with(8, ~std::uint64_t{0}, 8), out, err)) << "inline length overflows";
  EXPECT_FALSE(parse_segmented(with(16 + 8 * 2, ~std::uint64_t{0} - 5, 8), out, err)) << "a segment length overflows";
  EXPECT_FALSE(parse_segmented(with(16, 1, 8), out, err)) << "lengths no longer add up";
}

TEST(tcp_segmented_frame, random_payloads_never_crash) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  segmented_payload out;
  std::string err;
  for (int i = 0; i < 5000; ++i) {
    std::vector<std::byte> p(rng() % 200);
    for (auto& b : p) b = std::byte(rng());
    if (p.size() >= 16 && rng() % 2) {  // plausible counts and lengths more often
      store_le(p.data(), rng() % 4, 4);
      store_le(p.data() + 4, 0, 4);
      for (std::size_t at = 8; at + 8 <= p.size() && at < 48; at += 8) store_le(p.data() + at, rng() % 64, 8);
    }
    if (parse_segmented(p, out, err)) {
      std::size_t sum = out.inline_bytes.size();
      for (auto s : out.segments) sum += s.size();
      EXPECT_EQ(sum + segment_table_size(out.segments.size()), p.size());
    }
  }
}
