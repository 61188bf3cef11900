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
#include <deque>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include <roam/msg/pup.hpp>

namespace roam {

template <class... A>
class mailbox;

namespace detail {

/// A pending receive: linked into its mailbox until a message is handed to
/// it, or it is withdrawn (a when_any that another branch won, or the
/// awaiting frame destroyed at shutdown).
struct mailbox_waiter {
  mailbox_waiter* prev = nullptr;
  mailbox_waiter* next = nullptr;
  void* linked_to = nullptr;  ///< the mailbox while waiting; null once delivered to, withdrawn, or the mailbox is gone
  /// Called with the message (as the mailbox's tuple) when it is this waiter's;
  /// returns false to decline (a when_any group already decided).
  bool (*offer)(mailbox_waiter* self, void* message) = nullptr;
};

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
    for (detail::mailbox_waiter* w = head_; w;) {
      detail::mailbox_waiter* next = w->next;
      w->linked_to = nullptr;
      w->prev = w->next = nullptr;
      w = next;
    }
  }

  /// A message arrives (the runtime calls this for send<&T::box>(args...)):
  /// handed to the first waiter that wants it, else kept.
  void deliver(A... a) {
    message_type m(std::move(a)...);
    for (detail::mailbox_waiter* w = head_; w; w = w->next) {
      if (w->offer(w, &m)) return;  // the waiter unlinked itself and resumed its task
    }
    kept_.push_back(std::move(m));
  }

  /// Messages waiting in the mailbox.
  std::size_t size() const noexcept { return kept_.size(); }
  bool empty() const noexcept { return kept_.empty(); }
  /// True when a message with reference number `ref` is waiting.
  bool has(const ref_type& ref) const {
    for (const auto& m : kept_)
      if (std::get<0>(m) == ref) return true;
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
    p | kept_;
  }

  /// An awaitable receive (also usable in when_any / when_all).
  class receive_op : private detail::mailbox_waiter {
   public:
    receive_op(mailbox* box, std::optional<ref_type> ref) noexcept : owner_(box), ref_(std::move(ref)) {
      this->offer = &receive_op::offer_to;
    }
    receive_op(receive_op&& o) noexcept : owner_(o.owner_), ref_(std::move(o.ref_)) {
      this->offer = &receive_op::offer_to;  // never moved while linked
    }
    receive_op& operator=(receive_op&&) = delete;
    ~receive_op() { withdraw(); }

    /// Takes a matching waiting message now, if there is one.
    bool try_take() {
      for (auto it = owner_->kept_.begin(); it != owner_->kept_.end(); ++it) {
        if (!matches(*it)) continue;
        value_.emplace(std::move(*it));
        owner_->kept_.erase(it);
        return true;
      }
      return false;
    }
    /// Waits: `on_message` runs when a message is handed over (it may refuse it).
    void arm(bool (*decide)(void* ctx), void* ctx, std::coroutine_handle<> resume) noexcept {
      decide_ = decide;
      decide_ctx_ = ctx;
      resume_ = resume;
      this->linked_to = owner_;
      this->prev = owner_->tail_;
      this->next = nullptr;
      if (owner_->tail_) owner_->tail_->next = this;
      else owner_->head_ = this;
      owner_->tail_ = this;
    }
    /// Stops waiting (no effect once a message was handed over).
    void withdraw() noexcept {
      if (!this->linked_to) return;
      if (this->prev) this->prev->next = this->next;
      else owner_->head_ = this->next;
      if (this->next) this->next->prev = this->prev;
      else owner_->tail_ = this->prev;
      this->linked_to = nullptr;
      this->prev = this->next = nullptr;
    }
    bool ready() const noexcept { return value_.has_value(); }
    value_type take_value() {
      if constexpr (sizeof...(A) == 1) return std::get<0>(std::move(*value_));
      else return std::move(*value_);
    }

    bool await_ready() { return try_take(); }
    void await_suspend(std::coroutine_handle<> h) noexcept { arm(nullptr, nullptr, h); }
    value_type await_resume() { return take_value(); }

   private:
    bool matches(const message_type& m) const { return !ref_ || std::get<0>(m) == *ref_; }
    static bool offer_to(detail::mailbox_waiter* w, void* message) {
      auto* self = static_cast<receive_op*>(w);
      auto& m = *static_cast<message_type*>(message);
      if (!self->matches(m)) return false;
      if (self->decide_ && !self->decide_(self->decide_ctx_)) return false;  // a when_any already decided
      self->withdraw();
      self->value_.emplace(std::move(m));
      self->resume_.resume();
      return true;
    }

    mailbox* owner_;
    std::optional<ref_type> ref_;
    std::optional<message_type> value_;
    bool (*decide_)(void*) = nullptr;
    void* decide_ctx_ = nullptr;
    std::coroutine_handle<> resume_;
  };

 private:
  std::deque<message_type> kept_;
  detail::mailbox_waiter* head_ = nullptr;
  detail::mailbox_waiter* tail_ = nullptr;
};

}  // namespace roam
