#pragma once
/// \file
/// Mailboxes: the coroutine form of Structured Dagger's `when`. A mailbox is
/// a member of a chare or element that other objects send to like an entry
/// method; its messages wait until a task of the object awaits them.
///
/// ```cpp
/// struct cell : roam::element<cell> {
///   roam::mailbox<int, std::vector<double>> ghost;   // (iteration, values)
///   roam::task<> run() {
///     for (int it = 0; it < steps; ++it) {
///       auto [i, left] = co_await ghost.receive(it);   // SDAG: when ghost[it](...)
///       ...
///     }
///   }
/// };
/// neighbour.send<&cell::ghost>(it, values);            // a message into the mailbox
/// ```
///
/// - `co_await box` (or `box.receive()`) takes the oldest message;
///   `box.receive(ref)` the oldest whose first argument equals `ref` (a
///   reference number: messages that arrive early, late or out of order
///   wait and are matched).
/// - A waiting task is resumed inside the delivery of the message it takes,
///   on the object's PE. Waiters are served in the order they started waiting.
/// - The awaited value is the argument itself for a one-argument mailbox,
///   else a std::tuple of the arguments.
/// - `when_any` / `when_all` (when.hpp) combine receives.
/// - Buffered messages are part of the object's state: pup the mailbox
///   (`p | box;`) and they travel with the object.
#include <coroutine>
#include <cstddef>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <roam/msg/pup.hpp>

namespace roam {

template <class... A>
class mailbox;

namespace detail {

template <class... A>
using mailbox_value_t = std::conditional_t<sizeof...(A) == 1, std::tuple_element_t<0, std::tuple<A..., void>>, std::tuple<A...>>;

}  // namespace detail

template <class... A>
class mailbox {
  static_assert(sizeof...(A) >= 1, "roam::mailbox needs at least one message parameter");
  static_assert((std::is_same_v<A, std::decay_t<A>> && ...), "roam::mailbox parameters are plain value types");

 public:
  /// What the runtime delivers: the message's arguments (how send<&T::box> checks them).
  using entry_params = std::tuple<A...>;
  using message_type = std::tuple<A...>;
  /// What awaiting a receive gives.
  using value_type = detail::mailbox_value_t<A...>;
  using ref_type = std::tuple_element_t<0, std::tuple<A...>>;

  mailbox() = default;
  mailbox(const mailbox&) = delete;
  mailbox& operator=(const mailbox&) = delete;
  ~mailbox() {
    for (receive_op* w = head_; w;) {
      receive_op* next = w->next_;
      w->linked_ = false;
      w = next;
    }
  }

  /// A message arrives (the runtime calls this for send<&T::box>(args...)):
  /// handed to the first waiter that wants it, else kept. This is the hot
  /// path of every mailbox round trip: the waiters are all receive_ops of
  /// this mailbox, so the offer is inline (no function pointer), and the
  /// list is singly linked since the taker's predecessor is at hand here.
  /// The taker reads the message where it lies (the runtime's copy of the
  /// arguments), moving out of it as it resumes.
  template <class... U>
    requires(sizeof...(U) == sizeof...(A))
  void deliver(U&&... a) {
    message_type m(std::forward<U>(a)...);
    deliver_tuple(m);
  }
  /// The same with the arguments as a tuple (what the runtime holds): moved
  /// from when it is a non-const message_type, else copied first.
  template <class Tuple>
  void deliver_tuple(Tuple&& t) {
    if constexpr (std::is_same_v<std::remove_reference_t<Tuple>, message_type>) {
      offer(t);
    } else {
      message_type m(std::forward<Tuple>(t));
      offer(m);
    }
  }

  /// Messages waiting in the mailbox.
  std::size_t size() const noexcept { return kept_.size() - front_; }
  bool empty() const noexcept { return front_ == kept_.size(); }
  /// True when a message with reference number `ref` is waiting.
  bool has(const ref_type& ref) const {
    for (std::size_t i = front_; i < kept_.size(); ++i)
      if (std::get<0>(kept_[i]) == ref) return true;
    return false;
  }

  class receive_op;
  /// The oldest message.
  receive_op receive() noexcept { return receive_op(this, std::nullopt); }
  /// The oldest message whose first argument equals `ref`.
  receive_op receive(ref_type ref) noexcept { return receive_op(this, std::move(ref)); }
  receive_op operator co_await() noexcept { return receive(); }

  /// The waiting messages travel with the object (tasks waiting on it do not:
  /// see docs/design/flow.md).
  template <class P>
  void pup(P& p) {
    compact();
    p | kept_;
  }

  /// An awaitable receive (also usable in when_any / when_all). While it
  /// waits it is linked into its mailbox's list of waiters (it lives in the
  /// awaiting coroutine's frame, so it never moves then).
  class receive_op {
   public:
    // Only what await_ready reads is set here; arm() sets the rest: every
    // store counts on the round trip's hot path.
    receive_op(mailbox* box, std::optional<ref_type> ref) noexcept : owner_(box), ref_(std::move(ref)) {}
    receive_op(receive_op&& o) noexcept : owner_(o.owner_), ref_(std::move(o.ref_)) {}  // never moved while linked
    receive_op& operator=(receive_op&&) = delete;
    ~receive_op() { withdraw(); }

    /// Takes a matching waiting message now, if there is one.
    bool try_take() { return !owner_->empty() && take_kept(); }
    bool take_kept() {
      auto& kept = owner_->kept_;
      for (std::size_t i = owner_->front_; i < kept.size(); ++i) {
        if (ref_ && !(std::get<0>(kept[i]) == *ref_)) continue;
        taken_ = &kept[i];  // removed once read (take_value), with no suspension between
        kept_at_ = i;
        return true;
      }
      return false;
    }
    /// Waits: `decide(ctx)` runs when a message is offered (it may refuse
    /// it: a when_any that already has its winner); `resume` then runs.
    void arm(bool (*decide)(void* ctx), void* ctx, std::coroutine_handle<> resume) noexcept {
      decide_ = decide;
      decide_ctx_ = ctx;
      resume_ = resume;
      linked_ = true;
      next_ = nullptr;
      (owner_->tail_ ? owner_->tail_->next_ : owner_->head_) = this;
      owner_->tail_ = this;
    }
    /// Stops waiting (no effect once a message was handed over). Off the
    /// hot path (a when_any's losers, a frame destroyed while waiting), so
    /// it looks for its predecessor.
    void withdraw() noexcept {
      if (!linked_) return;
      receive_op* prev = nullptr;
      for (receive_op* w = owner_->head_; w != this; w = w->next_) prev = w;
      owner_->unlink_after(prev, this);
    }
    bool ready() const noexcept { return taken_ != nullptr; }
    value_type take_value() {
      value_type v = [this]() -> value_type {
        if constexpr (sizeof...(A) == 1) return std::get<0>(std::move(*taken_));
        else return std::move(*taken_);
      }();
      taken_ = nullptr;
      if (kept_at_ != not_kept) owner_->drop_kept(kept_at_);
      return v;
    }

    bool await_ready() { return try_take(); }
    void await_suspend(std::coroutine_handle<> h) noexcept { arm(nullptr, nullptr, h); }
    value_type await_resume() { return take_value(); }

   private:
    friend class mailbox;
    static constexpr std::size_t not_kept = ~std::size_t{0};
    mailbox* owner_;
    std::optional<ref_type> ref_;
    message_type* taken_ = nullptr;  ///< the message this receive took, until read
    std::size_t kept_at_;            ///< its index among the kept ones, or not_kept
    bool linked_ = false;
    receive_op* next_;
    bool (*decide_)(void*);
    void* decide_ctx_;
    std::coroutine_handle<> resume_;
  };

 private:
  void offer(message_type& m) {
    receive_op* prev = nullptr;
    for (receive_op* w = head_; w; prev = w, w = w->next_) {
      if (w->ref_ && !(std::get<0>(m) == *w->ref_)) continue;
      if (w->decide_) {
        // A when_any branch: the first offer decides the race, and the
        // winner's rivals (maybe `prev`) withdraw meanwhile.
        if (!w->decide_(w->decide_ctx_)) continue;
        w->withdraw();
      } else {
        unlink_after(prev, w);
      }
      w->taken_ = &m;
      w->kept_at_ = receive_op::not_kept;
      w->resume_.resume();
      return;
    }
    kept_.push_back(std::move(m));
  }
  void unlink_after(receive_op* prev, receive_op* w) noexcept {
    (prev ? prev->next_ : head_) = w->next_;
    if (tail_ == w) tail_ = prev;
    w->linked_ = false;
  }
  // Removes kept message i (already moved from).
  void drop_kept(std::size_t i) {
    if (i == front_) {
      if (++front_ == kept_.size()) {
        kept_.clear();
        front_ = 0;
      } else if (front_ >= 32 && 2 * front_ >= kept_.size()) {
        compact();
      }
    } else {
      kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  void compact() {
    kept_.erase(kept_.begin(), kept_.begin() + static_cast<std::ptrdiff_t>(front_));
    front_ = 0;
  }

  // Messages no receive wanted yet, oldest first from front_: a vector used
  // as a queue, since an empty std::deque already holds ~600 bytes and a
  // program may have a mailbox or two in each of a million objects.
  std::vector<message_type> kept_;
  std::size_t front_ = 0;
  receive_op* head_ = nullptr;
  receive_op* tail_ = nullptr;
};

}  // namespace roam
