#pragma once
/// \file
/// Combining awaits, as Structured Dagger's `case` and `overlap`:
///
/// ```cpp
/// // SDAG `case { when a[i](...) ...; when b(...) ...; }`: the first ready branch wins.
/// auto r = co_await roam::when_any(a.receive(i), b.receive());
/// if (r.index() == 0) use(std::get<0>(r)); else use(std::get<1>(r));
///
/// // SDAG `overlap { ... }` and joins (`when a, b`): everything, in any order.
/// auto [x, y] = co_await roam::when_all(a.receive(i), b.receive(i));
/// co_await roam::when_all(left_phase(), right_phase());   // tasks interleave
/// ```
///
/// - when_any takes mailbox receives. It takes exactly one message: the
///   losers' messages stay in their mailboxes, for later receives. When
///   several are already waiting, the first branch listed wins.
/// - when_all takes anything awaitable (receives, tasks, futures): each runs
///   as its own task on this PE, so their steps interleave; it completes when
///   all have, with their results in order (std::monostate for void). If some
///   throw, the first exception is rethrown once all have finished.
#include <coroutine>
#include <exception>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

#include <roam/flow/mailbox.hpp>
#include <roam/sched/task.hpp>

namespace roam {

namespace detail {

template <class... Ops>
class when_any_op {
 public:
  using result_type = std::variant<decltype(std::declval<Ops&>().take_value())...>;

  explicit when_any_op(Ops&&... ops) : ops_(std::move(ops)...) {}
  when_any_op(when_any_op&&) = default;

  bool await_ready() { return take_ready(std::index_sequence_for<Ops...>{}); }
  void await_suspend(std::coroutine_handle<> h) { arm_all(h, std::index_sequence_for<Ops...>{}); }
  result_type await_resume() { return result(std::index_sequence_for<Ops...>{}); }

 private:
  struct branch {
    when_any_op* self;
    int index;
  };

  template <std::size_t... I>
  bool take_ready(std::index_sequence<I...>) {
    return ((std::get<I>(ops_).try_take() ? (winner_ = static_cast<int>(I), true) : false) || ...);
  }
  template <std::size_t... I>
  void arm_all(std::coroutine_handle<> h, std::index_sequence<I...>) {
    ((branches_[I] = branch{this, static_cast<int>(I)}, std::get<I>(ops_).arm(&decide, &branches_[I], h)), ...);
  }
  template <std::size_t... I>
  void withdraw_all_but(int keep, std::index_sequence<I...>) {
    ((static_cast<int>(I) != keep ? std::get<I>(ops_).withdraw() : void()), ...);
  }
  // A message is offered to branch b: the first offer decides the race.
  static bool decide(void* ctx) {
    auto* b = static_cast<branch*>(ctx);
    if (b->self->winner_ >= 0) return false;
    b->self->winner_ = b->index;
    b->self->withdraw_all_but(b->index, std::index_sequence_for<Ops...>{});
    return true;
  }
  template <std::size_t... I>
  result_type result(std::index_sequence<I...>) {
    std::optional<result_type> r;
    ((winner_ == static_cast<int>(I) ? (void)r.emplace(std::in_place_index<I>, std::get<I>(ops_).take_value()) : void()),
     ...);
    return std::move(*r);
  }

  std::tuple<Ops...> ops_;
  branch branches_[sizeof...(Ops)]{};
  int winner_ = -1;
};

template <class Aw>
using await_result_t = decltype(std::declval<Aw&&>().await_resume());

template <class Aw>
auto awaiter_of(Aw&& aw) -> decltype(std::forward<Aw>(aw).operator co_await()) {
  return std::forward<Aw>(aw).operator co_await();
}
template <class Aw>
  requires(!requires(Aw&& a) { std::forward<Aw>(a).operator co_await(); })
Aw&& awaiter_of(Aw&& aw) {
  return std::forward<Aw>(aw);
}
template <class Aw>
using co_await_result_t = std::remove_cvref_t<decltype(awaiter_of(std::declval<Aw&&>()).await_resume())>;
template <class Aw>
using joined_t = std::conditional_t<std::is_void_v<co_await_result_t<Aw>>, std::monostate, co_await_result_t<Aw>>;

template <class Aw>
task<joined_t<Aw>> as_task(Aw aw) {
  if constexpr (std::is_void_v<co_await_result_t<Aw>>) {
    co_await std::move(aw);
    co_return std::monostate{};
  } else {
    co_return co_await std::move(aw);
  }
}

struct join_count {
  std::size_t left;
  std::coroutine_handle<> parent;
  std::exception_ptr error;
  void one_done() {
    if (--left == 0) parent.resume();
  }
};

// Starts every branch; the awaiting task resumes when the last one ends
// (at once, without suspending, if they all finished while being started).
template <class Tasks, class Slots>
struct start_all {
  Tasks& tasks;
  Slots& slots;
  join_count& join;
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) {
    join.parent = h;
    start(std::make_index_sequence<std::tuple_size_v<Tasks>>{});
    return --join.left != 0;
  }
  void await_resume() const noexcept {}
  template <std::size_t... I>
  void start(std::index_sequence<I...>) {
    (spawn(std::move(std::get<I>(tasks)),
           [this](std::exception_ptr e, auto* v) {
             if (e && !join.error) join.error = e;
             if (v) std::get<I>(slots).emplace(std::move(*v));
             join.one_done();
           }),
     ...);
  }
};

}  // namespace detail

/// The first of several mailbox receives to get a message (SDAG `case`).
/// Awaiting it gives a std::variant whose index() is the winning branch.
template <class... Ops>
  requires(sizeof...(Ops) >= 1)
detail::when_any_op<std::remove_cvref_t<Ops>...> when_any(Ops&&... ops) {
  return detail::when_any_op<std::remove_cvref_t<Ops>...>(std::move(ops)...);
}

/// Every awaitable, interleaved (SDAG `overlap`, and joins): a task of the tuple of their results.
template <class... Aw>
task<std::tuple<detail::joined_t<Aw>...>> when_all(Aw... aw) {
  std::tuple<task<detail::joined_t<Aw>>...> tasks(detail::as_task(std::move(aw))...);
  std::tuple<std::optional<detail::joined_t<Aw>>...> slots;
  detail::join_count join{sizeof...(Aw) + 1, {}, {}};
  co_await detail::start_all<decltype(tasks), decltype(slots)>{tasks, slots, join};
  if (join.error) std::rethrow_exception(join.error);
  co_return std::apply([](auto&... s) { return std::tuple<detail::joined_t<Aw>...>(std::move(*s)...); }, slots);
}

}  // namespace roam
