#pragma once
// An imbalanced iterative program with known loads, for load balancing:
// `elements` array elements in a ring; each step every element works its
// load (a busy loop of load_ms(i, step)), sends a ghost to both neighbours
// and waits for theirs; every `sync_every` steps it calls at_sync(). The
// loads are known, so the best any balancer can do is known too:
//   static: element i works max_ms * (i / (N-1))^4 every step; placed in
//           blocks on 2 PEs, one PE holds 97% of the work (max/avg 1.94);
//   drift:  each load follows a sine of period 200 steps, phase i/N: the
//           heavy half of the ring turns slowly (a few percent a step);
//   sudden: static, then at half time every load moves to the element
//           opposite (i -> N-1-i).
// Shared by examples/lb_test.cpp and roam-bench lb.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <ctime>
#include <numbers>
#include <string>

#include <roam/roam.hpp>

namespace lb_workload {

enum class pattern : int { static_loads, drift, sudden };

struct config {
  int elements = 32;
  int steps = 300;
  double max_ms = 10;
  pattern loads = pattern::static_loads;
  int sync_every = 20;  ///< at_sync every this many steps (0: never)
  /// Work by the thread's CPU clock, not the wall clock: with +LBCpuTime the measured loads are then
  /// the configured ones even when other processes take the cores (tests that need exact decisions).
  bool cpu_clock = false;
  template <class P>
  void pup(P& p) {
    int kind = static_cast<int>(loads);
    p | elements | steps | max_ms | kind | sync_every | cpu_clock;
    loads = static_cast<pattern>(kind);
  }
};

inline bool parse_pattern(const std::string& s, pattern& out) {
  if (s == "static") out = pattern::static_loads;
  else if (s == "drift") out = pattern::drift;
  else if (s == "sudden") out = pattern::sudden;
  else return false;
  return true;
}
inline const char* pattern_name(pattern p) {
  return p == pattern::static_loads ? "static" : p == pattern::drift ? "drift" : "sudden";
}

/// Element i's work at `step`, in milliseconds.
inline double load_ms(const config& c, int i, int step) {
  const double n = std::max(1, c.elements - 1);
  switch (c.loads) {
    case pattern::static_loads:
      return c.max_ms * std::pow(i / n, 4);
    case pattern::drift:
      return c.max_ms * 0.5 *
             (1 + std::sin(2 * std::numbers::pi * (step / 200.0 + static_cast<double>(i) / c.elements)));
    case pattern::sudden: {
      const int j = step < c.steps / 2 ? i : c.elements - 1 - i;
      return c.max_ms * std::pow(j / n, 4);
    }
  }
  return 0;
}

/// The best time any placement could reach on `pes` PEs: per step, the larger of
/// the average PE's share and the heaviest single element.
inline double perfect_seconds(const config& c, unsigned pes) {
  double total = 0;
  for (int s = 0; s < c.steps; ++s) {
    double sum = 0, most = 0;
    for (int i = 0; i < c.elements; ++i) {
      const double l = load_ms(c, i, s);
      sum += l;
      most = std::max(most, l);
    }
    total += std::max(sum / pes, most);
  }
  return total / 1e3;
}

inline void work_for_ms(double ms, bool cpu_clock) {
  if (cpu_clock) {
    const auto now = [] {
      timespec t{};
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
      return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
    };
    const double end = now() + ms;
    while (now() < end) {
    }
    return;
  }
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double, std::milli>(ms);
  while (std::chrono::steady_clock::now() < end) {
  }
}

struct unit : roam::element<unit> {
  unit() = default;
  explicit unit(roam::migrating) {}
  void pup(roam::pup_er& p) { p | cfg_ | step_ | got_ | working_ | done_; }

  void start(config c, roam::callback<> done) {
    cfg_ = c;
    done_ = done;
    begin_step();
  }
  // A neighbour's ghost for `step`: this one, or the next when the neighbour is ahead.
  void ghost(int step) {
    ++got_[static_cast<std::size_t>(step & 1)];
    try_finish_step();
  }
  void resume_from_sync() { begin_step(); }

 private:
  void begin_step() {
    work_for_ms(load_ms(cfg_, this_index()[0], step_), cfg_.cpu_clock);
    const int n = cfg_.elements, i = this_index()[0];
    this_array()[(i + 1) % n].send<&unit::ghost>(step_);
    this_array()[(i + n - 1) % n].send<&unit::ghost>(step_);
    working_ = false;
    try_finish_step();
  }
  void try_finish_step() {
    int& got = got_[static_cast<std::size_t>(step_ & 1)];
    if (working_ || got < 2) return;
    got = 0;
    ++step_;
    working_ = true;
    if (step_ == cfg_.steps) {
      contribute(done_);
      destroy_self();  // done: it must not hold a later run's sync steps back
      return;
    }
    if (cfg_.sync_every > 0 && step_ % cfg_.sync_every == 0) {
      at_sync();
      return;
    }
    begin_step();
  }

  config cfg_;
  int step_ = 0;
  std::array<int, 2> got_{};  ///< ghosts received, by step parity (a neighbour is at most one step ahead)
  bool working_ = true;       ///< between at_sync and resume, or before start: ghosts only count
  roam::callback<> done_;
};

struct outcome {
  double seconds = 0;
  double perfect = 0;
  std::uint32_t lb_steps = 0;
};

/// Runs the program once on every PE of the run.
inline roam::task<outcome> run(config c) {
  auto units = roam::create_array<unit>(roam::array_options<1>({c.elements}));
  auto [f, p] = roam::make_future<>();
  const auto t0 = std::chrono::steady_clock::now();
  units.send<&unit::start>(c, roam::callback<>::to_future(p));
  co_await f;
  outcome o;
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  o.perfect = perfect_seconds(c, roam::num_pes());
  o.lb_steps = roam::load_balancing_steps();
  co_return o;
}

}  // namespace lb_workload
