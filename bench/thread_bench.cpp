// roam-bench thread: what user-level threads cost, all on PE 0.
//  - threaded_entry_pingpong: two elements exchange a ball; every ball is a
//    message that runs a threaded entry (a new thread each time, as Charm++'s
//    [threaded] entries do). One-way time. Charm++: 0.32 us.
//  - threaded_call_pingpong: a threaded entry calls a threaded entry of the
//    other element and blocks in get() on the result; half a round trip.
//  - future_pingpong: two long-lived threads hand a value back and forth
//    through futures (make_future, set_value, get); one-way time.
//  - context_switch: the scheduler resumes a thread that blocks again at
//    once; time per switch (half the round trip), no message involved.
//  - migratable_context_switch: the same on a migratable thread (its stack in
//    an isomalloc slot), through migratable_thread::resume and
//    suspend_this_thread.
//  - yield: this_thread_yield round trip (a posted message and two switches).
//  - thread_create: start_thread of an empty function from a message handler
//    (stack from the pool, run, finish).
//  - suspended_rss / suspended_virtual: memory per thread blocked in get(),
//    for 2000 threads at once (resident pages, and mapped address space).
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <roam/iso/thread.hpp>
#include <roam/sched/detail/ult.hpp>

#include "common.hpp"

namespace roam_bench {
namespace {


struct volleyer : roam::element<volleyer> {
  static constexpr auto threaded_entries() {
    return roam::entry_list<&volleyer::ball, &volleyer::serve, &volleyer::answer>{};
  }

  // Threaded entry ping-pong: each message starts a thread that sends the next.
  void start(std::uint64_t balls, roam::promise<double> done) {
    left_ = balls;
    total_ = balls;
    done_ = done;
    t0_ = bench_clock::now();
    partner().send<&volleyer::ball>(std::uint64_t{0});
  }
  void ball(std::uint64_t x) {
    if (this_index()[0] == 0 && --left_ == 0) {
      done_.set_value(seconds_since(t0_) * 1e6 / static_cast<double>(total_) / 2.0);
      return;
    }
    partner().send<&volleyer::ball>(x + 1);
  }

  // Threaded call ping-pong: block on the other's threaded entry's result.
  void serve(std::uint64_t rounds, roam::promise<double> done) {
    auto other = partner();
    auto t0 = bench_clock::now();
    std::uint64_t x = 0;
    for (std::uint64_t i = 0; i < rounds; ++i) x = other.call<&volleyer::answer>(x).get();
    done.set_value(x == rounds ? seconds_since(t0) * 1e6 / static_cast<double>(rounds) / 2.0 : -1.0);
  }
  std::uint64_t answer(std::uint64_t x) { return x + 1; }

 private:
  roam::element_proxy<volleyer> partner() const { return this_array()[1 - this_index()[0]]; }
  std::uint64_t left_ = 0, total_ = 0;
  roam::promise<double> done_;
  bench_clock::time_point t0_;
};

// Two long-lived threads handing a counter back and forth through futures.
struct future_court {
  roam::promise<std::uint64_t> to_a, to_b;
  std::uint64_t rounds = 0;
  roam::promise<double> done;
};

void future_pingpong(future_court& court) {
  roam::start_thread([&court] {  // b: answers until the counter reaches the end
    for (;;) {
      auto [f, p] = roam::make_future<std::uint64_t>();
      court.to_b = p;
      std::uint64_t x = f.get();
      if (x >= 2 * court.rounds) return;
      court.to_a.set_value(x + 1);
    }
  });
  roam::start_thread([&court] {  // a: serves and times
    auto t0 = bench_clock::now();
    std::uint64_t x = 0;
    while (x < 2 * court.rounds) {
      auto [f, p] = roam::make_future<std::uint64_t>();
      court.to_a = p;
      court.to_b.set_value(x + 1);
      x = f.get();
    }
    court.to_b.set_value(x);  // lets b end
    court.done.set_value(seconds_since(t0) * 1e6 / static_cast<double>(2 * court.rounds));
  });
}

double context_switch_us(std::uint64_t rounds) {
  roam::detail::ult* t = nullptr;
  bool stop = false;
  roam::start_thread([&t, &stop] {
    t = roam::detail::ult_current();
    while (!stop) roam::detail::ult_suspend();
  });
  auto t0 = bench_clock::now();
  for (std::uint64_t i = 0; i < rounds; ++i) roam::detail::ult_ready(t);
  double us = seconds_since(t0) * 1e6 / static_cast<double>(2 * rounds);
  stop = true;
  roam::detail::ult_ready(t);
  return us;
}

// The same switch on a migratable thread, through its public API
// (migratable_thread::resume from the scheduler, suspend_this_thread).
struct switch_holder {
  roam::migratable_thread thread;
  bool stop = false;
};

double migratable_switch_us(std::uint64_t rounds) {
  switch_holder h;
  h.thread.start(&h, [] {
    while (!roam::this_thread_owner<switch_holder>().stop) roam::suspend_this_thread();
  });
  auto t0 = bench_clock::now();
  for (std::uint64_t i = 0; i < rounds; ++i) h.thread.resume();
  double us = seconds_since(t0) * 1e6 / static_cast<double>(2 * rounds);
  h.stop = true;
  h.thread.resume();
  return us;
}

double thread_create_us(std::uint64_t n) {
  auto t0 = bench_clock::now();
  for (std::uint64_t i = 0; i < n; ++i) roam::start_thread([] {});
  return seconds_since(t0) * 1e6 / static_cast<double>(n);
}

// Resident and mapped bytes of this process (/proc/self/statm, in pages).
std::pair<double, double> memory_now() {
  std::ifstream statm("/proc/self/statm");
  double size = 0, resident = 0;
  statm >> size >> resident;
  double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  return {resident * page, size * page};
}

}  // namespace

roam::task<> bench_thread() {
  const std::uint32_t pes = roam::num_pes();
  auto arr = roam::create_array<volleyer>(roam::array_options<1>({2}, roam::custom_map<&on_pe0>()));

  if (wanted("threaded_entry_pingpong")) {
    result r{"thread", "threaded_entry_pingpong", pes, 8, "one_way_us", {}};
    for (int rep = 0; rep <= g_config.reps; ++rep) {
      auto [f, p] = roam::make_future<double>();
      arr[0].send<&volleyer::start>(std::uint64_t{200000}, p);
      double us = co_await f;
      if (rep > 0) r.samples.push_back(us);
    }
    print(r, g_config.json);
  }
  if (wanted("threaded_call_pingpong")) {
    result r{"thread", "threaded_call_pingpong", pes, 8, "one_way_us", {}};
    for (int rep = 0; rep <= g_config.reps; ++rep) {
      auto [f, p] = roam::make_future<double>();
      arr[0].send<&volleyer::serve>(std::uint64_t{100000}, p);
      double us = co_await f;
      if (rep > 0) r.samples.push_back(us);
    }
    print(r, g_config.json);
  }
  if (wanted("future_pingpong")) {
    result r{"thread", "future_pingpong", pes, 8, "one_way_us", {}};
    for (int rep = 0; rep <= g_config.reps; ++rep) {
      future_court court;
      court.rounds = 100000;
      auto [f, p] = roam::make_future<double>();
      court.done = p;
      future_pingpong(court);
      double us = co_await f;
      if (rep > 0) r.samples.push_back(us);
    }
    print(r, g_config.json);
  }
  if (wanted("context_switch")) {
    result r{"thread", "context_switch", pes, -1, "us_per_switch", {}};
    for (int rep = 0; rep <= g_config.reps; ++rep) {
      double us = context_switch_us(1000000);
      if (rep > 0) r.samples.push_back(us);
    }
    print(r, g_config.json);
  }
  if (wanted("migratable_context_switch")) {
    result r{"thread", "migratable_context_switch", pes, -1, "us_per_switch", {}};
    for (int rep = 0; rep <= g_config.reps; ++rep) {
      double us = migratable_switch_us(1000000);
      if (rep > 0) r.samples.push_back(us);
    }
    print(r, g_config.json);
  }
  if (wanted("yield")) {
    result r{"thread", "yield", pes, -1, "us_per_yield", {}};
    for (int rep = 0; rep <= g_config.reps; ++rep) {
      auto [f, p] = roam::make_future<double>();
      roam::start_thread([p = p] {
        constexpr int n = 500000;
        auto t0 = bench_clock::now();
        for (int i = 0; i < n; ++i) roam::this_thread_yield();
        p.set_value(seconds_since(t0) * 1e6 / n);
      });
      double us = co_await f;
      if (rep > 0) r.samples.push_back(us);
    }
    print(r, g_config.json);
  }
  if (wanted("thread_create")) {
    result r{"thread", "thread_create", pes, -1, "us_per_thread", {}};
    for (int rep = 0; rep <= g_config.reps; ++rep) {
      double us = thread_create_us(500000);
      if (rep > 0) r.samples.push_back(us);
    }
    print(r, g_config.json);
  }
  if (wanted("suspended")) {
    // One round: later ones would reuse pooled stacks whose pages are already resident.
    constexpr int n = 2000;
    std::vector<roam::promise<>> release;
    release.reserve(n);
    auto before = memory_now();
    for (int i = 0; i < n; ++i) {
      auto [f, p] = roam::make_future<>();
      release.push_back(p);
      roam::start_thread([f = f] { f.get(); });
    }
    auto during = memory_now();
    for (auto& p : release) p.set_value();
    auto [tick, tock] = roam::make_future<>();
    tock.set_value();
    co_await tick;  // behind the releases: every thread has ended
    print({"thread", "suspended_rss", pes, -1, "bytes_per_thread", {(during.first - before.first) / n}}, g_config.json);
    print({"thread", "suspended_virtual", pes, -1, "bytes_per_thread", {(during.second - before.second) / n}},
          g_config.json);
  }
}

}  // namespace roam_bench
