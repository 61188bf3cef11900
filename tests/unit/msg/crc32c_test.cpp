#include <roam/msg/detail/crc32c.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string_view>
#include <vector>

namespace crc32c_test {

namespace {

using roam::detail::crc32c;
using roam::detail::crc32c_hardware;
using roam::detail::crc32c_hardware_available;
using roam::detail::crc32c_portable;

std::uint32_t crc_of(std::string_view s) { return crc32c(s.data(), s.size()); }

std::vector<unsigned char> random_bytes(std::mt19937_64& rng, std::size_t n) {
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(rng());
  return v;
}

}  // namespace

TEST(crc32c, matches_the_standard_check_value) {
  EXPECT_EQ(crc_of("123456789"), 0xE3069283u);
  EXPECT_EQ(crc32c_portable("123456789", 9), 0xE3069283u);
}

TEST(crc32c, of_nothing_is_zero_and_leaves_a_running_crc_unchanged) {
  EXPECT_EQ(crc32c(nullptr, 0), 0u);
  EXPECT_EQ(crc32c_portable(nullptr, 0), 0u);
  EXPECT_EQ(crc32c(nullptr, 0, 0xDEADBEEFu), 0xDEADBEEFu);
}

TEST(crc32c, matches_the_rfc_3720_iscsi_vectors) {
  unsigned char zeros[32] = {};
  unsigned char ones[32];
  unsigned char up[32];
  unsigned char down[32];
  std::memset(ones, 0xFF, sizeof ones);
  for (int i = 0; i < 32; ++i) {
    up[i] = static_cast<unsigned char>(i);
    down[i] = static_cast<unsigned char>(31 - i);
  }
  for (auto* f : {&crc32c, &crc32c_portable, &crc32c_hardware}) {
    EXPECT_EQ(f(zeros, 32, 0), 0x8A9136AAu);
    EXPECT_EQ(f(ones, 32, 0), 0x62A8AB43u);
    EXPECT_EQ(f(up, 32, 0), 0x46DD794Eu);
    EXPECT_EQ(f(down, 32, 0), 0x113FDB5Cu);
  }
}

TEST(crc32c, chains_across_every_split_point) {
  const std::string_view text = "The quick brown fox jumps over the lazy dog, twice over, for good measure.";
  const std::uint32_t whole = crc_of(text);
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    const std::uint32_t head = crc32c(text.data(), cut);
    EXPECT_EQ(crc32c(text.data() + cut, text.size() - cut, head), whole) << "cut at " << cut;
    const std::uint32_t head_portable = crc32c_portable(text.data(), cut);
    EXPECT_EQ(crc32c_portable(text.data() + cut, text.size() - cut, head_portable), whole) << "cut at " << cut;
  }
}

TEST(crc32c, hardware_and_portable_agree_on_every_length_and_alignment) {
  if (!crc32c_hardware_available()) GTEST_SKIP() << "CPU lacks SSE4.2; only the portable path exists";
  const std::uint64_t seed = 0xC0FFEE;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto data = random_bytes(rng, 4096 + 16);
  for (std::size_t align = 0; align < 8; ++align) {
    for (std::size_t n = 0; n <= 300; ++n) {
      const std::uint32_t start = static_cast<std::uint32_t>(rng());
      ASSERT_EQ(crc32c_hardware(data.data() + align, n, start), crc32c_portable(data.data() + align, n, start))
          << "align " << align << " length " << n;
    }
    ASSERT_EQ(crc32c_hardware(data.data() + align, 4096), crc32c_portable(data.data() + align, 4096));
  }
}

TEST(crc32c, dispatching_entry_point_agrees_with_portable) {
  std::mt19937_64 rng(42);
  const auto data = random_bytes(rng, 100000);
  EXPECT_EQ(crc32c(data.data(), data.size()), crc32c_portable(data.data(), data.size()));
}

TEST(crc32c, changes_when_any_single_bit_flips) {
  std::mt19937_64 rng(7);
  auto data = random_bytes(rng, 64);
  const std::uint32_t clean = crc32c(data.data(), data.size());
  for (std::size_t bit = 0; bit < data.size() * 8; ++bit) {
    data[bit / 8] ^= static_cast<unsigned char>(1u << (bit % 8));
    EXPECT_NE(crc32c(data.data(), data.size()), clean) << "bit " << bit;
    EXPECT_NE(crc32c_portable(data.data(), data.size()), clean) << "bit " << bit;
    data[bit / 8] ^= static_cast<unsigned char>(1u << (bit % 8));
  }
  EXPECT_EQ(crc32c(data.data(), data.size()), clean);
}

// Inputs long enough for the three interleaved streams (3 x 16 KiB and
// more), at odd offsets and lengths around the stripe boundaries.
TEST(crc32c, interleaved_streams_match_portable_on_large_inputs) {
  std::vector<unsigned char> data(200 * 1024 + 13);
  std::uint64_t x = 0x9e3779b97f4a7c15ull;
  for (auto& b : data) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    b = static_cast<unsigned char>(x);
  }
  for (std::size_t offset : {0u, 1u, 7u})
    for (std::size_t n : {std::size_t{3 * 16384 - 1}, std::size_t{3 * 16384}, std::size_t{3 * 16384 + 9},
                          std::size_t{6 * 16384 + 5}, data.size() - 7})
      EXPECT_EQ(roam::detail::crc32c(data.data() + offset, n), roam::detail::crc32c_portable(data.data() + offset, n))
          << "offset " << offset << " length " << n;
}

TEST(crc32c, combine_equals_the_crc_of_the_concatenation) {
  std::vector<unsigned char> data(100000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 131 + 7);
  for (std::size_t split : {std::size_t{0}, std::size_t{1}, std::size_t{999}, std::size_t{65536}, data.size()}) {
    const std::uint32_t a = roam::detail::crc32c(data.data(), split);
    const std::uint32_t b = roam::detail::crc32c(data.data() + split, data.size() - split);
    EXPECT_EQ(roam::detail::crc32c_combine(a, b, data.size() - split), roam::detail::crc32c(data.data(), data.size()))
        << "split at " << split;
  }
}

}  // namespace crc32c_test
