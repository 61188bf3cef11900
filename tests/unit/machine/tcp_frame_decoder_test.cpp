// The tcp frame decoder treats its input as untrusted: valid streams come out
// frame for frame however they are split, and anything else is an error, never
// a crash, an over-read or an allocation sized by a hostile length. Runs under
// ASan/UBSan and TSan in CI. Randomised tests print their seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "tcp/frame_decoder.hpp"
#include "tcp/frame_format.hpp"

namespace tcp_frame_decoder_test {

using namespace roam::detail;
using namespace roam::detail::tcp;

namespace {

struct frame {
  frame_kind kind;
  std::vector<std::byte> payload;
  bool operator==(const frame&) const = default;
};

std::vector<std::byte> encode(const frame& f) {
  const auto h = encode_header(f.kind, f.payload.size());
  // One sized buffer: growing a 16-byte vector by insert trips a false
  // -Warray-bounds in GCC 12 at -O2.
  std::vector<std::byte> out(h.size() + f.payload.size());
  std::copy(h.begin(), h.end(), out.begin());
  std::copy(f.payload.begin(), f.payload.end(), out.begin() + static_cast<std::ptrdiff_t>(h.size()));
  return out;
}

std::vector<std::byte> encode_all(const std::vector<frame>& frames) {
  std::vector<std::byte> out;
  for (const auto& f : frames) {
    auto e = encode(f);
    out.insert(out.end(), e.begin(), e.end());
  }
  return out;
}

frame user_frame(std::size_t n, unsigned seed) {
  frame f{frame_kind::user, std::vector<std::byte>(n)};
  for (std::size_t i = 0; i < n; ++i) f.payload[i] = static_cast<std::byte>((i * 31 + seed) & 0xFF);
  return f;
}

/// Drains every complete frame; stops at need_more or error.
frame_decoder::status drain(frame_decoder& d, std::vector<frame>& out) {
  for (;;) {
    auto r = d.next();
    if (r.st != frame_decoder::status::frame) return r.st;
    out.push_back({r.kind, std::vector<std::byte>(r.payload.begin(), r.payload.end())});
  }
}

/// Feeds `bytes` in the given chunk sizes (cycled), draining after each chunk.
std::vector<frame> decode_in_chunks(const std::vector<std::byte>& bytes, const std::vector<std::size_t>& chunks,
                                    std::uint64_t cap = 1 << 24) {
  frame_decoder d(cap);
  std::vector<frame> out;
  std::size_t pos = 0, c = 0;
  while (pos < bytes.size()) {
    const std::size_t n = std::min(chunks[c++ % chunks.size()], bytes.size() - pos);
    d.feed(std::span(bytes).subspan(pos, n));
    pos += n;
    EXPECT_EQ(drain(d, out), frame_decoder::status::need_more);
  }
  EXPECT_EQ(d.buffered(), 0u);
  return out;
}

std::vector<frame> mixed_frames(std::mt19937_64& rng, int count, std::size_t max_size) {
  std::vector<frame> frames;
  for (int i = 0; i < count; ++i) {
    switch (rng() % 4) {
      case 0: frames.push_back({frame_kind::heartbeat, {}}); break;
      case 1: frames.push_back({frame_kind::finish, {}}); break;
      default: frames.push_back(user_frame(rng() % (max_size + 1), static_cast<unsigned>(i))); break;
    }
  }
  return frames;
}

TEST(tcp_frame_decoder, a_whole_frame_comes_out_exactly) {
  const auto f = user_frame(100, 7);
  frame_decoder d(1024);
  d.feed(encode(f));
  auto r = d.next();
  ASSERT_EQ(r.st, frame_decoder::status::frame);
  EXPECT_EQ(r.kind, frame_kind::user);
  EXPECT_TRUE(std::equal(r.payload.begin(), r.payload.end(), f.payload.begin(), f.payload.end()));
  EXPECT_EQ(d.next().st, frame_decoder::status::need_more);
}

TEST(tcp_frame_decoder, empty_user_frames_and_control_frames_are_valid) {
  const std::vector<frame> frames = {{frame_kind::user, {}}, {frame_kind::heartbeat, {}}, {frame_kind::finish, {}}};
  EXPECT_EQ(decode_in_chunks(encode_all(frames), {1000}), frames);
}

TEST(tcp_frame_decoder, a_stream_split_at_every_byte_boundary_decodes_the_same) {
  const std::vector<frame> frames = {user_frame(0, 1), user_frame(1, 2), {frame_kind::heartbeat, {}},
                                     user_frame(17, 3), user_frame(300, 4), {frame_kind::finish, {}}};
  const auto bytes = encode_all(frames);
  for (std::size_t cut = 0; cut <= bytes.size(); ++cut) {
    frame_decoder d(1 << 20);
    std::vector<frame> out;
    d.feed(std::span(bytes).first(cut));
    ASSERT_EQ(drain(d, out), frame_decoder::status::need_more) << "cut at " << cut;
    d.feed(std::span(bytes).subspan(cut));
    ASSERT_EQ(drain(d, out), frame_decoder::status::need_more) << "cut at " << cut;
    ASSERT_EQ(out, frames) << "cut at " << cut;
  }
}

TEST(tcp_frame_decoder, a_stream_fed_byte_by_byte_decodes_the_same) {
  std::mt19937_64 rng(42);
  const auto frames = mixed_frames(rng, 50, 100);
  EXPECT_EQ(decode_in_chunks(encode_all(frames), {1}), frames);
}

TEST(tcp_frame_decoder, random_streams_in_random_chunks_decode_exactly) {
  const auto seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 30; ++round) {
    const auto frames = mixed_frames(rng, 1 + static_cast<int>(rng() % 60), rng() % 2 ? 64 : 70000);
    std::vector<std::size_t> chunks;
    for (int i = 0; i < 16; ++i) chunks.push_back(1 + rng() % (rng() % 2 ? 7 : 100000));
    ASSERT_EQ(decode_in_chunks(encode_all(frames), chunks), frames) << "seed " << seed << " round " << round;
  }
}

TEST(tcp_frame_decoder, a_truncated_frame_never_comes_out) {
  const auto bytes = encode(user_frame(64, 9));
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    frame_decoder d(1024);
    d.feed(std::span(bytes).first(n));
    EXPECT_EQ(d.next().st, frame_decoder::status::need_more) << n << " bytes";
    EXPECT_FALSE(d.has_complete_frame());
  }
}

TEST(tcp_frame_decoder, an_oversize_length_is_an_error_before_any_allocation) {
  frame_decoder d(1024);
  d.feed(encode_header(frame_kind::user, std::uint64_t{1} << 40));
  EXPECT_TRUE(d.has_complete_frame());  // an error is ready to report
  EXPECT_EQ(d.next().st, frame_decoder::status::error);
  EXPECT_NE(d.error_message().find("exceeds the limit 1024"), std::string::npos) << d.error_message();
  // writable() must not size itself by the bad length.
  EXPECT_LT(d.writable().size(), std::size_t{1} << 30);
}

TEST(tcp_frame_decoder, the_length_cap_is_inclusive) {
  frame_decoder d(1000);
  d.feed(encode(user_frame(1000, 3)));
  EXPECT_EQ(d.next().st, frame_decoder::status::frame);
  frame_decoder e(999);
  e.feed(encode(user_frame(1000, 3)));
  EXPECT_EQ(e.next().st, frame_decoder::status::error);
}

struct bad_header_case {
  const char* name;
  std::size_t offset;
  std::uint8_t value;
  const char* message;
};

TEST(tcp_frame_decoder, each_bad_header_field_is_named_in_the_error) {
  const bad_header_case cases[] = {
      {"magic", 0, 0x00, "bad magic"},
      {"version", 4, 9, "unsupported frame version 9"},
      {"kind", 5, 99, "unknown frame kind 99"},
      {"kind zero", 5, 0, "unknown frame kind 0"},
      {"reserved", 6, 1, "reserved header bits"},
      {"reserved high", 7, 0x80, "reserved header bits"},
  };
  for (const auto& c : cases) {
    auto bytes = encode(user_frame(10, 1));
    bytes[c.offset] = static_cast<std::byte>(c.value);
    frame_decoder d(1024);
    d.feed(bytes);
    EXPECT_EQ(d.next().st, frame_decoder::status::error) << c.name;
    EXPECT_NE(d.error_message().find(c.message), std::string::npos) << c.name << ": " << d.error_message();
    // The error is sticky: the stream has lost its framing.
    d.feed(encode(user_frame(3, 1)));
    EXPECT_EQ(d.next().st, frame_decoder::status::error) << c.name;
  }
}

TEST(tcp_frame_decoder, control_frames_must_have_their_fixed_size) {
  for (auto kind : {frame_kind::heartbeat, frame_kind::finish}) {
    frame_decoder d(1024);
    d.feed(encode({kind, std::vector<std::byte>(3)}));
    EXPECT_EQ(d.next().st, frame_decoder::status::error);
    EXPECT_NE(d.error_message().find("must be 0"), std::string::npos) << d.error_message();
  }
  frame_decoder h(1024);
  h.feed(encode({frame_kind::hello, std::vector<std::byte>(23)}));
  EXPECT_EQ(h.next().st, frame_decoder::status::error);
  EXPECT_NE(h.error_message().find("must be 24"), std::string::npos) << h.error_message();
}

TEST(tcp_frame_decoder, random_bytes_give_frames_or_an_error_never_a_crash) {
  const auto seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::byte> bytes(rng() % 300);
    for (auto& b : bytes) b = static_cast<std::byte>(rng());
    // Half the time, start with a plausible header so the later checks are reached too.
    if (rng() % 2 && bytes.size() >= frame_header_size) {
      const auto h = encode_header(static_cast<frame_kind>(rng() % 21), rng() % 400);
      std::memcpy(bytes.data(), h.data(), h.size());
    }
    frame_decoder d(256);
    std::size_t pos = 0;
    bool failed = false;
    while (pos < bytes.size()) {
      const std::size_t n = std::min<std::size_t>(1 + rng() % 40, bytes.size() - pos);
      d.feed(std::span(bytes).subspan(pos, n));
      pos += n;
      for (;;) {
        auto r = d.next();
        if (r.st == frame_decoder::status::frame) {
          ASSERT_FALSE(failed) << "a frame after an error, seed " << seed;
          ASSERT_LE(r.payload.size(), 256u);
          continue;
        }
        if (r.st == frame_decoder::status::error) {
          failed = true;
          ASSERT_FALSE(d.error_message().empty());
        }
        break;
      }
    }
  }
}

TEST(tcp_frame_decoder, corrupting_one_byte_keeps_the_frames_before_it_exact) {
  const auto seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 300; ++round) {
    const auto frames = mixed_frames(rng, 20, 50);
    auto bytes = encode_all(frames);
    const std::size_t at = rng() % bytes.size();
    bytes[at] ^= static_cast<std::byte>(1 + rng() % 255);
    frame_decoder d(1 << 16);
    d.feed(bytes);
    std::vector<frame> out;
    drain(d, out);
    // Frames that end before the corrupted byte are untouched.
    std::size_t end = 0, intact = 0;
    for (const auto& f : frames) {
      end += frame_header_size + f.payload.size();
      if (end > at) break;
      ++intact;
    }
    ASSERT_GE(out.size(), intact) << "seed " << seed;
    for (std::size_t i = 0; i < intact; ++i) ASSERT_EQ(out[i], frames[i]) << "seed " << seed;
  }
}

TEST(tcp_frame_decoder, a_large_frame_is_received_in_place) {
  const auto big = user_frame(4u << 20, 5);
  const auto bytes = encode(big);
  frame_decoder d(8u << 20);
  // Like a socket: receive into writable(), a bounded amount at a time.
  std::size_t pos = 0;
  bool sized = false;
  while (pos < bytes.size()) {
    auto w = d.writable();
    if (pos >= frame_header_size && !sized) {
      // Once the header is in, the buffer has room for the rest of the frame.
      EXPECT_GE(w.size(), bytes.size() - pos);
      sized = true;
    }
    const std::size_t n = std::min({w.size(), bytes.size() - pos, std::size_t{200000}});
    std::memcpy(w.data(), bytes.data() + pos, n);
    d.commit(n);
    pos += n;
  }
  auto r = d.next();
  ASSERT_EQ(r.st, frame_decoder::status::frame);
  ASSERT_EQ(r.payload.size(), big.payload.size());
  EXPECT_EQ(std::memcmp(r.payload.data(), big.payload.data(), r.payload.size()), 0);
  // The buffer shrinks back once the big frame is gone.
  EXPECT_LT(d.writable().size(), std::size_t{1} << 20);
  d.feed(encode(user_frame(5, 1)));
  EXPECT_EQ(d.next().st, frame_decoder::status::frame);
}

}  // namespace
}  // namespace tcp_frame_decoder_test
