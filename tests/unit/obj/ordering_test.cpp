#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "support/run_roam.hpp"

namespace ordering_test {

using roam_test::run_on;

namespace {

// Each sender streams sequence-numbered messages to one receiver; the
// receiver checks that every sender's messages arrive in send order.
struct fifo_receiver : roam::chare<fifo_receiver> {
  explicit fifo_receiver(int expected) : expected_(expected) {}
  void take(std::uint32_t sender, int seq) {
    if (next_[sender] != seq) {
      roam::abort("out of order from pe " + std::to_string(sender) + ": got " + std::to_string(seq) + ", expected " +
                  std::to_string(next_[sender]));
      return;
    }
    ++next_[sender];
    if (++received_ == expected_) roam::exit(0);
  }
  int expected_;
  int received_ = 0;
  std::map<std::uint32_t, int> next_;
};

struct fifo_sender : roam::group_member<fifo_sender> {
  void stream(roam::chare_proxy<fifo_receiver> to, int count) {
    for (int i = 0; i < count; ++i) to.send<&fifo_receiver::take>(roam::my_pe().value(), i);
  }
};

}  // namespace

TEST(ordering, messages_from_one_sender_arrive_in_send_order_despite_concurrent_senders) {
  for (unsigned pes : {2u, 4u}) {
    static constexpr int per_sender = 20000;
    int rc = run_on(pes, [pes](const roam::args&) {
      auto r = roam::create_chare_on<fifo_receiver>(roam::pe_id{0}, static_cast<int>(pes) * per_sender);
      auto senders = roam::create_group<fifo_sender>();
      senders.send<&fifo_sender::stream>(r, per_sender);
    });
    EXPECT_EQ(rc, 0) << pes << " PEs";
  }
}

TEST(ordering, send_order_holds_when_every_message_goes_through_the_wire_format) {
  static constexpr int per_sender = 2000;
  int rc = run_on(2, [](const roam::args&) {
    auto r = roam::create_chare_on<fifo_receiver>(roam::pe_id{0}, 2 * per_sender);
    auto senders = roam::create_group<fifo_sender>();
    senders.send<&fifo_sender::stream>(r, per_sender);
  }, {"+serialize"});
  EXPECT_EQ(rc, 0);
}

namespace {
struct recorder : roam::chare<recorder> {
  void note(int tag) { log.push_back(tag); }
  static inline std::vector<int> log;
};
}  // namespace

TEST(ordering, smaller_priorities_run_first_and_equal_priorities_keep_send_order) {
  recorder::log.clear();
  int rc = run_on(1, [](const roam::args&) -> roam::task<> {
    auto r = roam::create_chare_on<recorder>(roam::pe_id{0});
    // Queued while main runs, so the scheduler sees them all at once.
    r.send<&recorder::note>(roam::priority(5), 50);
    r.send<&recorder::note>(roam::priority(-2), -20);
    r.send<&recorder::note>(0);
    r.send<&recorder::note>(roam::priority(5), 51);
    r.send<&recorder::note>(roam::priority(-2), -21);
    r.send<&recorder::note>(1);
    r.send<&recorder::note>(roam::priority(-7), -70);
    co_await r.call<&recorder::note>(roam::priority(1000), 1000);
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  // Negative priorities run even before the chare's creation message: they wait
  // in its buffer and run, in priority order, as soon as it exists.
  EXPECT_EQ(recorder::log, (std::vector<int>{-70, -20, -21, 0, 1, 50, 51, 1000}));
}

TEST(ordering, lifo_puts_a_message_before_its_equals) {
  recorder::log.clear();
  int rc = run_on(1, [](const roam::args&) -> roam::task<> {
    auto r = roam::create_chare_on<recorder>(roam::pe_id{0});
    r.send<&recorder::note>(roam::send_options{3, false}, 1);
    r.send<&recorder::note>(roam::send_options{3, false}, 2);
    r.send<&recorder::note>(roam::send_options{3, true}, 3);
    r.send<&recorder::note>(roam::send_options{0, false}, 4);
    r.send<&recorder::note>(roam::send_options{0, true}, 5);
    co_await r.call<&recorder::note>(roam::priority(10), 0);
    roam::exit(0);
  });
  EXPECT_EQ(rc, 0);
  // Priority 0: LIFO 5 jumps ahead of everything queued at that level; priority 3
  // runs after the level-0 FIFO, with LIFO 3 ahead of its equals.
  ASSERT_EQ(recorder::log.size(), 6u);
  EXPECT_EQ(recorder::log, (std::vector<int>{5, 4, 3, 1, 2, 0}));
}

}  // namespace ordering_test
