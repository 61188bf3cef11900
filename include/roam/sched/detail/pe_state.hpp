#pragma once
// One PE's scheduler state. The hot paths (post, allocate) are inline here so
// that a send compiles down to a few loads and stores; the loop itself lives in
// src/sched/scheduler.cpp.
//
// Threads: everything above `inbox_` is touched only by the owning PE's
// thread; `inbox_`, `sleeping_`, `wake_` and the pool's return stack are
// written by other PEs. Counters are written by the owner, read by anyone.
#include <atomic>
#include <chrono>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <exception>

#include <roam/machine/ids.hpp>
#include <roam/sched/detail/idle_policy.hpp>
#include <roam/sched/detail/pool.hpp>
#include <roam/sched/detail/unique_function.hpp>
#include <roam/sched/detail/work.hpp>

namespace roam::detail {

struct runtime_state;
class transport;
struct ult;
struct task_roots;

/// Type-erased part of a future's shared state; lives on its owner PE only,
/// or, made by a migratable thread, in that thread's slot heap: then it
/// moves with the thread and its outcome follows it
/// (msg/detail/future_follow.hpp).
struct future_state_base {
  future_state_base() = default;
  future_state_base(const future_state_base&) = delete;
  future_state_base& operator=(const future_state_base&) = delete;
  virtual ~future_state_base() = default;
  /// Stores an outcome packed by pack_outcome<T> (a followed future's);
  /// throws pup_error on bytes that do not unpack.
  virtual void store_packed(std::span<const std::byte> outcome) = 0;
  std::uint32_t refs = 0;
  bool ready = false;
  std::uint64_t id = 0;
  std::uint32_t owner = 0;
  std::exception_ptr error;
  std::coroutine_handle<> waiter;
  task_roots* waiter_owner = nullptr;  ///< the object the waiting task holds in place (task.hpp)
  ult* thread_waiter = nullptr;  ///< a user-level thread blocked in future::get
  /// The migratable thread whose slot heap holds this state (null: the
  /// process heap), and its list of unfulfilled futures (in the slot too).
  ult* slot_owner = nullptr;
  future_state_base* thread_prev = nullptr;
  future_state_base* thread_next = nullptr;
};

/// Set by the iso layer: memory in the calling migratable thread's slot heap
/// (throws std::bad_alloc), and its release by address from anywhere in the process.
inline void* (*g_slot_allocate)(std::size_t bytes, std::size_t align) = nullptr;
inline void (*g_slot_release)(void* p) noexcept = nullptr;

/// Frees a state whose last reference went (from the slot heap or the process heap).
inline void destroy_future_state(future_state_base* s) noexcept {
  if (s->slot_owner == nullptr) {
    delete s;
    return;
  }
  s->~future_state_base();
  g_slot_release(s);
}

/// Home's record of a future whose state left with the migratable thread
/// that made it (msg/detail/future_follow.hpp).
struct future_follow {
  std::uint64_t serial = 0;  ///< the thread
  future_state_base* at = nullptr;  ///< the state, in the thread's slot (never touched here)
  std::uint32_t pe = ~0u;    ///< where the thread last said it is (~0u: not yet)
  std::uint32_t moves = 0;   ///< the thread's move count it said that with (later reports win)
  bool fulfilled = false;    ///< the outcome is here, packed, until the thread has it
  std::vector<std::byte> outcome;
};

/// Slots where higher layers keep their per-PE state without the scheduler knowing its type.
enum class layer_slot : unsigned { objects = 0, collectives, count };

class pe_state {
 public:
  using clock = std::chrono::steady_clock;

  pe_state(runtime_state& rt, std::uint32_t id, std::uint32_t pe_count);
  pe_state(const pe_state&) = delete;
  pe_state& operator=(const pe_state&) = delete;
  ~pe_state();

  std::uint32_t id() const noexcept { return id_; }
  runtime_state& runtime() const noexcept { return rt_; }
  message_pool& pool() noexcept { return pool_; }

  /// Queues an item produced on this PE for this PE (owner thread only).
  void enqueue_local(work_item* w) noexcept {
    if (w->priority == 0) {
      if (w->flags & work_lifo) fifo_.push_front(w);
      else fifo_.push_back(w);
    } else {
      push_heap(w);
    }
  }

  /// Queues an item from another PE (any thread) and wakes this PE if it sleeps.
  void enqueue_remote(work_item* w) noexcept {
    inbox_.push(w);
    // The first sender to see the PE asleep claims the wake (clears the flag):
    // senders during the wake-up latency (tens of µs) then skip the system
    // call, instead of each paying one (jacobi2d at +p2 sent 12x more wakes
    // than there were sleeps).
    if (sleeping_.load(std::memory_order_seq_cst) && sleeping_.exchange(0, std::memory_order_seq_cst)) wake();
  }

  /// Counts a message created on this PE (owner thread only).
  void count_created() noexcept { created_.store(created_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
  std::uint64_t created() const noexcept { return created_.load(std::memory_order_relaxed); }
  /// Messages this PE sent to other PEs (readonly globals may change only before the first).
  std::uint64_t sent_away() const noexcept { return sent_away_; }
  void count_sent_away() noexcept { ++sent_away_; }
  std::uint64_t processed() const noexcept { return processed_.load(std::memory_order_relaxed); }

  /// Runs the scheduler loop until the runtime stops.
  void run_loop();
  /// Runs queued items until none is left; returns how many ran (tests, nested waits).
  std::size_t drain() noexcept;
  /// Wakes the PE if it sleeps (any thread).
  void wake() noexcept;
  /// Makes this PE drive the transport's progress (one PE per process, no
  /// communication thread): it polls between messages and sleeps in the transport.
  void drive_progress(transport* net) noexcept { drives_ = net; }

  void add_timer(clock::time_point when, unique_function<void()> fn);
  void add_idle_hook(unique_function<void()> fn);
  void add_stop_hook(unique_function<void()> fn);

  void*& slot(layer_slot s) noexcept { return slots_[static_cast<unsigned>(s)]; }

  /// Futures created on this PE and not yet fulfilled, by id (future.hpp).
  std::unordered_map<std::uint64_t, future_state_base*> futures;
  std::uint64_t next_future_id = 0;
  /// Futures made here by a migratable thread that moved away with them, by
  /// id, until the thread has their outcome.
  std::unordered_map<std::uint64_t, future_follow> followed_futures;
  /// Suspended root coroutines (spawned tasks), destroyed at shutdown so nothing leaks.
  std::unordered_set<void*> root_tasks;

  /// What this PE's idle moments cost so far (owner thread only; +idlestats).
  const idle_stats& idle() const noexcept { return idle_stats_; }
  /// The spin budget the idle policy has learned (owner thread only).
  std::chrono::nanoseconds idle_spin_budget() const noexcept { return idle_policy_.budget(); }

  // ---- for the deterministic driver (src/sched/deterministic.cpp), which
  // steps every PE of the process on one thread ----
  /// This PE has an item to run now (its own queues; the node queue is separate).
  bool has_ready_work() const noexcept { return inbox_.maybe_nonempty() || !fifo_.empty() || !heap_.empty(); }
  /// Runs the next item (own queues first, then the node queue); false if there was none.
  bool run_one() noexcept {
    work_item* w = next_item();
    if (!w) return false;
    run_item(w);
    return true;
  }
  bool has_idle_hooks() const noexcept { return !idle_hooks_.empty(); }
  /// Runs the one-shot idle hooks queued so far.
  void run_idle_hooks();
  /// The earliest timer's deadline, if any.
  bool next_timer(clock::time_point& when) const noexcept {
    if (timers_.empty()) return false;
    when = timers_.front().first;
    return true;
  }
  /// Timers set on this PE and not yet run (owner thread only).
  std::size_t pending_timers() const noexcept { return timers_.size(); }
  /// Runs the earliest timer whether or not it is due (virtual time).
  void run_earliest_timer();

  /// Drops every queued item unrun (shutdown).
  void discard_queued() noexcept;
  void run_stop_hooks() noexcept;

 private:
  struct heap_entry {
    std::int64_t key;  // priority in the high bits, sequence in the low
    work_item* item;
  };
  void push_heap(work_item* w) noexcept;
  work_item* pop_heap() noexcept;
  work_item* next_item() noexcept;
  void drain_inbox() noexcept;
  bool run_timers() noexcept;
  void go_idle();
  void run_item(work_item* w) noexcept {
    if (!(w->flags & work_uncounted)) [[likely]]
      processed_.store(processed_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    w->run(w, work_action::run);
  }

  runtime_state& rt_;
  std::uint32_t id_;
  local_queue fifo_;
  std::vector<heap_entry> heap_;
  std::uint64_t heap_seq_ = 0;
  std::vector<std::pair<clock::time_point, unique_function<void()>>> timers_;  // min-heap by time
  std::vector<unique_function<void()>> idle_hooks_;
  std::vector<unique_function<void()>> stop_hooks_;
  void* slots_[static_cast<unsigned>(layer_slot::count)] = {};
  std::uint64_t sent_away_ = 0;
  transport* drives_ = nullptr;
  message_pool pool_;
  idle_policy idle_policy_;
  idle_stats idle_stats_;

  alignas(64) std::atomic<std::uint64_t> created_{0};
  std::atomic<std::uint64_t> processed_{0};

  alignas(64) mpsc_queue inbox_;
  alignas(64) std::atomic<std::uint32_t> sleeping_{0};
  std::atomic<std::uint32_t> wake_{0};
  std::atomic<std::int64_t> wake_stamp_{0};  ///< steady-clock ns of the last wake(): measures wake-up latency
};

/// The PE the calling thread runs, or nullptr on a thread that is not a PE.
/// Deterministic runs (+deterministic, src/sched/deterministic.cpp) keep
/// virtual time: it starts at the clock's epoch and jumps to a timer's
/// deadline when every PE is idle, so timers fire in the same order in every
/// run of a seed. Otherwise timers use the steady clock.
inline bool g_virtual_time = false;
inline std::chrono::steady_clock::time_point g_virtual_now{};
/// What timers are set against: the steady clock, or virtual time.
inline std::chrono::steady_clock::time_point timer_now() noexcept {
  return g_virtual_time ? g_virtual_now : std::chrono::steady_clock::now();
}

inline constinit thread_local pe_state* tls_pe = nullptr;

}  // namespace roam::detail
