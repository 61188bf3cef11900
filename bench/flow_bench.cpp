// roam-bench flow: what structured control flow costs over plain entries.
//  - mailbox_pingpong_<where>: two elements exchange (round, value) through
//    a task each that awaits its mailbox by reference number; plain_pingpong_
//    <where> is the same exchange with plain entry methods. One-way time.
//  - suspended_task_bytes (+p1 only): heap in use per task suspended on a
//    mailbox receive (its frame and bookkeeping), from glibc's mallinfo2.
#include <malloc.h>

#include <cstdio>
#include <string>
#include <vector>

#include "common.hpp"

namespace roam_bench {
namespace {


struct player : roam::element<player> {
  roam::mailbox<std::int64_t, std::int64_t> ball;  // (round, value)

  roam::element_proxy<player> other() const { return this_array()[1 - this_index()[0]]; }

  // The coroutine form: one task per side, awaiting each round by number.
  roam::task<> play(std::int64_t rounds, roam::promise<double> done) {
    auto t0 = bench_clock::now();
    const bool first = this_index()[0] == 0;
    if (first) other().send<&player::ball>(std::int64_t{0}, std::int64_t{1});
    for (std::int64_t r = first ? 1 : 0; r < 2 * rounds; r += 2) {
      auto [round, v] = co_await ball.receive(r);
      if (round + 1 < 2 * rounds) other().send<&player::ball>(round + 1, v + 1);
    }
    if (first) done.set_value(seconds_since(t0) * 1e6 / static_cast<double>(2 * rounds));
  }

  // The plain form: an entry per message.
  void start_plain(std::int64_t rounds, roam::promise<double> done) {
    rounds_ = rounds;
    done_ = done;
    t0_ = bench_clock::now();
    other().send<&player::hit>(std::int64_t{0}, std::int64_t{1});
  }
  void hit(std::int64_t round, std::int64_t v) {
    if (round == 2 * rounds_ - 1) {  // the last one, always element 0's
      done_.set_value(seconds_since(t0_) * 1e6 / static_cast<double>(2 * rounds_));
      return;
    }
    other().send<&player::hit>(round + 1, v + 1);
  }
  void set_rounds(std::int64_t rounds) { rounds_ = rounds; }

  std::int64_t rounds_ = 0;
  roam::promise<double> done_;
  bench_clock::time_point t0_;
};

struct sleeper : roam::element<sleeper> {
  roam::mailbox<int> wake;
  roam::task<> nap() { (void)co_await wake.receive(1); }
};

std::size_t heap_in_use() { return mallinfo2().uordblks; }

roam::task<> bench_pingpongs() {
  const std::uint32_t pes = roam::num_pes();
  std::vector<std::pair<const char*, bool>> where = {{"same_pe", false}};
  if (pes > 1) where.push_back({"cross_pe", true});
  for (auto [label, cross] : where) {
    auto map = cross ? roam::custom_map<&spread>() : roam::custom_map<&on_pe0>();
    const std::int64_t rounds = 100000;
    for (bool coroutine : {false, true}) {
      std::string name = std::string(coroutine ? "mailbox_pingpong_" : "plain_pingpong_") + label;
      if (!wanted(name)) continue;
      result r{"flow", name, pes, -1, "one_way_us", {}};
      for (int rep = 0; rep <= g_config.reps; ++rep) {
        auto arr = roam::create_array<player>(roam::array_options<1>({2}, map));
        auto [f, p] = roam::make_future<double>();
        if (coroutine) {
          roam::promise<double> none;
          arr[1].send<&player::play>(rounds, none);
          arr[0].send<&player::play>(rounds, p);
        } else {
          arr[1].send<&player::set_rounds>(rounds);
          arr[0].send<&player::start_plain>(rounds, p);
        }
        double us = co_await f;
        if (rep > 0) r.samples.push_back(us);
      }
      print(r, g_config.json);
    }
  }
}

roam::task<> quiet() {
  auto [f, p] = roam::make_future<>();
  roam::on_quiescence(roam::callback<>::to_future(p));
  co_await f;
}

roam::task<> bench_task_memory() {
  // One PE, one thread, one malloc arena: the difference is the tasks'.
  if (!wanted("suspended_task_bytes") || roam::num_pes() != 1) co_return;
  const int n = 20000;
  result r{"flow", "suspended_task_bytes", 1, -1, "bytes_per_task", {}};
  auto arr = roam::create_array<sleeper>(roam::index<1>{n});
  co_await quiet();
  const std::size_t before = heap_in_use();
  arr.send<&sleeper::nap>();
  co_await quiet();
  r.samples.push_back(static_cast<double>(heap_in_use() - before) / n);
  print(r, g_config.json);
  arr.send<&sleeper::wake>(1);
  co_await quiet();
}

}  // namespace

roam::task<> bench_flow() {
  co_await bench_pingpongs();
  co_await bench_task_memory();
}

}  // namespace roam_bench
