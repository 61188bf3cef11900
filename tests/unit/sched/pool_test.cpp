#include <gtest/gtest.h>

#include <cstring>

#include <roam/sched/detail/pool.hpp>

namespace pool_test {

using namespace roam::detail;

TEST(message_pool, size_classes_cover_requests_with_the_header) {
  EXPECT_EQ(size_class_for(1), 0);
  EXPECT_EQ(size_class_for(64 - sizeof(block_header)), 0);
  EXPECT_EQ(size_class_for(65 - sizeof(block_header)), 1);
  EXPECT_EQ(size_class_for(65536 - sizeof(block_header)), 10);
  EXPECT_EQ(size_class_for(65537 - sizeof(block_header)), heap_class);
  for (std::size_t n : {1u, 50u, 100u, 1000u, 30000u}) EXPECT_GE(class_bytes(size_class_for(n)), n + sizeof(block_header));
}

TEST(message_pool, reuses_freed_blocks_of_its_own) {
  message_pool pool;
  pool.init(0, 1);
  void* a = pool.allocate(100);
  pool.deallocate(a);
  void* b = pool.allocate(100);
  EXPECT_EQ(a, b) << "a freed block is reused before new memory";
  pool.deallocate(b);
  void* big = pool.allocate(1 << 20);
  std::memset(big, 1, 1 << 20);
  pool.deallocate(big);
}

}  // namespace pool_test
