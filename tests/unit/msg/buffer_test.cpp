// roam::buffer<T> in one process: sharing, copy on write, and its pup without
// a message frame (inline), including corrupt input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include <roam/msg/buffer.hpp>

namespace buffer_test {

namespace {
struct pod {
  std::int32_t a;
  float b;
};
}  // namespace
}  // namespace buffer_test

// Outside the file's namespace: a specialisation goes where its template may be defined.
template <>
inline constexpr bool roam::bitwise_serializable<buffer_test::pod> = true;

namespace buffer_test {

TEST(buffer, a_default_buffer_is_empty_and_owns_nothing) {
  roam::buffer<int> b;
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.data(), nullptr);
  EXPECT_EQ(b.use_count(), 0u);
  EXPECT_EQ(roam::buffer<int>(0).data(), nullptr);
}

TEST(buffer, sized_construction_zero_fills_and_copies_share_the_elements) {
  roam::buffer<double> a(1000);
  EXPECT_TRUE(std::all_of(a.begin(), a.end(), [](double x) { return x == 0.0; }));
  roam::buffer<double> b = a;
  EXPECT_EQ(a.data(), b.data()) << "a copy shares, it does not copy";
  EXPECT_EQ(a.use_count(), 2u);
  roam::buffer<double> c = std::move(b);
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(c.data(), a.data());
  EXPECT_EQ(a.use_count(), 2u);
}

TEST(buffer, writing_a_shared_buffer_copies_it_first) {
  roam::buffer<int> a{1, 2, 3};
  roam::buffer<int> b = a;
  const int* shared = a.data();
  b.mutable_span()[0] = 42;
  EXPECT_NE(b.data(), shared) << "b took its own copy";
  EXPECT_EQ(a[0], 1) << "a did not see b's write";
  EXPECT_EQ(b[0], 42);
  EXPECT_EQ(b[2], 3);
  EXPECT_EQ(a.use_count(), 1u);
  // Now unique: writing happens in place.
  const int* own = b.data();
  b.mutable_span()[1] = 7;
  EXPECT_EQ(b.data(), own);
}

TEST(buffer, construction_from_values_and_spans_copies_them) {
  std::vector<std::uint16_t> v(300);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint16_t>(i * 3);
  roam::buffer<std::uint16_t> b(v);
  ASSERT_EQ(b.size(), v.size());
  EXPECT_TRUE(std::equal(b.begin(), b.end(), v.begin()));
  EXPECT_EQ(roam::buffer<int>(5, 9), (roam::buffer<int>{9, 9, 9, 9, 9}));
  EXPECT_NE(roam::buffer<int>(5, 9), (roam::buffer<int>{9, 9, 9, 9}));
  EXPECT_EQ(b.clone(), b);
  EXPECT_NE(b.clone().data(), b.data());
}

TEST(buffer, large_buffers_are_64_byte_aligned) {
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{1} << 20}) {
    roam::buffer<std::byte> b(n);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data()) % 64, 0u) << n;
  }
}

TEST(buffer, packs_inline_without_a_frame_and_round_trips) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{16385}, std::size_t{100000}}) {
    roam::buffer<std::uint32_t> b = roam::buffer<std::uint32_t>::uninitialized(n);
    for (std::size_t i = 0; i < n; ++i) b.mutable_span()[i] = static_cast<std::uint32_t>(i * 2654435761u);
    auto bytes = roam::pack(b);
    EXPECT_EQ(bytes.size(), 8 + 1 + n * 4) << "length, placement byte, the elements inline";
    EXPECT_EQ(roam::packed_size(b), bytes.size());
    auto back = roam::unpack<roam::buffer<std::uint32_t>>(bytes);
    EXPECT_EQ(back, b) << n;
    if (n != 0) {
      EXPECT_NE(back.data(), b.data()) << "unpacked into memory of its own";
    }
  }
}

TEST(buffer, bitwise_opt_in_elements_round_trip) {
  roam::buffer<pod> b{{1, 0.5f}, {-2, 1.5f}};
  auto back = roam::unpack<roam::buffer<pod>>(roam::pack(b));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].a, -2);
  EXPECT_EQ(back[1].b, 1.5f);
}

TEST(buffer, buffers_nest_in_containers_and_tuples) {
  std::vector<roam::bytes> many{roam::bytes(3), roam::bytes(20000, std::byte{7})};
  auto back = roam::unpack<std::vector<roam::bytes>>(roam::pack(many));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1], many[1]);
}

TEST(buffer, corrupt_inline_input_is_a_pup_error) {
  auto good = roam::pack(roam::buffer<std::uint64_t>{1, 2, 3});
  // Every truncation.
  for (std::size_t n = 0; n < good.size(); ++n)
    EXPECT_THROW(roam::unpack<roam::buffer<std::uint64_t>>(std::span(good).first(n)), roam::pup_error) << n;
  // A placement byte other than 0 and 1.
  auto bad = good;
  bad[8] = std::byte{2};
  EXPECT_THROW(roam::unpack<roam::buffer<std::uint64_t>>(bad), roam::pup_error);
  // "Out of line" where no segments exist (not a message frame).
  bad = good;
  bad[8] = std::byte{1};
  bad.resize(9);
  EXPECT_THROW(roam::unpack<roam::buffer<std::uint64_t>>(bad), roam::pup_error);
  // A length that lies, also one whose byte count overflows.
  for (std::uint64_t n : {std::uint64_t{4}, std::uint64_t{1} << 40, ~std::uint64_t{0}, ~std::uint64_t{0} / 8 + 1}) {
    bad = good;
    std::memcpy(bad.data(), &n, 8);
    EXPECT_THROW(roam::unpack<roam::buffer<std::uint64_t>>(bad), roam::pup_error) << n;
  }
}

TEST(buffer, random_input_never_crashes) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  for (int i = 0; i < 3000; ++i) {
    std::vector<std::byte> junk(rng() % 40);
    for (auto& b : junk) b = std::byte(rng());
    if (junk.size() >= 9 && rng() % 2) {  // plausible headers more often
      const std::uint64_t n = rng() % 8;
      std::memcpy(junk.data(), &n, 8);
      junk[8] = std::byte(rng() % 3);
    }
    try {
      (void)roam::unpack<roam::buffer<std::uint32_t>>(junk);
    } catch (const roam::pup_error&) {
    }
  }
}

}  // namespace buffer_test
