// The deterministic driver (+deterministic SEED; docs/design/deterministic.md):
// every PE of the one process runs on the calling thread. Each step a PRNG
// seeded with SEED picks one PE among those that can run something now (an
// item in its queues, the node queue, a one-shot idle hook) and runs exactly
// one item there, with the thread-locals of that PE (tls_pe, its user-level
// thread host). Cross-PE messages land in the destination's inbox in the
// order the steps post them, so which PE runs when decides every
// interleaving, and the same seed replays the same run.
//
// Time is virtual: each step advances it by one microsecond, a PE whose
// earliest timer is due is a candidate like one with a message, and when no
// PE can run anything virtual time jumps to the earliest deadline (ties: the
// lower PE).
// A run in which every PE is idle with no timer left would wait forever: the
// driver says so and stops the program with status 1.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <roam/sched/detail/post.hpp>

#include <roam/sched/observe.hpp>

#include "runtime_internal.hpp"
#include "ult_internal.hpp"

namespace roam::detail {

namespace {

constexpr std::chrono::microseconds step_time{1};

std::uint64_t splitmix(std::uint64_t& state) noexcept {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The PEs with their user-level thread hosts; `enter` makes one current.
class pe_switch {
 public:
  explicit pe_switch(runtime_state& rt) : rt_(rt), hosts_(rt.pes.size(), nullptr) {}
  ~pe_switch() { leave(); }
  pe_switch(const pe_switch&) = delete;
  pe_switch& operator=(const pe_switch&) = delete;

  pe_state& enter(std::size_t i) {
    if (current_ != i) {
      leave();
      tls_pe = rt_.pes[i].get();
      ult_exchange_host(hosts_[i]);
      current_ = i;
    }
    return *rt_.pes[i];
  }
  void leave() noexcept {
    if (current_ == none) return;
    hosts_[current_] = ult_exchange_host(nullptr);
    tls_pe = nullptr;
    current_ = none;
  }

 private:
  static constexpr std::size_t none = ~std::size_t{0};
  runtime_state& rt_;
  std::vector<void*> hosts_;
  std::size_t current_ = none;
};

}  // namespace

int run_pes_deterministic(runtime_state& rt, unique_function<void(const roam::args&)>& main, roam::args& program_args) {
  if (!run_started_hooks(rt)) return 1;
  const std::size_t n = rt.pes.size();
  pe_switch pes(rt);
  g_virtual_time = true;
  g_virtual_now = {};
  for (std::size_t i = 0; i < n; ++i) run_pe_setups(pes.enter(i));
  pes.leave();
  post_main(rt, main, program_args);

  std::uint64_t state = rt.opts.seed;
  std::vector<std::size_t> ready;
  ready.reserve(n);
  auto timer_due = [&](std::size_t i) {
    pe_state::clock::time_point t;
    return rt.pes[i]->next_timer(t) && t <= g_virtual_now;
  };
  while (!rt.stopping()) {
    ready.clear();
    const bool node_work = rt.node_pending();
    for (std::size_t i = 0; i < n; ++i)
      if (node_work || rt.pes[i]->has_ready_work() || rt.pes[i]->has_idle_hooks() || timer_due(i)) ready.push_back(i);
    if (!ready.empty()) {
      const std::size_t i = ready[splitmix(state) % ready.size()];
      pe_state& pe = pes.enter(i);
      // Each step takes one virtual microsecond, so a timer also falls due
      // while other PEs keep busy (as it would in real time).
      g_virtual_now += step_time;
      if (timer_due(i)) pe.run_earliest_timer();
      else if (!pe.run_one()) pe.run_idle_hooks();  // nothing queued: this PE is idle now
      continue;
    }
    // Every PE is idle: virtual time jumps to the earliest timer.
    std::size_t due = n;
    pe_state::clock::time_point earliest{};
    for (std::size_t i = 0; i < n; ++i) {
      pe_state::clock::time_point t;
      if (rt.pes[i]->next_timer(t) && (due == n || t < earliest)) {
        due = i;
        earliest = t;
      }
    }
    if (due == n) {
      pes.enter(0);
      report_fatal("deterministic run (+deterministic " + std::to_string(rt.opts.seed) +
                   "): every PE is idle with no message, timer or idle hook left; the program would wait forever");
      break;
    }
    if (earliest > g_virtual_now) g_virtual_now = earliest;
    pes.enter(due).run_earliest_timer();
  }
  main_ended();

  for (std::size_t i = 0; i < n; ++i) {
    pes.enter(i);
    report_pe_stopped();
  }
  for (std::size_t i = 0; i < n; ++i) finish_pe_objects(pes.enter(i));
  for (std::size_t i = 0; i < n; ++i) finish_pe_queues(pes.enter(i));
  pes.leave();
  g_virtual_time = false;
  run_finished_hooks(rt);
  const int code = rt.exit_code();
  if (code != 0)
    std::fprintf(stderr, "roam: deterministic run ended with status %d; replay it with +deterministic %llu\n", code,
                 static_cast<unsigned long long>(rt.opts.seed));
  return code;
}

}  // namespace roam::detail
