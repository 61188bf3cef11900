#include <gtest/gtest.h>

#include <atomic>

#include "support/run_roam.hpp"

namespace completion_test {

using roam_test::run_on;

namespace {

std::atomic<long> g_consumed{0};
std::atomic<int> g_fired{0};

struct worker : roam::group_member<worker> {
  explicit worker(roam::completion_detector d) : detector_(d) {}
  // Produce `items` messages to random PEs, then declare this producer done.
  void produce(int items) {
    std::uint32_t pes = roam::num_pes();
    for (int i = 0; i < items; ++i) {
      detector_.produce();
      this_group()[roam::pe_id{(roam::my_pe().value() + static_cast<std::uint32_t>(i)) % pes}].send<&worker::item>(i);
    }
    detector_.done();
  }
  void item(int) {
    ++g_consumed;
    detector_.consume();
  }
  roam::completion_detector detector_;
};

void finished() {
  ++g_fired;
  roam::exit(0);
}

}  // namespace

TEST(completion, fires_once_after_every_producer_is_done_and_every_item_consumed) {
  for (unsigned pes : {1u, 2u, 4u}) {
    g_consumed = 0;
    g_fired = 0;
    static constexpr int items = 3000;
    int rc = run_on(pes, [pes](const roam::args&) {
      auto detector = roam::completion_detector::create();
      auto workers = roam::create_group<worker>(detector);
      detector.start(pes, roam::callback<>::function<&finished>(roam::pe_id{0}));
      workers.send<&worker::produce>(items);
    });
    EXPECT_EQ(rc, 0) << pes;
    EXPECT_EQ(g_consumed.load(), static_cast<long>(items) * pes) << "fired before every item was consumed";
    EXPECT_EQ(g_fired.load(), 1);
  }
}

}  // namespace completion_test
