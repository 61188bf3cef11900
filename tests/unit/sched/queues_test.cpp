#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <vector>

#include <roam/sched/detail/work.hpp>

namespace queues_test {

using roam::detail::local_queue;
using roam::detail::mpsc_queue;
using roam::detail::work_item;

namespace {
struct tagged : work_item {
  int producer = 0;
  int seq = 0;
};
}  // namespace

TEST(local_queue, is_fifo_with_push_front_for_lifo) {
  local_queue q;
  tagged a, b, c;
  q.push_back(&a);
  q.push_back(&b);
  q.push_front(&c);
  EXPECT_EQ(q.pop(), &c);
  EXPECT_EQ(q.pop(), &a);
  EXPECT_EQ(q.pop(), &b);
  EXPECT_EQ(q.pop(), nullptr);
  EXPECT_TRUE(q.empty());
}

TEST(mpsc_queue, keeps_each_producers_order_under_concurrent_producers) {
  constexpr int producers = 3;
  constexpr int per_producer = 20000;
  std::vector<std::unique_ptr<tagged[]>> items;
  for (int p = 0; p < producers; ++p) items.push_back(std::make_unique<tagged[]>(per_producer));
  mpsc_queue q;
  std::vector<std::thread> threads;
  for (int p = 0; p < producers; ++p) {
    threads.emplace_back([&, p] {
      for (int i = 0; i < per_producer; ++i) {
        items[p][i].producer = p;
        items[p][i].seq = i;
        q.push(&items[p][i]);
      }
    });
  }
  std::vector<int> next(producers, 0);
  int received = 0;
  while (received < producers * per_producer) {
    work_item* w = q.pop();
    if (!w) {
      std::this_thread::yield();
      continue;
    }
    auto* t = static_cast<tagged*>(w);
    ASSERT_EQ(t->seq, next[t->producer]) << "producer " << t->producer;
    ++next[t->producer];
    ++received;
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(q.pop(), nullptr);
  EXPECT_FALSE(q.maybe_nonempty());
}

TEST(mpsc_queue, reports_empty_only_when_everything_was_popped) {
  mpsc_queue q;
  EXPECT_FALSE(q.maybe_nonempty());
  tagged a;
  q.push(&a);
  EXPECT_TRUE(q.maybe_nonempty());
  EXPECT_EQ(q.pop(), &a);
  EXPECT_FALSE(q.maybe_nonempty());
}

}  // namespace queues_test
