#include <sched.h>

#include <algorithm>
#include <cstdio>

#include <roam/sched/detail/heap_route.hpp>
#include <roam/sched/detail/runtime_state.hpp>
#include <roam/sched/observe.hpp>
#include <roam/sched/poller.hpp>

#include <roam/machine/detail/futex.hpp>
#include <roam/machine/detail/transport.hpp>

namespace roam::detail {

namespace {
// Items between looks at the node queue and the timers while local work keeps
// the PE busy, so neither starves.
constexpr unsigned poll_period = 32;

std::int64_t since_epoch_ns(pe_state::clock::time_point t) noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

bool heap_less(std::int32_t pa, std::int64_t sa, std::int32_t pb, std::int64_t sb) {
  return pa != pb ? pa < pb : sa < sb;
}
}  // namespace

pe_state::pe_state(runtime_state& rt, std::uint32_t id, std::uint32_t pe_count)
    : rt_(rt),
      id_(id),
      // More PEs than cores: a spinning PE takes the core from the one that
      // would produce its work, so the spin stays at its minimum.
      idle_policy_(rt.opts.idle_spin, rt.opts.idle_spin_max, !rt.oversubscribed) {
  pool_.init(id, pe_count);
  heap_.reserve(64);
}

pe_state::~pe_state() = default;

void pe_state::push_heap(work_item* w) noexcept {
  if (heap_.size() == heap_.capacity()) [[unlikely]] {
    heap_route_pause pause;  // the queue grows in the process heap, even when a routed thread posts
    heap_.reserve(std::max<std::size_t>(64, heap_.capacity() * 2));
  }
  // A LIFO item sorts before every earlier item of its priority: negative sequence.
  std::int64_t seq = static_cast<std::int64_t>(++heap_seq_);
  if (w->flags & work_lifo) seq = -seq;
  heap_.push_back({seq, w});
  auto less = [](const heap_entry& a, const heap_entry& b) {
    return heap_less(b.item->priority, b.key, a.item->priority, a.key);  // std heap is a max-heap
  };
  std::push_heap(heap_.begin(), heap_.end(), less);
}

work_item* pe_state::pop_heap() noexcept {
  auto less = [](const heap_entry& a, const heap_entry& b) {
    return heap_less(b.item->priority, b.key, a.item->priority, a.key);
  };
  std::pop_heap(heap_.begin(), heap_.end(), less);
  work_item* w = heap_.back().item;
  heap_.pop_back();
  return w;
}

void pe_state::drain_inbox() noexcept {
  while (work_item* w = inbox_.pop()) enqueue_local(w);
}

work_item* pe_state::next_item() noexcept {
  drain_inbox();
  if (!heap_.empty() && (heap_.front().item->priority < 0 || fifo_.empty())) return pop_heap();
  if (work_item* w = fifo_.pop()) return w;
  return rt_.take_node_item();
}

bool pe_state::run_timers() noexcept {
  if (timers_.empty()) return false;
  auto later = [](const auto& a, const auto& b) { return a.first > b.first; };
  auto now = clock::now();
  bool ran = false;
  while (!timers_.empty() && timers_.front().first <= now) {
    std::pop_heap(timers_.begin(), timers_.end(), later);
    auto fn = std::move(timers_.back().second);
    timers_.pop_back();
    fn();
    ran = true;
  }
  return ran;
}

void pe_state::run_loop() {
  unsigned since_poll = 0;
  while (!rt_.stopping()) {
    if (work_item* w = next_item()) {
      run_item(w);
      if (++since_poll >= poll_period) {
        since_poll = 0;
        run_timers();
        if (work_item* n = rt_.take_node_item()) run_item(n);
        if (drives_) drives_->progress();  // the transport caps how much one turn takes
        if (have_pollers()) [[unlikely]] poll_pollers(id_);
      }
      continue;
    }
    if (have_pollers()) [[unlikely]] {
      // A library's poller (a flag in memory) is looked at before the
      // transport, whose look is a system call: the spin in go_idle asks
      // the transport every 64th turn while pollers are installed.
      if (poll_pollers(id_)) continue;
    } else if (drives_ && drives_->progress()) {
      continue;
    }
    if (run_timers()) continue;
    go_idle();
  }
}

std::size_t pe_state::drain() noexcept {
  std::size_t n = 0;
  while (work_item* w = next_item()) {
    run_item(w);
    ++n;
  }
  return n;
}

void pe_state::go_idle() {
  if (!idle_hooks_.empty()) {
    auto hooks = std::move(idle_hooks_);
    idle_hooks_.clear();
    for (auto& h : hooks) h();
    return;
  }
  // Observers see the idle period from here to whichever return ends it.
  struct idle_observation {
    std::uint32_t pe;
    bool on = observed();
    explicit idle_observation(std::uint32_t id) : pe(id) {
      if (on) [[unlikely]] {
        const std::uint64_t t = clock_ticks();
        for_each_observer([&](runtime_observer& o) { o.idle_begin(pe, t); });
      }
    }
    ~idle_observation() {
      if (on) [[unlikely]] {
        const std::uint64_t t = clock_ticks();
        for_each_observer([&](runtime_observer& o) { o.idle_end(pe, t); });
      }
    }
  } observation(id_);
  auto work_visible = [&] { return inbox_.maybe_nonempty() || rt_.node_pending() || rt_.stopping(); };
  // Spin briefly: a reply in a ping-pong usually arrives within microseconds.
  // No pause instruction: on this CPU it costs ~40 ns of reaction time per
  // iteration (measured: 0.27 -> 0.25 us cross-PE one-way), and the spin is
  // bounded by +idlespin anyway.
  if (rt_.opts.busywait) {
    for (int i = 0; i < 64 && !work_visible(); ++i) {
    }
    return;
  }
  // The spin ends early when a timer falls due. The clock is read every 64
  // looks, not when work appears, so finding work costs no clock read; the
  // gap the policy learns is short by at most 64 looks.
  ++idle_stats_.episodes;
  const auto start = clock::now();
  auto spin_end = start + idle_policy_.budget();
  if (!timers_.empty()) spin_end = std::min(spin_end, timers_.front().first);
  auto last_look = start;
  auto end_spinning = [&] {
    idle_stats_.spinning += last_look - start;
    idle_policy_.episode(last_look - start);
  };
  const bool polled = have_pollers();
  for (unsigned i = 1;; ++i) {
    // With pollers installed (flags in shared memory, a few ns a look) the
    // transport, whose look is a system call of ~0.5 us, is asked every 64th
    // turn (~2 us of spinning): asked every turn it kept the pollers from
    // looking for most of the spin (a host-path channel round trip 1.1 us;
    // 0.5-0.7 us so). A message then waits up to ~2 us longer to be seen.
    if (work_visible() || (polled && poll_pollers(id_)) || ((!polled || (i & 63) == 0) && drives_ && drives_->progress())) {
      end_spinning();
      return;
    }
    if ((i & 63) == 0) {
      if (rt_.oversubscribed) sched_yield();
      last_look = clock::now();
      if (last_look >= spin_end) {
        if (!timers_.empty() && timers_.front().first <= last_look) {  // run the timer
          end_spinning();
          return;
        }
        break;
      }
    }
  }
  idle_stats_.spinning += last_look - start;
  // About to sleep: hand back other PEs' blocks now rather than on every idle
  // moment, where it would cost a remote cache line per message in a ping-pong.
  pool_.flush_returns();
  std::chrono::nanoseconds timeout{-1};
  if (!timers_.empty()) {
    auto next = timers_.front().first;  // a min-heap by deadline
    timeout = std::max(std::chrono::nanoseconds{0}, std::chrono::duration_cast<std::chrono::nanoseconds>(next - clock::now()));
    if (timeout.count() == 0) {
      idle_policy_.episode(last_look - start);
      return;
    }
  }
  ++idle_stats_.slept;
  const auto sleep_start = clock::now();
  std::uint32_t seen = wake_.load(std::memory_order_seq_cst);
  sleeping_.store(1, std::memory_order_seq_cst);
  // Pollers learn it first, then look once more: a producer in another
  // process that published before it saw the flag is found here.
  if (polled) {
    tell_pollers_sleeping(id_, true);
    if (poll_pollers(id_)) {
      tell_pollers_sleeping(id_, false);
      sleeping_.store(0, std::memory_order_relaxed);
      idle_policy_.episode(last_look - start);
      return;
    }
  }
  if (drives_) {
    // Sleep in the transport, so a frame from a peer wakes this PE too; wake() interrupts it.
    constexpr std::chrono::microseconds longest{100'000};
    auto t = timeout.count() < 0 ? longest
                                 : std::min(longest, std::chrono::duration_cast<std::chrono::microseconds>(timeout));
    if (!work_visible()) drives_->wait(t);
  } else if (!work_visible()) {
    futex_wait(wake_, seen, timeout);
  }
  sleeping_.store(0, std::memory_order_relaxed);
  if (polled) tell_pollers_sleeping(id_, false);
  const auto woke = clock::now();
  idle_stats_.asleep += woke - sleep_start;
  const std::int64_t stamp = wake_stamp_.load(std::memory_order_relaxed);
  if (stamp >= since_epoch_ns(sleep_start)) {
    std::chrono::nanoseconds latency{since_epoch_ns(woke) - stamp};
    ++idle_stats_.woken;
    idle_stats_.wake_latency_total += latency;
    idle_stats_.wake_latency_max = std::max(idle_stats_.wake_latency_max, latency);
  }
  idle_policy_.episode(woke - start);
}

void pe_state::wake() noexcept {
  wake_stamp_.store(since_epoch_ns(clock::now()), std::memory_order_relaxed);
  if (tls_pe) ++tls_pe->idle_stats_.wakes_sent;
  wake_.fetch_add(1, std::memory_order_seq_cst);
  if (drives_) drives_->wake();
  else futex_wake(wake_, 1);
}

void pe_state::add_timer(clock::time_point when, unique_function<void()> fn) {
  timers_.emplace_back(when, std::move(fn));
  std::push_heap(timers_.begin(), timers_.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
}

void pe_state::add_idle_hook(unique_function<void()> fn) { idle_hooks_.push_back(std::move(fn)); }

void pe_state::run_idle_hooks() {
  auto hooks = std::move(idle_hooks_);
  idle_hooks_.clear();
  for (auto& h : hooks) h();
}

void pe_state::run_earliest_timer() {
  if (timers_.empty()) return;
  auto later = [](const auto& a, const auto& b) { return a.first > b.first; };
  std::pop_heap(timers_.begin(), timers_.end(), later);
  auto fn = std::move(timers_.back().second);
  timers_.pop_back();
  fn();
}
void pe_state::add_stop_hook(unique_function<void()> fn) { stop_hooks_.push_back(std::move(fn)); }

void pe_state::run_stop_hooks() noexcept {
  // Later layers registered later; they tear down first.
  for (auto it = stop_hooks_.rbegin(); it != stop_hooks_.rend(); ++it) (*it)();
  stop_hooks_.clear();
}

void pe_state::discard_queued() noexcept {
  drain_inbox();
  while (work_item* w = fifo_.pop()) w->run(w, work_action::discard);
  while (!heap_.empty()) {
    work_item* w = pop_heap();
    w->run(w, work_action::discard);
  }
  timers_.clear();
  idle_hooks_.clear();
}

}  // namespace roam::detail
