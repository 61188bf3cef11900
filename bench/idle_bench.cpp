// roam-bench idle: what idling between fine-grained messages costs.
//  - work_pingpong_<W>us: two elements on PEs 0 and 1 (the same PE at +p1)
//    pass a ball; each works W µs before passing it on, so each PE is idle
//    about W µs between its messages, the rhythm of a fine-grained
//    computation (a Jacobi sweep between ghost exchanges). The metric is what
//    a hop costs beyond the work: time per hop minus W. A PE that sleeps in
//    the gap makes every hop pay a futex wake and the wake-up latency.
#include <cstdio>
#include <string>

#include "common.hpp"

namespace roam_bench {
namespace {


// Busy work of a fixed length: a stand-in for computing on a block.
void work_for(std::chrono::microseconds w) {
  auto end = bench_clock::now() + w;
  while (bench_clock::now() < end) {
  }
}

struct worker : roam::element<worker> {
  // Element 0 serves first; the last of `hops` hops lands on element 0 again.
  void start(std::int64_t hops, std::int64_t work_us, roam::promise<double> done) {
    done_ = done;
    other().send<&worker::ball>(hops - 1, work_us);
  }
  void ball(std::int64_t left, std::int64_t work_us) {
    work_for(std::chrono::microseconds(work_us));
    if (left == 0) {
      done_.set_value(0);
      return;
    }
    other().send<&worker::ball>(left - 1, work_us);
  }

 private:
  roam::element_proxy<worker> other() const { return this_array()[1 - this_index()[0]]; }
  roam::promise<double> done_;
};

}  // namespace

roam::task<> bench_idle() {
  const std::uint32_t pes = roam::num_pes();
  auto pair = roam::create_array<worker>(roam::array_options<1>({2}, roam::custom_map<&spread>()));
  for (int work_us : {10, 30, 100, 300}) {
    std::string name = "work_pingpong_" + std::to_string(work_us) + "us";
    if (!wanted(name)) continue;
    result r{"idle", name, pes, -1, "us_per_hop_overhead", {}};
    const std::int64_t hops = 2 * (50'000 / work_us);  // about 0.1 s of work per repetition
    for (int rep = 0; rep <= g_config.reps; ++rep) {
      auto [f, p] = roam::make_future<double>();
      auto t0 = bench_clock::now();
      pair[0].send<&worker::start>(hops, std::int64_t{work_us}, p);
      co_await f;
      double per_hop_us = seconds_since(t0) * 1e6 / static_cast<double>(hops);
      if (rep > 0) r.samples.push_back(per_hop_us - work_us);
    }
    print(r, g_config.json);
  }
}

}  // namespace roam_bench
