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
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <roam/msg/pup.hpp>

namespace roam {

template <class... A>
class mailbox;

namespace detail {

/// A reference number as text, for reports: numbers, enums, characters and
/// strings as themselves, anything else as "?" (the report still counts it).
template <class R>
std::string format_ref(const R& r) {
  if constexpr (std::is_same_v<R, bool>) {
    return r ? "true" : "false";
  } else if constexpr (std::is_same_v<R, char>) {
    return std::string("'") + r + "'";
  } else if constexpr ((std::is_integral_v<R> || std::is_floating_point_v<R>) && sizeof(R) <= 8) {
    return std::to_string(r);
  } else if constexpr (std::is_enum_v<R>) {
    return format_ref(static_cast<std::underlying_type_t<R>>(r));
  } else if constexpr (!std::is_pointer_v<R> && std::is_convertible_v<const R&, std::string_view>) {
    return "\"" + std::string(std::string_view(r)) + "\"";
  } else {
    return "?";
  }
}

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
    if (first_) first_->linked_ = false;
    for (receive_op* w = more_head_; w; w = w->next_) w->linked_ = false;
  }

  /// A message arrives (the runtime calls this for send<&T::box>(args...)):
  /// handed to the first waiter that wants it, else kept. The taker reads
  /// the message where it lies, moving out of it as it resumes.
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
  bool empty() const noexcept { return kept_.empty(); }  // cleared whenever the last is taken
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

  /// For reports of waiting tasks (roam::report_waiting_tasks): appends one
  /// line naming this mailbox, its waiting receives and the reference numbers
  /// they want, and the messages it keeps; nothing when it has neither.
  void describe(std::string_view name, std::string& out) const {
    if (!first_ && kept_.empty()) return;
    out += "\n    mailbox ";
    out += name;
    out += ": ";
    std::size_t waiting = 0;
    std::string wants;
    for (const receive_op* w = first_; w; w = w == first_ ? more_head_ : w->next_) {
      ++waiting;
      if (waiting <= describe_limit) {
        wants += waiting > 1 ? ", " : "";
        wants += w->ref_ ? "ref " + detail::format_ref(*w->ref_) : std::string("any message");
      }
    }
    out += std::to_string(waiting) + (waiting == 1 ? " receive waits" : " receives wait");
    if (waiting) out += " (" + wants + (waiting > describe_limit ? ", ..." : "") + ")";
    out += "; " + std::to_string(size()) + (size() == 1 ? " message kept" : " messages kept");
    if (size()) {
      out += size() == 1 ? " (ref " : " (refs ";
      for (std::size_t i = front_; i < kept_.size() && i < front_ + describe_limit; ++i)
        out += (i > front_ ? ", " : "") + detail::format_ref(std::get<0>(kept_[i]));
      out += size() > describe_limit ? ", ...)" : ")";
    }
  }

  /// The waiting messages travel with the object (tasks waiting on it do not:
  /// see docs/design/flow.md).
  template <class P>
  void pup(P& p) {
    compact();
    p | kept_;
  }

  /// An awaitable receive (also usable in when_any / when_all). While it
  /// waits it is one of its mailbox's waiters (it lives in the awaiting
  /// coroutine's frame, so it never moves then).
  class receive_op {
   public:
    // Only what await_ready reads is set here; arm() sets the rest: every
    // store counts on the round trip's hot path.
    receive_op(mailbox* box, std::optional<ref_type> ref) noexcept : owner_(box), ref_(std::move(ref)) {}
    receive_op(receive_op&& o) noexcept : owner_(o.owner_), ref_(std::move(o.ref_)) {}  // never moved while linked
    receive_op& operator=(receive_op&&) = delete;
    ~receive_op() {
      if (linked_) owner_->withdraw(this);
    }

    /// Takes a matching waiting message now, if there is one.
    bool try_take() { return !owner_->empty() && take_kept(); }
    bool take_kept() {
      auto& kept = owner_->kept_;
      for (std::size_t i = owner_->front_; i < kept.size(); ++i) {
        if (!matches(kept[i])) continue;
        // Through the mailbox's hand-off slot, so that reading it (take_value)
        // is the same for a kept message and a delivered one.
        taken_ = &owner_->handoff_.emplace(std::move(kept[i]));
        owner_->drop_kept(i);
        return true;
      }
      return false;
    }
    /// Waits: `decide(ctx)` runs when a message is offered (it may refuse
    /// it: a when_any that already has its winner); `resume` then runs.
    void arm(bool (*decide)(void* ctx), void* ctx, std::coroutine_handle<> resume) noexcept {
      decide_ = decide;
      decide_ctx_ = ctx;
      resume_ = resume.address();
      owner_->add_waiter(this);
    }
    /// Stops waiting (no effect once a message was handed over).
    void withdraw() noexcept {
      if (linked_) owner_->withdraw(this);
    }
    value_type take_value() {
      if constexpr (sizeof...(A) == 1) return std::get<0>(std::move(*taken_));
      else return std::move(*taken_);
    }

    bool await_ready() { return try_take(); }
    void await_suspend(std::coroutine_handle<> h) noexcept {
      // The common case, nobody waiting yet: only the mailbox's slot is
      // written (decide_/resume_ here are read only for listed waiters).
      if (!owner_->first_) {
        linked_ = true;
        owner_->fill_first(this, h, true);
        return;
      }
      arm(nullptr, nullptr, h);
    }
    value_type await_resume() { return take_value(); }

   private:
    friend class mailbox;
    bool matches(const message_type& m) const { return !ref_ || std::get<0>(m) == *ref_; }

    mailbox* owner_;
    std::optional<ref_type> ref_;
    message_type* taken_;  ///< the message this receive took: set when it takes one, read once by take_value
    bool linked_ = false;              ///< one of the mailbox's waiters
    receive_op* next_;                 ///< the next waiter behind it (in more_head_'s list)
    bool (*decide_)(void*);
    void* decide_ctx_;
    void* resume_;  ///< the awaiting coroutine (a raw address: left unset, not zeroed, on the fast path)
  };

 private:
  static constexpr std::size_t describe_limit = 8;  // reference numbers listed per line
  // Reference numbers cheap to copy are copied into the first-waiter slot,
  // so that the common case reads nothing but the mailbox.
  static constexpr bool ref_in_slot = std::is_trivially_copyable_v<ref_type> && sizeof(ref_type) <= 16;

  // The hot path of every mailbox round trip: one task waiting, matched
  // from the mailbox's own fields (no pointer to follow before resuming it);
  // anything else (several waiters, a when_any) takes the general path.
  [[gnu::always_inline]] inline void offer(message_type& m) {
    receive_op* w = first_;
    const first_kind k = first_kind_;
    if (w && (k == first_kind::any || (k == first_kind::by_ref && first_ref_matches(m)))) {
      const std::coroutine_handle<> h = first_resume_;
      pop_first();  // the next waiter (if any) takes the slot
      w->linked_ = false;
      w->taken_ = &m;
      h.resume();
      return;
    }
    offer_otherwise(m);
  }
  // Out of line, so that the entry that delivers holds only the fast path.
  [[gnu::noinline]] void offer_otherwise(message_type& m) {
    if (first_ && offer_in_order(m)) return;
    kept_.push_back(std::move(m));
  }
  bool first_ref_matches(const message_type& m) const {
    if constexpr (ref_in_slot) return std::get<0>(m) == first_ref_;
    else return false;  // never by_ref then
  }
  // Every waiter in the order they started waiting; the first that wants
  // the message (and whose when_any, if any, has not decided) takes it.
  bool offer_in_order(message_type& m) {
    receive_op* w = first_;
    while (w) {
      // The slot's waiter may have been filled without decide_/resume_ (see
      // await_suspend): its own are the slot's.
      const bool is_first = w == first_;
      bool (*decide)(void*) = is_first && first_kind_ != first_kind::race ? nullptr : w->decide_;
      if (w->matches(m) && (!decide || decide(w->decide_ctx_))) {
        const std::coroutine_handle<> h =
            w == first_ ? first_resume_ : std::coroutine_handle<>::from_address(w->resume_);
        // A when_any's decide withdrew the winner's rivals (maybe neighbours
        // of w) meanwhile: withdraw looks w up afresh.
        withdraw(w);
        w->taken_ = &m;
        h.resume();
        return true;
      }
      w = is_first ? more_head_ : w->next_;
    }
    return false;
  }
  void add_waiter(receive_op* w) noexcept {
    w->linked_ = true;
    w->next_ = nullptr;
    if (!first_) {
      fill_first(w, std::coroutine_handle<>::from_address(w->resume_), w->decide_ == nullptr);
      return;
    }
    (more_tail_ ? more_tail_->next_ : more_head_) = w;
    more_tail_ = w;
  }
  void fill_first(receive_op* w, std::coroutine_handle<> h, bool plain) noexcept {
    first_ = w;
    first_resume_ = h;
    if (!plain) {
      first_kind_ = first_kind::race;
    } else if (!w->ref_) {
      first_kind_ = first_kind::any;
    } else if constexpr (ref_in_slot) {
      first_kind_ = first_kind::by_ref;
      first_ref_ = *w->ref_;
    } else {
      first_kind_ = first_kind::other;
    }
  }
  // The first waiter leaves; the next in line takes its slot.
  void pop_first() noexcept {
    if (receive_op* n = more_head_) {
      more_head_ = n->next_;
      if (!more_head_) more_tail_ = nullptr;
      fill_first(n, std::coroutine_handle<>::from_address(n->resume_), n->decide_ == nullptr);
    } else {
      first_ = nullptr;
    }
  }
  void withdraw(receive_op* w) noexcept {
    w->linked_ = false;
    if (w == first_) {
      pop_first();
      return;
    }
    receive_op* prev = nullptr;
    for (receive_op* x = more_head_; x != w; x = x->next_) prev = x;
    (prev ? prev->next_ : more_head_) = w->next_;
    if (more_tail_ == w) more_tail_ = prev;
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

  // Waiters, in the order they started waiting: the first in a slot of its
  // own (see offer), the rest in a list.
  receive_op* first_ = nullptr;
  std::coroutine_handle<> first_resume_;
  [[no_unique_address]] std::conditional_t<ref_in_slot, ref_type, std::monostate> first_ref_{};
  // What the first waiter wants, in one byte for the fast path: a reference
  // number (in first_ref_), any message, a reference number compared through
  // the waiter (not cheap to copy), or it is a when_any branch.
  enum class first_kind : std::uint8_t { by_ref, any, other, race };
  first_kind first_kind_ = first_kind::any;
  receive_op* more_head_ = nullptr;
  receive_op* more_tail_ = nullptr;
  // Messages no receive wanted yet, oldest first from front_: a vector used
  // as a queue, since an empty std::deque already holds ~600 bytes and a
  // program may have a mailbox or two in each of a million objects.
  std::vector<message_type> kept_;
  std::size_t front_ = 0;
  // A kept message on its way to the receive that took it (see take_kept).
  std::optional<message_type> handoff_;
};

}  // namespace roam
