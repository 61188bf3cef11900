#pragma once
/// Futures and promises. A `future<T>` lives on the PE that made it and is
/// awaited there (`co_await f` in a task, or `f.get()` on a user-level
/// thread); its `promise<T>` is a small value that may be sent anywhere and
/// fulfilled from any PE, which posts the value back.
#include <coroutine>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <roam/msg/detail/control.hpp>
#include <roam/msg/detail/future_follow.hpp>
#include <roam/sched/detail/heap_route.hpp>
#include <roam/sched/detail/post.hpp>
#include <roam/sched/detail/ult.hpp>
#include <roam/sched/task.hpp>

namespace roam {

/// Thrown by misuse of a future (awaited on the wrong PE, read before ready).
class future_error : public std::logic_error {
  using std::logic_error::logic_error;
};

/// An exception that crossed processes: only its text survives the trip.
class remote_error : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace detail {

/// An exception in a message: within a process the exception object itself
/// moves; packed, it travels as its text and arrives as a remote_error.
struct exception_handle {
  std::exception_ptr e;
  void pup(pup_er& p) {
    std::string what;
    if (!p.is_unpacking()) {
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& ex) {
        what = ex.what();
      } catch (...) {
        what = "exception of unknown type";
      }
    }
    p | what;
    if (p.is_unpacking()) e = std::make_exception_ptr(remote_error(what));
  }
};

/// Whether a future<T>'s outcome can follow a migratable thread that moves
/// with it (its value must pack).
template <class T>
consteval bool outcome_travels() {
  if constexpr (std::is_void_v<T>) return true;
  else return serializable<std::optional<T>>;
}

template <class T>
struct future_state final : future_state_base {
  std::optional<T> value;
  void store_packed(std::span<const std::byte> outcome) override;
};
template <>
struct future_state<void> final : future_state_base {
  void store_packed(std::span<const std::byte> outcome) override;
};

inline void release(future_state_base* s) noexcept {
  if (--s->refs == 0) destroy_future_state(s);
}

/// A state's outcome as bytes: failed, then the exception's text or the value.
template <class T>
std::vector<std::byte> pack_outcome(const future_state<T>& s) {
  const bool failed = s.error != nullptr;
  if (failed) return roam::pack(failed, exception_handle{s.error});
  if constexpr (std::is_void_v<T>) return roam::pack(failed);
  else return roam::pack(failed, s.value);
}

template <class T>
void unpack_outcome(future_state<T>& s, std::span<const std::byte> outcome) {
  if constexpr (outcome_travels<T>()) {
    pup_er p = pup_er::unpacker(outcome.data(), outcome.size());
    bool failed = false;
    p | failed;
    if (failed) {
      exception_handle h;
      p | h;
      s.error = std::move(h.e);
    } else if constexpr (!std::is_void_v<T>) {
      p | s.value;
      if (!s.value) throw pup_error("a followed future's outcome holds no value");
    }
    if (p.remaining() != 0) throw pup_error("a followed future's outcome has trailing bytes");
  } else {
    (void)s;
    (void)outcome;
    throw pup_error("a future's value of a type that does not pack cannot follow a thread");
  }
}

template <class T>
void future_state<T>::store_packed(std::span<const std::byte> outcome) {
  unpack_outcome<T>(*this, outcome);
}
inline void future_state<void>::store_packed(std::span<const std::byte> outcome) { unpack_outcome<void>(*this, outcome); }

/// Runs on the owner PE: stores the outcome and resumes the waiter.
template <class T, class Store>
void fulfill(std::uint64_t id, Store store) noexcept;

/// The control messages that carry a result home (they may cross processes).
template <class T>
void fulfill_value(std::uint64_t id, T value) {
  fulfill<T>(id, [&value](future_state<T>& s) { s.value.emplace(std::move(value)); });
}
inline void fulfill_void(std::uint64_t id) {
  fulfill<void>(id, [](future_state<void>&) {});
}
template <class T>
void fulfill_error(std::uint64_t id, exception_handle error) {
  fulfill<T>(id, [&error](future_state<T>& s) { s.error = std::move(error.e); });
}

/// fulfill of a future whose state left with the migratable thread that
/// made it: the outcome goes after the thread, packed.
template <class T, class Store>
void fulfill_followed(std::uint64_t id, Store& store) noexcept {
  if constexpr (outcome_travels<T>()) {
    future_state<T> outcome;
    store(outcome);
    std::vector<std::byte> packed;
    try {
      packed = pack_outcome<T>(outcome);
    } catch (const std::exception& e) {
      report_fatal("pe " + std::to_string(tls_pe->id()) + ": the outcome of future #" + std::to_string(id) +
                   ", made by a migratable thread that moved away, does not pack: " + e.what());
      return;
    }
    followed_future_fulfilled(id, std::move(packed));
  } else {
    report_fatal("roam: future #" + std::to_string(id) + " followed a thread with a value that does not pack (runtime bug)");
  }
}

template <class T, class Store>
void fulfill(std::uint64_t id, Store store) noexcept {
  pe_state& pe = *tls_pe;
  auto it = pe.futures.find(id);
  if (it == pe.futures.end()) {
    if (pe.followed_futures.contains(id)) return fulfill_followed<T>(id, store);
    report_fatal("future #" + std::to_string(id) + " fulfilled twice (or its promise was forged)");
    return;
  }
  auto* s = static_cast<future_state<T>*>(it->second);
  pe.futures.erase(it);
  store(*s);
  s->ready = true;
  if (s->slot_owner) unlink_thread_future(s);  // made by a migratable thread that is here
  auto waiter = std::exchange(s->waiter, {});
  task_roots* held = std::exchange(s->waiter_owner, nullptr);
  ult* thread = std::exchange(s->thread_waiter, nullptr);
  release(s);  // the table's reference; a waiter holds its own
  if (waiter) resume_held(held, waiter);
  else if (thread) ult_ready(thread);  // this handler runs on the scheduler's stack: the thread runs now
}

/// Blocks the calling user-level thread until `s` is ready (future::get). A
/// migratable thread waiting on a future it made itself may move meanwhile:
/// the state is in its slot and the outcome follows it. On a future made
/// elsewhere it is pinned to this PE until the value comes.
inline void wait_on_thread(future_state_base* s) {
  ult* self = ult_current();
  if (!self)
    throw future_error("roam: future::get() before the value arrived, outside a user-level thread (it would block "
                       "the PE): co_await the future in a task, or call get() in a threaded entry method or start_thread");
  const bool follows = s->slot_owner == self;
  if (!follows && tls_pe->id() != s->owner)
    throw future_error("roam: future waited on on pe " + std::to_string(tls_pe->id()) + " but created on pe " +
                       std::to_string(s->owner));
  if (s->waiter || s->thread_waiter) throw future_error("roam: future waited on by two at once");
  s->thread_waiter = self;
  if (!follows) ult_pin_current(true);  // the value comes back to this PE: a migratable thread stays meanwhile
  try {
    ult_suspend();
  } catch (...) {
    if (!follows) ult_pin_current(false);
    s->thread_waiter = nullptr;  // unwound at shutdown: the value will never come
    throw;
  }
  if (!follows) ult_pin_current(false);
}

}  // namespace detail

template <class T>
class promise;

/// The eventual result of an asynchronous operation (`call`, a reduction,...).
/// Copies share one state. Use only on the PE that created it.
template <class T = void>
class future {
 public:
  future() noexcept = default;
  future(const future& o) noexcept : s_(o.s_) {
    if (s_) ++s_->refs;
  }
  future(future&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  future& operator=(future o) noexcept {
    std::swap(s_, o.s_);
    return *this;
  }
  ~future() {
    if (s_) detail::release(s_);
  }

  /// True once a value or an exception has arrived.
  bool ready() const noexcept { return s_ && s_->ready; }
  bool valid() const noexcept { return s_ != nullptr; }

  /// The value (rethrows a delivered exception). Not ready yet: on a
  /// user-level thread (a threaded entry method, start_thread) the thread
  /// blocks until it arrives while the PE runs other messages; elsewhere it
  /// throws future_error, since waiting would block the PE (co_await it in a
  /// task instead). Only on the PE that made the future.
  decltype(auto) get() const {
    if (!s_) throw future_error("roam: get() on an empty future");
    if (!s_->ready) detail::wait_on_thread(s_);
    if (s_->error) std::rethrow_exception(s_->error);
    if constexpr (!std::is_void_v<T>) return static_cast<const T&>(*s_->value);
  }

  /// Awaiting in a task. A task of a chare or array element holds its object
  /// in place while it waits (no migration, no destruction until it
  /// resumes) and resumes as the object's entry would: docs/design/flow.md.
  /// Awaiting an rvalue (`co_await std::move(f)`, `co_await x.call<..>()`)
  /// moves the value out when no copy of the future remains.
  auto operator co_await() const& { return awaiter(s_); }
  auto operator co_await() && { return awaiter(std::exchange(s_, nullptr), adopt); }

 private:
  struct adopt_t {};
  static constexpr adopt_t adopt{};
  // Holds a reference to the state, so that `co_await make_a_future()` works.
  // Destroyed while waiting (its frame was destroyed: the object or the
  // program ended), it withdraws, so a late value resumes nothing.
  class awaiter {
   public:
    explicit awaiter(detail::future_state<T>* s) noexcept : s_(s) {
      if (s_) ++s_->refs;
    }
    awaiter(detail::future_state<T>* s, adopt_t) noexcept : s_(s) {}
    awaiter(awaiter&& o) noexcept : s_(std::exchange(o.s_, nullptr)), waiting_(std::exchange(o.waiting_, false)) {}
    awaiter& operator=(awaiter&&) = delete;
    ~awaiter() {
      if (!s_) return;
      if (waiting_ && s_->waiter) {
        s_->waiter = {};
        detail::drop_hold(std::exchange(s_->waiter_owner, nullptr));
      }
      detail::release(s_);
    }
    bool await_ready() const {
      if (!s_) throw future_error("roam: co_await on an empty future");
      if (detail::tls_pe == nullptr || detail::tls_pe->id() != s_->owner)
        throw future_error("roam: future awaited on pe " +
                           (detail::tls_pe ? std::to_string(detail::tls_pe->id()) : std::string("(none)")) +
                           " but created on pe " + std::to_string(s_->owner));
      return s_->ready;
    }
    void await_suspend(std::coroutine_handle<> h) {
      if (s_->waiter || s_->thread_waiter) throw future_error("roam: future awaited by two coroutines at once");
      s_->waiter = h;
      s_->waiter_owner = detail::hold_current_owner();
      waiting_ = true;
    }
    T await_resume() {
      waiting_ = false;
      if (s_->error) std::rethrow_exception(s_->error);
      if constexpr (!std::is_void_v<T>) {
        // The last holder may take the value; otherwise a copy (copies of the future share it).
        if constexpr (std::is_copy_constructible_v<T>) {
          if (s_->refs == 1) return std::move(*s_->value);
          return *s_->value;
        } else {
          return std::move(*s_->value);
        }
      }
    }

   private:
    detail::future_state<T>* s_;
    bool waiting_ = false;
  };

  template <class U>
  friend std::pair<future<U>, promise<U>> make_future();
  explicit future(detail::future_state<T>* s) noexcept : s_(s) {}
  detail::future_state<T>* s_ = nullptr;
};

/// The sending end of a future: a plain value (PE and id) that can travel in
/// messages. Fulfil it once, from any PE; a second fulfilment is a fatal error.
template <class T = void>
class promise {
 public:
  promise() noexcept = default;

  /// Delivers the value to the future's PE (a message; the value must be serializable).
  template <class U = T>
    requires(!std::is_void_v<T> && std::is_convertible_v<U&&, T>)
  void set_value(U&& v) const {
    static_assert(serializable<T>, "roam: a future's value travels in a message, so it must be serializable");
    if (!valid()) throw future_error("roam: fulfilling an empty promise");
    detail::post_control<&detail::fulfill_value<T>, T>(pe_, 0, id_, T(std::forward<U>(v)));
  }
  void set_value() const
    requires std::is_void_v<T>
  {
    if (!valid()) throw future_error("roam: fulfilling an empty promise");
    detail::post_control<&detail::fulfill_void>(pe_, 0, id_);
  }
  /// Delivers an exception, rethrown where the future is awaited: the
  /// exception itself within one process, a remote_error with its text when
  /// the message is packed.
  void set_exception(std::exception_ptr e) const {
    if (!valid()) throw future_error("roam: fulfilling an empty promise");
    detail::post_control<&detail::fulfill_error<T>, T>(pe_, 0, id_, detail::exception_handle{std::move(e)});
  }

  std::uint32_t pe() const noexcept { return pe_; }
  std::uint64_t id() const noexcept { return id_; }
  bool valid() const noexcept { return id_ != 0; }

  /// Serialization (any pup_er): a promise travels as its PE and id.
  template <class P>
  void pup(P& p) {
    p | pe_ | id_;
  }

 private:
  template <class U>
  friend std::pair<future<U>, promise<U>> make_future();
  promise(std::uint32_t pe, std::uint64_t id) noexcept : pe_(pe), id_(id) {}

  std::uint32_t pe_ = 0;
  std::uint64_t id_ = 0;
};

/// Makes a future on the calling PE and the promise that fulfils it.
template <class T = void>
std::pair<future<T>, promise<T>> make_future() {
  detail::pe_state& pe = detail::this_pe("roam::make_future");
  detail::ult* thread = nullptr;
  if constexpr (detail::outcome_travels<T>())
    if (detail::ult_current_user() != nullptr) thread = detail::ult_current();
  detail::heap_route_pause pause;  // the PE's table (and the state, unless in the thread's slot)
  detail::future_state<T>* s;
  if (thread == nullptr) {
    s = new detail::future_state<T>();
  } else {
    // Made by a migratable thread: the state lives in its slot and moves with
    // it; the outcome follows it (detail/future_follow.hpp).
    s = ::new (detail::g_slot_allocate(sizeof(detail::future_state<T>), alignof(detail::future_state<T>)))
        detail::future_state<T>();
    s->slot_owner = thread;
    detail::link_thread_future(thread, s);
  }
  s->id = ++pe.next_future_id;
  s->owner = pe.id();
  s->refs = 2;  // the table and the returned future
  pe.futures.emplace(s->id, s);
  return {future<T>(s), promise<T>(pe.id(), s->id)};
}

}  // namespace roam
