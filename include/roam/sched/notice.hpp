#pragma once
/// \file
/// roam::pe_notice: a reusable piece of work for a PE, made once and posted
/// any number of times without allocating. For libraries that signal a PE
/// from any thread of the process (a one-sided put landed, a buffer is free)
/// where a message per signal would cost an allocation and a payload.
///
/// ```cpp
/// roam::pe_notice arrived([this] { on_arrival(); });  // made once
/// arrived.post(receiver_pe);                           // from any thread
/// ```
///
/// - post() queues the notice on a PE of this process; the function runs
///   there like a message (in FIFO order with the PE's other work of
///   priority 0, counted by quiescence detection). A notice is in at most one
///   queue: post() while it is queued is a programming error (the caller
///   keeps a flag, as roam::direct does with its channel state).
/// - The notice must outlive its queued post: destroy it only when it is
///   not queued (the function has started, or it was never posted).
/// - At shutdown a queued notice is dropped without running.
#include <cstdint>
#include <utility>

#include <roam/sched/detail/post.hpp>
#include <roam/sched/detail/unique_function.hpp>

namespace roam {

class pe_notice {
 public:
  explicit pe_notice(detail::unique_function<void()> fn) : fn_(std::move(fn)) { item_.run = &run; }
  pe_notice(const pe_notice&) = delete;
  pe_notice& operator=(const pe_notice&) = delete;

  /// Queues the notice on PE `pe` of this process (any thread; the PE need
  /// not be the caller's).
  void post(std::uint32_t pe) noexcept {
    item_.priority = 0;
    item_.flags = 0;
    detail::post(pe, &item_);
  }

  /// The same for work whose producer already counted it as sent with
  /// roam::count_external_send (another process wrote it into shared
  /// memory): queued without counting it again, counted as processed when
  /// it runs. `pe` is a PE of this process, as for post().
  void post_received(std::uint32_t pe) noexcept {
    item_.priority = 0;
    item_.flags = 0;
    detail::pe_state* me = detail::tls_pe;
    if (me && me->id() == pe) me->enqueue_local(&item_);
    else detail::route(*detail::g_runtime.load(std::memory_order_acquire), pe, &item_);
  }

 private:
  struct item : detail::work_item {
    pe_notice* owner = nullptr;
  };
  static void run(detail::work_item* w, detail::work_action a) noexcept {
    auto* self = static_cast<item*>(w)->owner;
    if (a == detail::work_action::run) self->fn_();
  }
  detail::unique_function<void()> fn_;
  item item_{{}, this};
};

/// Counts one message as sent by the calling PE, for work a library hands
/// over outside messages (a put into another process's shared memory): the
/// receiving PE counts it as processed by running a notice posted with
/// pe_notice::post_received. Quiescence detection then sees the work in
/// flight between the two, as it sees a message.
inline void count_external_send() noexcept {
  if (detail::pe_state* me = detail::tls_pe) me->count_created();
  else detail::g_foreign_created.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace roam
