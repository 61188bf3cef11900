// The payload of a user_segmented tcp frame (segmented_frame.hpp): encoding,
// and a parser that rejects every malformed table without crashing.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "tcp/frame_decoder.hpp"
#include "tcp/frame_format.hpp"
#include "tcp/segmented_frame.hpp"

namespace tcp_segmented_frame_test {

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

// ---- the frame decoder's segment mode -------------------------------------------

namespace {

// What a peer writes for `f` as a user_segmented frame (or a user frame without segments).
std::vector<std::byte> encode_frame(const out_frame& f) {
  std::vector<std::byte> payload = f.has_segments() ? wire_payload(f) : std::vector<std::byte>(f.bytes().begin(), f.bytes().end());
  const auto h = encode_header(f.has_segments() ? frame_kind::user_segmented : frame_kind::user, payload.size());
  std::vector<std::byte> out(h.size() + payload.size());
  std::copy(h.begin(), h.end(), out.begin());
  std::copy(payload.begin(), payload.end(), out.begin() + static_cast<std::ptrdiff_t>(h.size()));
  return out;
}

struct decoded {
  std::vector<std::byte> inline_bytes;
  std::vector<std::vector<std::byte>> segments;
  bool via_blocks = false;
};

decoded describe(const out_frame& f) {
  decoded d{{f.bytes().begin(), f.bytes().end()}, {}, false};
  for (const auto& s : f.segments()) d.segments.emplace_back(s.block.data(), s.block.data() + s.bytes);
  return d;
}

// Drains every complete frame into `out`, normalising whole segmented payloads.
frame_decoder::status drain(frame_decoder& dec, std::vector<decoded>& out) {
  for (;;) {
    auto r = dec.next();
    if (r.st != frame_decoder::status::frame) return r.st;
    decoded d;
    if (r.kind == frame_kind::user) {
      d.inline_bytes.assign(r.payload.begin(), r.payload.end());
    } else if (!r.segments.empty()) {
      d.via_blocks = true;
      d.inline_bytes.assign(r.payload.begin(), r.payload.end());
      for (auto& s : r.segments) d.segments.emplace_back(s.block.data(), s.block.data() + s.bytes);
    } else {
      segmented_payload p;
      std::string err;
      EXPECT_TRUE(parse_segmented(r.payload, p, err)) << err;
      d.inline_bytes.assign(p.inline_bytes.begin(), p.inline_bytes.end());
      for (auto s : p.segments) d.segments.emplace_back(s.begin(), s.end());
    }
    out.push_back(std::move(d));
  }
}

out_frame random_frame(std::mt19937_64& rng) {
  out_frame f(rng() % 200);
  for (std::size_t i = 0; i < f.size(); ++i) f.data()[i] = std::byte(rng());
  const std::size_t n = rng() % 4;  // 0: a plain user frame
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t len = rng() % 3 == 0 ? rng() % 100 : rng() % 300000;
    block_ref b = block_ref::allocate(len);
    for (std::size_t i = 0; i < len; ++i) b.data()[i] = static_cast<std::byte>((i * 13 + k + len) & 0xff);
    f.add_segment(std::move(b), len);
  }
  return f;
}

}  // namespace

// A socket's reads of any size, into whatever writable() offers: frames and
// segments come out exactly, large segments straight into blocks.
TEST(tcp_segmented_frame, the_decoder_receives_segments_into_blocks_however_the_stream_is_split) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 6; ++round) {
    std::vector<out_frame> frames;
    std::vector<std::byte> stream;
    for (int i = 0; i < 30; ++i) {
      frames.push_back(random_frame(rng));
      auto e = encode_frame(frames.back());
      stream.insert(stream.end(), e.begin(), e.end());
    }
    frame_decoder dec(std::uint64_t{1} << 30);
    std::vector<decoded> out;
    std::size_t pos = 0;
    const std::size_t max_read = round % 2 ? 7 : 200000;
    while (pos < stream.size()) {
      auto w = dec.writable();
      ASSERT_FALSE(w.empty());
      const std::size_t n = std::min({w.size(), stream.size() - pos, 1 + static_cast<std::size_t>(rng() % max_read)});
      std::memcpy(w.data(), stream.data() + pos, n);
      dec.commit(n);
      pos += n;
      ASSERT_NE(drain(dec, out), frame_decoder::status::error) << dec.error_message();
    }
    EXPECT_EQ(dec.buffered(), 0u);
    ASSERT_EQ(out.size(), frames.size());
    bool any_blocks = false;
    for (std::size_t i = 0; i < frames.size(); ++i) {
      const decoded want = describe(frames[i]);
      EXPECT_EQ(out[i].inline_bytes, want.inline_bytes) << i;
      EXPECT_EQ(out[i].segments, want.segments) << i;
      any_blocks = any_blocks || out[i].via_blocks;
    }
    EXPECT_TRUE(any_blocks) << "large segments were received into blocks";
  }
}

TEST(tcp_segmented_frame, the_decoder_rejects_a_bad_table_before_the_segments_arrive) {
  out_frame f = sample();
  f.add_segment(block_ref::allocate(100000), 100000);
  auto stream = encode_frame(f);
  auto corrupt = [&](std::size_t at, std::uint64_t v, std::size_t bytes) {
    auto s = stream;
    store_le(s.data() + frame_header_size + at, v, bytes);
    frame_decoder dec(std::uint64_t{1} << 30);
    dec.feed(std::span(s).first(frame_header_size + 2000));  // the head, not the segments
    return dec.next().st;
  };
  EXPECT_EQ(corrupt(0, 0, 4), frame_decoder::status::error) << "no segments";
  EXPECT_EQ(corrupt(0, 5000, 4), frame_decoder::status::error) << "too many segments";
  EXPECT_EQ(corrupt(4, 1, 4), frame_decoder::status::error) << "reserved bits";
  EXPECT_EQ(corrupt(16, 1, 8), frame_decoder::status::error) << "lengths no longer add up";
  EXPECT_EQ(corrupt(8, ~std::uint64_t{0}, 8), frame_decoder::status::error) << "inline length overflows";
  frame_decoder ok(std::uint64_t{1} << 30);
  ok.feed(std::span(stream).first(frame_header_size + 2000));
  EXPECT_EQ(ok.next().st, frame_decoder::status::need_more);
  EXPECT_FALSE(ok.has_complete_frame());
}

}  // namespace tcp_segmented_frame_test
