// The PE -> communication-thread hand-off of the mpi transport (no MPI calls).
#ifdef ROAM_HAVE_MPI
#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

#include "mpi/mpi_outbox.hpp"

namespace mpi_outbox_test {

using namespace roam::detail;

namespace {
out_frame frame_of(std::uint32_t producer, std::uint32_t seq) {
  out_frame f(8);
  std::memcpy(f.data(), &producer, 4);
  std::memcpy(f.data() + 4, &seq, 4);
  return f;
}
std::vector<std::byte> bytes_of(const out_frame& f) { return {f.bytes().begin(), f.bytes().end()}; }
}  // namespace

TEST(mpi_outbox, an_empty_outbox_gives_nothing) {
  mpi_outbox box;
  std::vector<mpi_outgoing> batch;
  EXPECT_FALSE(box.maybe_nonempty());
  EXPECT_FALSE(box.take_all(batch));
  EXPECT_TRUE(batch.empty());
}

TEST(mpi_outbox, frames_come_out_oldest_first_with_their_destination) {
  mpi_outbox box;
  box.push(2, frame_of(0, 0));
  box.push(1, frame_of(0, 1));
  EXPECT_TRUE(box.maybe_nonempty());
  std::vector<mpi_outgoing> batch;
  ASSERT_TRUE(box.take_all(batch));
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[0].dst, 2u);
  EXPECT_EQ(batch[1].dst, 1u);
  EXPECT_EQ(bytes_of(batch[1].frame), bytes_of(frame_of(0, 1)));
  EXPECT_FALSE(box.maybe_nonempty());
}

TEST(mpi_outbox, concurrent_producers_each_keep_their_order_and_nothing_is_lost) {
  constexpr std::uint32_t producers = 4, per_producer = 20000;
  mpi_outbox box;
  std::vector<std::thread> threads;
  for (std::uint32_t p = 0; p < producers; ++p)
    threads.emplace_back([&box, p] {
      for (std::uint32_t s = 0; s < per_producer; ++s) box.push(p, frame_of(p, s));
    });
  std::vector<std::uint32_t> next(producers, 0);
  std::vector<mpi_outgoing> batch;
  std::uint32_t total = 0;
  while (total < producers * per_producer) {
    batch.clear();
    if (!box.take_all(batch)) {
      std::this_thread::yield();
      continue;
    }
    for (const auto& o : batch) {
      std::uint32_t p = 0, s = 0;
      std::memcpy(&p, o.frame.data(), 4);
      std::memcpy(&s, o.frame.data() + 4, 4);
      ASSERT_EQ(o.dst, p);
      ASSERT_EQ(s, next[p]) << "producer " << p << " out of order";
      ++next[p];
      ++total;
    }
  }
  for (auto& t : threads) t.join();
  batch.clear();
  EXPECT_FALSE(box.take_all(batch));
}

}  // namespace mpi_outbox_test
#endif
