#pragma once
// The unit the scheduler queues: an intrusive node with a run function.
// Messages (msg layer) extend it; the scheduler never looks past this header.
#include <atomic>
#include <cstdint>

namespace roam::detail {

struct work_item;
/// What the scheduler asks of an item: run it, or (at shutdown) drop it unrun.
enum class work_action : unsigned char { run, discard };
/// Runs or discards the item on the current PE, consuming it either way. Must not throw.
using run_fn = void (*)(work_item*, work_action) noexcept;

/// Flags the scheduler understands.
enum work_flags : std::uint32_t {
  work_lifo = 1u << 0,       ///< queue at the front of its priority level
  work_forwarded = 1u << 1,  ///< a broadcast already passed on to this PE's tree children
  work_uncounted = 1u << 2,  ///< runtime control traffic that quiescence detection must not count
  work_closure = 1u << 3,    ///< a C++ closure: runs only in the process that made it
  work_segments = 1u << 4,   ///< message layer: the packed payload ends with a segment table (msg/detail/packed_payload.hpp)
  // Location management (obj/elements.cpp): how an element message got here.
  work_via_pointer = 1u << 5,  ///< passed on by the element's previous host: the element is here or on its way
  work_via_home = 1u << 6,     ///< passed on by the element's home PE
  work_received = 1u << 7,     ///< observers were told of its receipt (a message parked and delivered again is not received twice)
  work_hop_shift = 8,          ///< bits 8..11: times the message was passed on (saturating)
  work_hop_mask = 0xfu << 8,
  // Observers (sched/observe.hpp): bits 12..31 number the send, so a receipt names it.
  work_flow_shift = 12,
  work_flow_mask = 0xfffffu << 12,
};

/// An intrusive queue node. Invariant: an item is in at most one queue.
struct work_item {
  std::atomic<work_item*> next{nullptr};
  run_fn run = nullptr;
  std::int32_t priority = 0;  ///< smaller runs first; 0 is the default FIFO level
  std::uint32_t flags = 0;
};

/// Lock-free multi-producer single-consumer intrusive queue (Vyukov's design):
/// producers pay one exchange, the consumer no atomic read-modify-write.
/// FIFO per producer, which gives the per-sender ordering guarantee.
class mpsc_queue {
 public:
  mpsc_queue() noexcept : head_(&stub_), tail_(&stub_) {}
  mpsc_queue(const mpsc_queue&) = delete;
  mpsc_queue& operator=(const mpsc_queue&) = delete;

  /// Any thread. The seq_cst exchange pairs with the consumer's sleep check.
  void push(work_item* w) noexcept {
    w->next.store(nullptr, std::memory_order_relaxed);
    work_item* prev = head_.exchange(w, std::memory_order_seq_cst);
    prev->next.store(w, std::memory_order_release);
  }

  /// Consumer only. Returns nullptr when empty or when a producer is mid-push.
  work_item* pop() noexcept {
    work_item* tail = tail_;
    work_item* next = tail->next.load(std::memory_order_acquire);
    if (tail == &stub_) {
      if (next == nullptr) return nullptr;
      tail_ = next;
      tail = next;
      next = next->next.load(std::memory_order_acquire);
    }
    if (next != nullptr) {
      tail_ = next;
      return tail;
    }
    if (tail != head_.load(std::memory_order_acquire)) return nullptr;  // a push is in progress
    push(&stub_);
    next = tail->next.load(std::memory_order_acquire);
    if (next != nullptr) {
      tail_ = next;
      return tail;
    }
    return nullptr;
  }

  /// Consumer only: false only when nothing has been pushed that pop has not returned.
  bool maybe_nonempty() const noexcept {
    return tail_ != &stub_ || head_.load(std::memory_order_seq_cst) != &stub_;
  }

 private:
  // The stub shares the producers' line: when the queue is empty a push
  // writes head_ and stub_.next, and the consumer reads both, in one line.
  alignas(64) std::atomic<work_item*> head_;
  work_item stub_;
  alignas(64) work_item* tail_;
};

/// Single-threaded intrusive FIFO with O(1) push at either end.
class local_queue {
 public:
  bool empty() const noexcept { return head_ == nullptr; }
  void push_back(work_item* w) noexcept {
    w->next.store(nullptr, std::memory_order_relaxed);
    if (tail_) tail_->next.store(w, std::memory_order_relaxed);
    else head_ = w;
    tail_ = w;
  }
  void push_front(work_item* w) noexcept {
    w->next.store(head_, std::memory_order_relaxed);
    head_ = w;
    if (!tail_) tail_ = w;
  }
  work_item* pop() noexcept {
    work_item* w = head_;
    if (w) {
      head_ = w->next.load(std::memory_order_relaxed);
      if (!head_) tail_ = nullptr;
    }
    return w;
  }

 private:
  work_item* head_ = nullptr;
  work_item* tail_ = nullptr;
};

}  // namespace roam::detail
