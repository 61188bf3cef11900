// What observers (the trace's message sizes, the balancer's communication
// graph) are told a message carries: its payload's serialized size however
// the arguments hold it (issue #35: LeanMD's kilobyte multicasts of
// roam::buffer payloads were all counted under 256 B). A std::vector and a
// roam::bytes of known sizes, sent within a PE and across PEs, are counted
// with their contents, at the send and at the receipt, for an observer that
// declares need_message_bytes (the sizing pass costs nothing otherwise).
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <roam/roam.hpp>
#include <roam/sched/observe.hpp>

#include "support/run_roam.hpp"

namespace message_bytes_test {

namespace {

constexpr std::size_t vector_size = 10000, buffer_size = 20000;

struct sizes : roam::runtime_observer {
  // The largest message seen sent and received (a payload of either size).
  std::atomic<std::uint64_t> largest_sent{0}, largest_received{0};
  std::atomic<long> at_least_vector_sent{0}, at_least_buffer_sent{0}, at_least_vector_received{0},
      at_least_buffer_received{0};
  std::uint32_t needs() const noexcept override { return roam::need_message_bytes; }
  static void keep_max(std::atomic<std::uint64_t>& a, std::uint64_t v) {
    for (std::uint64_t c = a.load(); v > c && !a.compare_exchange_weak(c, v);) {
    }
  }
  void message_sent(const roam::message_event& e) noexcept override {
    keep_max(largest_sent, e.bytes);
    if (e.bytes >= vector_size) ++at_least_vector_sent;
    if (e.bytes >= buffer_size) ++at_least_buffer_sent;
  }
  void message_received(const roam::message_event& e) noexcept override {
    keep_max(largest_received, e.bytes);
    if (e.bytes >= vector_size) ++at_least_vector_received;
    if (e.bytes >= buffer_size) ++at_least_buffer_received;
  }
};

struct sink : roam::element<sink> {
  sink() = default;
  explicit sink(roam::migrating) {}
  void pup(roam::pup_er&) {}
  void take_vector(const std::vector<char>& v, roam::callback<> done) {
    EXPECT_EQ(v.size(), vector_size);
    contribute(done);
  }
  void take_buffer(roam::bytes b, roam::callback<> done) {
    EXPECT_EQ(b.size(), buffer_size);
    contribute(done);
  }
};

void run_on_pes(unsigned pes, sizes& seen) {
  ASSERT_TRUE(roam::add_observer(seen));
  const int rc = roam_test::run_on(pes, [](const roam::args&) -> roam::task<> {
    const int n = static_cast<int>(roam::num_pes());
    auto cells = roam::create_array<sink>(roam::array_options<1>({n}));
    // Every element contributes once per round: the future fires when all have the payload.
    auto [f, p] = roam::make_future<>();
    for (int i = 0; i < n; ++i)
      cells[i].send<&sink::take_vector>(std::vector<char>(vector_size, 'x'), roam::callback<>::to_future(p));
    co_await f;
    auto [g, q] = roam::make_future<>();
    for (int i = 0; i < n; ++i) cells[i].send<&sink::take_buffer>(roam::bytes(buffer_size), roam::callback<>::to_future(q));
    co_await g;
    roam::exit(0);
  });
  roam::remove_observer(seen);
  ASSERT_EQ(rc, 0);
}

}  // namespace

TEST(message_bytes, payloads_count_their_contents_on_one_pe) {
  sizes seen;
  run_on_pes(1, seen);
  EXPECT_GE(seen.largest_sent.load(), buffer_size);
  EXPECT_GE(seen.largest_received.load(), buffer_size);
  EXPECT_GE(seen.at_least_vector_sent.load(), 2) << "both payloads are above the vector's size";
  EXPECT_GE(seen.at_least_buffer_sent.load(), 1);
  EXPECT_GE(seen.at_least_buffer_received.load(), 1);
}

TEST(message_bytes, payloads_count_their_contents_across_pes) {
  sizes seen;
  run_on_pes(2, seen);
  EXPECT_GE(seen.largest_sent.load(), buffer_size);
  EXPECT_GE(seen.largest_received.load(), buffer_size);
  EXPECT_GE(seen.at_least_buffer_sent.load(), 2);
  EXPECT_GE(seen.at_least_vector_received.load(), 4);
}

}  // namespace message_bytes_test
