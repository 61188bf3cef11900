// The heap inside an isomalloc slot: blocks of every size and alignment,
// reuse, merging, realloc, the break going back down, running out, and
// moving the whole heap by copying its used pages to the same addresses.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <vector>

#include <roam/iso/detail/region.hpp>
#include <roam/iso/detail/slot_heap.hpp>

namespace iso_heap_test {

namespace iso = roam::detail::iso;

// A small range of its own (no run is going): 64 slots of 1 MiB, 1 GiB into
// this build's default range (where a sanitizer lets programs map).
class slot_heap_test : public ::testing::Test {
 protected:
  void SetUp() override {
    iso::region_layout l;
    l.base = iso::default_layout().base + (std::uintptr_t{1} << 30);
    l.size = std::size_t{64} << 20;
    l.slot_size = std::size_t{1} << 20;
    ASSERT_EQ(iso::reserve(l), "");
    iso::reset_slots(2);
    std::string error;
    slot_ = iso::take_slot(0, error);
    ASSERT_NE(slot_, ~0u) << error;
    begin_ = iso::layout().slot_address(slot_);
    heap_ = iso::slot_heap::create(begin_, begin_ + iso::layout().slot_size, error);
    ASSERT_TRUE(heap_) << error;
  }
  void TearDown() override { iso::release_region(); }

  std::uint32_t slot_ = 0;
  std::uintptr_t begin_ = 0;
  iso::slot_heap heap_;
};

TEST_F(slot_heap_test, blocks_of_every_size_stay_apart_and_inside_the_slot) {
  std::vector<std::pair<unsigned char*, std::size_t>> blocks;
  for (std::size_t n : {1, 15, 16, 17, 100, 4096, 4097, 10000, 65536, 3, 200000}) {
    auto* p = static_cast<unsigned char*>(heap_.allocate(n));
    ASSERT_NE(p, nullptr) << n;
    EXPECT_TRUE(heap_.owns(p));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 16, 0u);
    EXPECT_GE(heap_.usable_size(p), n);
    std::memset(p, static_cast<int>(n & 0xff), n);
    blocks.emplace_back(p, n);
  }
  for (auto [p, n] : blocks)
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(p[i], static_cast<unsigned char>(n & 0xff)) << n;
  EXPECT_EQ(heap_.blocks_in_use(), blocks.size());
  for (auto [p, n] : blocks) heap_.release(p);
  EXPECT_EQ(heap_.blocks_in_use(), 0u);
  EXPECT_EQ(heap_.bytes_in_use(), 0u);
}

TEST_F(slot_heap_test, freed_blocks_are_reused_and_large_ranges_merge_and_return_below_the_break) {
  void* a = heap_.allocate(40);
  heap_.release(a);
  EXPECT_EQ(heap_.allocate(40), a);  // the same size class, the same block
  const std::uintptr_t before = heap_.used_end();
  void* x = heap_.allocate(20000);
  void* y = heap_.allocate(30000);
  void* z = heap_.allocate(50000);
  EXPECT_GT(heap_.used_end(), before + 100000);
  heap_.release(x);
  heap_.release(y);  // merges with x's range
  void* big = heap_.allocate(45000);
  EXPECT_EQ(big, x) << "x and y's merged range fits it";
  heap_.release(big);
  heap_.release(z);  // everything after `before` is free again: the break goes back
  EXPECT_EQ(heap_.used_end(), before);
}

TEST_F(slot_heap_test, aligned_blocks_and_realloc) {
  for (std::size_t align : {32, 64, 256, 4096}) {
    void* p = heap_.allocate(100, align);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % align, 0u) << align;
    EXPECT_GE(heap_.usable_size(p), 100u);
    std::memset(p, 7, 100);
    heap_.release(p);
  }
  EXPECT_EQ(heap_.allocate(8, 24), nullptr) << "not a power of two";
  auto* p = static_cast<char*>(heap_.allocate(10));
  std::memcpy(p, "0123456789", 10);
  auto* q = static_cast<char*>(heap_.reallocate(p, 10000));
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(std::memcmp(q, "0123456789", 10), 0);
  EXPECT_EQ(heap_.reallocate(q, 0), nullptr);
  EXPECT_EQ(heap_.blocks_in_use(), 0u);
}

TEST_F(slot_heap_test, running_out_returns_null_and_keeps_what_is_there) {
  std::vector<void*> kept;
  while (void* p = heap_.allocate(100000)) kept.push_back(p);
  EXPECT_GE(kept.size(), 9u);  // 1 MiB slot
  EXPECT_LE(heap_.used_end(), heap_.limit());
  EXPECT_EQ(heap_.allocate(std::size_t{1} << 40), nullptr);
  void* small = heap_.allocate(16);  // what is left still serves small blocks
  for (void* p : kept) heap_.release(p);
  if (small) heap_.release(small);
  EXPECT_EQ(heap_.blocks_in_use(), 0u);
}

TEST_F(slot_heap_test, random_blocks_against_a_reference) {
  // ROAM_TEST_SEED=<n> replays a run.
  const char* given = std::getenv("ROAM_TEST_SEED");
  const unsigned seed = given ? static_cast<unsigned>(std::strtoul(given, nullptr, 10)) : std::random_device{}();
  std::printf("slot_heap random test seed %u (ROAM_TEST_SEED=%u replays it)\n", seed, seed);
  std::mt19937 rng(seed);
  std::map<unsigned char*, std::pair<std::size_t, unsigned char>> live;
  for (int step = 0; step < 20000; ++step) {
    if (live.empty() || rng() % 3 != 0) {
      const std::size_t n = rng() % 8 == 0 ? 4097 + rng() % 30000 : 1 + rng() % 600;
      auto* p = static_cast<unsigned char*>(heap_.allocate(n, rng() % 16 == 0 ? 64 : 16));
      if (!p) continue;
      const auto fill = static_cast<unsigned char>(rng());
      std::memset(p, fill, n);
      ASSERT_TRUE(live.emplace(p, std::make_pair(n, fill)).second) << "seed " << seed << ": a block given twice";
    } else {
      auto it = live.begin();
      std::advance(it, static_cast<long>(rng() % live.size()));
      const auto [n, fill] = it->second;
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(it->first[i], fill) << "seed " << seed << ": a block overwritten";
      heap_.release(it->first);
      live.erase(it);
    }
  }
  // No two live blocks overlap.
  unsigned char* end = nullptr;
  for (auto& [p, v] : live) {
    ASSERT_TRUE(end == nullptr || p >= end) << "seed " << seed;
    end = p + v.first;
  }
  EXPECT_EQ(heap_.blocks_in_use(), live.size());
}

TEST_F(slot_heap_test, copying_the_used_pages_back_to_the_same_addresses_moves_the_heap) {
  // A linked list on the heap, as a migrating thread would leave it.
  struct node {
    int value;
    node* next;
  };
  node* head = nullptr;
  for (int i = 0; i < 1000; ++i) {
    auto* n = static_cast<node*>(heap_.allocate(sizeof(node)));
    *n = {i, head};
    head = n;
  }
  const std::uintptr_t used = heap_.used_end() - begin_;
  std::vector<std::byte> image(reinterpret_cast<std::byte*>(begin_), reinterpret_cast<std::byte*>(begin_) + used);
  // Away: the slot's memory is gone.
  iso::give_back_slot(0, slot_);
  ASSERT_TRUE(iso::adopt_slot(1, slot_));
  std::string error;
  ASSERT_TRUE(iso::open_pages(begin_, (used + 4095) / 4096 * 4096, error)) << error;
  std::memcpy(reinterpret_cast<void*>(begin_), image.data(), image.size());
  iso::slot_heap moved = iso::slot_heap::at(begin_);
  ASSERT_TRUE(moved);
  EXPECT_EQ(moved.blocks_in_use(), 1000u);
  int expect = 999, count = 0;
  for (node* n = head; n; n = n->next, --expect, ++count) ASSERT_EQ(n->value, expect);
  EXPECT_EQ(count, 1000);
  // It goes on allocating where it left off.
  void* more = moved.allocate(64);
  ASSERT_NE(more, nullptr);
  EXPECT_TRUE(moved.owns(more));
}

}  // namespace iso_heap_test
