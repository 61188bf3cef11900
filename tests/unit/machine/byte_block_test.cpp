// Reference-counted blocks and the cache of large ones (byte_block.hpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include <roam/machine/detail/frame.hpp>

namespace byte_block_test {

using namespace roam::detail;

TEST(byte_block, blocks_are_aligned_and_at_least_as_large_as_asked) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{100}, std::size_t{40000}, std::size_t{1} << 20,
                        (std::size_t{1} << 20) + 1}) {
    block_ref b = block_ref::allocate(n);
    EXPECT_GE(b.capacity(), n);
    EXPECT_LE(b.capacity(), n + n / 4 + 64) << "at most a quarter of slack";
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data()) % 64, 0u);
    EXPECT_TRUE(b.unique());
  }
}

TEST(byte_block, references_count_and_the_last_one_frees) {
  block_ref a = block_ref::allocate(10);
  block_ref b = a;
  EXPECT_EQ(a.use_count(), 2u);
  EXPECT_FALSE(a.unique());
  block_ref c = std::move(b);
  EXPECT_EQ(a.use_count(), 2u);
  c.reset();
  EXPECT_TRUE(a.unique());
  shared_block* raw = a.release();
  EXPECT_FALSE(a);
  block_ref back(raw);  // adopts the reference again
  EXPECT_EQ(back.use_count(), 1u);
  block_ref shared = block_ref::share(raw);
  EXPECT_EQ(back.use_count(), 2u);
}

TEST(byte_block, a_freed_large_block_is_reused_by_the_next_allocation_of_its_class) {
  block_cache_clear();
  const auto before = block_cache_snapshot();
  std::byte* first = nullptr;
  {
    block_ref b = block_ref::allocate(std::size_t{1} << 20);
    first = b.data();
    b.data()[0] = std::byte{1};
  }
  EXPECT_EQ(block_cache_snapshot().cached_blocks, 1u);
  block_ref again = block_ref::allocate((std::size_t{1} << 20) - 100);  // same class
  EXPECT_EQ(again.data(), first) << "the cached block, its pages already mapped";
  EXPECT_EQ(block_cache_snapshot().hits, before.hits + 1);
  EXPECT_EQ(block_cache_snapshot().cached_blocks, 0u);
  // Small blocks are not cached.
  { block_ref small = block_ref::allocate(1000); }
  EXPECT_EQ(block_cache_snapshot().cached_blocks, 0u);
}

TEST(byte_block, the_cache_is_bounded_per_class) {
  block_cache_clear();
  {
    std::vector<block_ref> many;
    for (int i = 0; i < 10; ++i) many.push_back(block_ref::allocate(std::size_t{64} << 10));
  }
  EXPECT_LE(block_cache_snapshot().cached_blocks, 4u);
  block_cache_clear();
  EXPECT_EQ(block_cache_snapshot().cached_blocks, 0u);
  EXPECT_EQ(block_cache_snapshot().cached_bytes, 0u);
}

TEST(byte_block, a_hold_keeps_blocks_beyond_the_usual_bounds_until_withdrawn) {
  block_cache_clear();
  constexpr std::size_t big = std::size_t{300} << 20;  // above the largest block cached without a hold
  { block_ref b = block_ref::allocate(big); }          // never touched: no memory used
  EXPECT_EQ(block_cache_snapshot().cached_blocks, 0u) << "not kept without a hold";
  block_cache_hold(2 * big);
  std::byte* first = nullptr;
  std::byte* second = nullptr;
  {
    block_ref a = block_ref::allocate(big), b = block_ref::allocate(big);
    first = a.data();
    second = b.data();
  }
  EXPECT_EQ(block_cache_snapshot().cached_blocks, 2u) << "both kept: more than the usual 128 MiB in all";
  block_ref again = block_ref::allocate(big);
  EXPECT_TRUE(again.data() == first || again.data() == second) << "reused, its pages already mapped";
  again.reset();
  block_cache_hold(0);
  EXPECT_EQ(block_cache_snapshot().cached_blocks, 0u) << "withdrawn: the blocks beyond the usual bounds go";
  block_cache_clear();
}

TEST(byte_block, threads_share_and_release_blocks_concurrently) {
  block_ref shared = block_ref::allocate(std::size_t{128} << 10);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&shared] {
      for (int i = 0; i < 20000; ++i) {
        block_ref mine = shared;
        block_ref other = block_ref::allocate(std::size_t{40} << 10);  // churns the cache
        other.data()[0] = std::byte{1};
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_TRUE(shared.unique());
}

TEST(out_frame, owns_inline_bytes_and_segment_references) {
  out_frame f = out_frame::copy_of(std::vector<std::byte>(5, std::byte{3}));
  EXPECT_EQ(f.size(), 5u);
  EXPECT_EQ(f.data()[4], std::byte{3});
  block_ref b = block_ref::allocate(100);
  f.add_segment(b, 60);
  EXPECT_TRUE(f.has_segments());
  EXPECT_EQ(f.total_bytes(), 65u);
  EXPECT_EQ(b.use_count(), 2u);
  out_frame moved = std::move(f);
  EXPECT_EQ(f.size(), 0u);
  EXPECT_FALSE(f.has_segments());
  auto segs = moved.take_segments();
  EXPECT_FALSE(moved.has_segments());
  ASSERT_EQ(segs.size(), 1u);
  EXPECT_EQ(segs[0].bytes, 60u);
  segs.clear();
  EXPECT_TRUE(b.unique());
  EXPECT_EQ(out_frame(0).data(), nullptr);
}

}  // namespace byte_block_test
