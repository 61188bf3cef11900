#pragma once
/// The parallel engine's events, their per-PE pool, the pending heap and the
/// per-LP record of processed events (docs/design/pdes.md, "Events").
#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <vector>

#include <roam/msg/pup.hpp>
#include <roam/pdes/model.hpp>

namespace roam::pdes::detail {

enum class event_status : std::uint8_t {
  pending,    ///< in the pending heap (or a straggler queue), not run
  processed,  ///< run, in its LP's processed list, may be rolled back
  cancelled,  ///< annulled while in the heap: freed when it comes out
  stub,       ///< a record of an event sent to another PE (for its anti-message)
};

/// One event. The children an event sent while it ran hang off it (a list
/// through `next_sibling`), so that rolling it back cancels them: local ones
/// directly, remote ones (stubs holding key and destination) by anti-messages.
template <class Message>
struct event {
  event_key key;
  lp_id dest = 0;
  event* first_child = nullptr;  ///< events it sent to LPs of this PE
  event* first_stub = nullptr;   ///< stubs of the events it sent to other PEs
  event* next_sibling = nullptr;  ///< in the parent's child or stub list; the free list's link while free
  bitfield bf{};
  event_status status = event_status::pending;
  std::uint32_t past_end = 0;  ///< sends it dropped at or beyond the end time (counted when it commits)
  std::uint64_t arrival = 0;   ///< when it last entered the pending heap (orders equal keys)
  Message message{};
};

/// Per-PE event storage: chunks never returned while the run lasts, a free
/// list through `next_sibling`. Used by one thread only (an event from
/// another PE is copied into the receiver's pool).
template <class Message>
class event_pool {
 public:
  using event_type = event<Message>;
  event_pool() = default;
  event_pool(const event_pool&) = delete;
  event_pool& operator=(const event_pool&) = delete;

  event_type* make() {
    if (!free_) grow();
    event_type* e = free_;
    free_ = e->next_sibling;
    ++live_;
    // Field by field: assigning a whole fresh event wrote its message twice.
    e->first_child = nullptr;
    e->first_stub = nullptr;
    e->next_sibling = nullptr;
    e->bf = {};
    e->status = event_status::pending;
    e->past_end = 0;
    return e;
  }
  void release(event_type* e) noexcept {
    e->next_sibling = free_;
    free_ = e;
    --live_;
  }
  std::uint64_t live() const noexcept { return live_; }

 private:
  void grow() {
    const std::size_t n = chunks_.empty() ? 1024 : std::min<std::size_t>(std::size_t{1} << 16, 1024u << chunks_.size());
    chunks_.push_back(std::make_unique<event_type[]>(n));
    event_type* c = chunks_.back().get();
    for (std::size_t i = n; i-- > 0;) {
      c[i].next_sibling = free_;
      free_ = &c[i];
    }
  }
  std::vector<std::unique_ptr<event_type[]>> chunks_;
  event_type* free_ = nullptr;
  std::uint64_t live_ = 0;
};

/// The pending events of one PE, smallest key first: a 4-ary heap of
/// (timestamp, event) pairs. 16-byte entries, four to a cache line, and
/// half the levels of a binary heap: popping is most of an event's cost in
/// a fine-grained model, and measured faster than std::push_heap/pop_heap
/// over whole keys. Only equal timestamps read the events' keys. Cancelled
/// events stay until they reach the top (lazy deletion). Equal keys come out
/// in the order they went in: an event re-sent after a rollback can carry
/// the key of the one it replaces (same time, sender and send counter) with
/// other contents, and the anti-message for the old one, which arrived
/// first, must match the old one.
template <class Message>
class pending_heap {
 public:
  using event_type = event<Message>;
  /// A timestamp's bits compare as unsigned integers in the timestamps'
  /// order (they are never negative; -0 is stored as +0), which compilers
  /// turn into conditional moves more readily than double comparisons.
  struct entry {
    std::uint64_t ts_bits;
    event_type* e;
  };
  bool empty() const noexcept { return h_.empty(); }
  std::size_t size() const noexcept { return h_.size(); }
  const entry& top() const noexcept { return h_.front(); }
  sim_time top_time() const noexcept { return std::bit_cast<sim_time>(h_.front().ts_bits); }
  void push(event_type* e) {
    e->arrival = arrivals_++;
    std::size_t i = h_.size();
    h_.push_back({std::bit_cast<std::uint64_t>(e->key.ts + 0.0), e});
    const entry moving = h_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!before(moving, h_[parent])) break;
      h_[i] = h_[parent];
      i = parent;
    }
    h_[i] = moving;
  }
  /// Floyd's pop: the hole left by the top goes down to a leaf along the
  /// least children (chosen without branches when timestamps differ: the
  /// comparisons of a pop are unpredictable, and mispredicted branches were
  /// most of its cost), then the last entry rises from there (usually not at
  /// all: it came from the bottom).
  event_type* pop() {
    event_type* top_event = h_.front().e;
    const entry moving = h_.back();
    h_.pop_back();
    const std::size_t n = h_.size();
    if (n == 0) return top_event;
    entry* h = h_.data();
    std::size_t i = 0;
    for (;;) {
      const std::size_t first = 4 * i + 1;
      std::size_t best;
      if (first + 4 <= n) {
        best = first + least_of_four(h + first);
      } else if (first < n) {
        best = first;
        for (std::size_t c = first + 1; c < n; ++c)
          if (before(h[c], h[best])) best = c;
      } else {
        break;
      }
      h[i] = h[best];
      i = best;
    }
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!before(moving, h[parent])) break;
      h[i] = h[parent];
      i = parent;
    }
    h[i] = moving;
    // The next event's line loads while this one runs (its status is read
    // first thing by the caller's next pop).
    __builtin_prefetch(h[0].e);
    return top_event;
  }
  /// Every entry (for migration and the end of a run).
  std::vector<entry>& entries() noexcept { return h_; }

 private:
  /// Which of four siblings comes first: by timestamp with conditional
  /// moves; only when the least timestamp occurs twice are the keys read.
  static std::size_t least_of_four(const entry* c) noexcept {
    const std::uint64_t t0 = c[0].ts_bits, t1 = c[1].ts_bits, t2 = c[2].ts_bits, t3 = c[3].ts_bits;
    const std::size_t a = t1 < t0 ? 1 : 0;
    const std::uint64_t ta = t1 < t0 ? t1 : t0;
    const std::size_t b = t3 < t2 ? 3 : 2;
    const std::uint64_t tb = t3 < t2 ? t3 : t2;
    const std::size_t m = tb < ta ? b : a;
    const std::uint64_t tm = tb < ta ? tb : ta;
    const int equal = int(t0 == tm) + int(t1 == tm) + int(t2 == tm) + int(t3 == tm);
    if (equal == 1) [[likely]]
      return m;
    std::size_t best = 0;
    for (std::size_t k = 1; k < 4; ++k)
      if (before(c[k], c[best])) best = k;
    return best;
  }
  static bool before(const entry& a, const entry& b) noexcept {
    if (a.ts_bits != b.ts_bits) return a.ts_bits < b.ts_bits;
    if (a.e->key < b.e->key) return true;
    if (b.e->key < a.e->key) return false;
    return a.e->arrival < b.e->arrival;
  }
  std::vector<entry> h_;
  std::uint64_t arrivals_ = 0;
};

/// A growable ring of pointers: an LP's processed events, oldest at the
/// front (committed from there), newest at the back (rolled back from there).
template <class T>
class pointer_ring {
 public:
  bool empty() const noexcept { return size_ == 0; }
  std::size_t size() const noexcept { return size_; }
  T* front() const noexcept { return buf_[head_]; }
  T* back() const noexcept { return buf_[(head_ + size_ - 1) & (buf_.size() - 1)]; }
  void push_back(T* p) {
    if (size_ == buf_.size()) grow();
    buf_[(head_ + size_) & (buf_.size() - 1)] = p;
    ++size_;
  }
  void pop_back() noexcept { --size_; }
  /// Whether an element has key `k` (the ring is sorted by key).
  bool contains_key(const event_key& k) const noexcept {
    std::size_t lo = 0, hi = size_;
    while (lo < hi) {
      const std::size_t mid = (lo + hi) / 2;
      if (at(mid)->key < k) lo = mid + 1;
      else hi = mid;
    }
    return lo < size_ && at(lo)->key == k;
  }
  T* at(std::size_t i) const noexcept { return buf_[(head_ + i) & (buf_.size() - 1)]; }
  void pop_front() noexcept {
    head_ = (head_ + 1) & (buf_.size() - 1);
    --size_;
  }

 private:
  void grow() {
    std::vector<T*> b(buf_.empty() ? 8 : buf_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) b[i] = buf_[(head_ + i) & (buf_.size() - 1)];
    buf_.swap(b);
    head_ = 0;
  }
  std::vector<T*> buf_;
  std::size_t head_ = 0, size_ = 0;
};

/// An event on the wire between PEs: a new event or an anti-message for one.
template <class Message>
struct wire_event {
  event_key key;
  lp_id dest = 0;
  std::uint32_t anti = 0;
  std::uint32_t pad = 0;
  Message message{};
};

}  // namespace roam::pdes::detail

namespace roam {
template <class Message>
  requires std::is_trivially_copyable_v<Message>
inline constexpr bool bitwise_serializable<pdes::detail::wire_event<Message>> = true;
}  // namespace roam
