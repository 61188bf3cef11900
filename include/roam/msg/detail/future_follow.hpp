#pragma once
// Futures made by a migratable thread follow it when it moves.
//
// make_future on a migratable thread puts the future's state in the
// thread's slot heap, where it keeps its address wherever the thread goes,
// and on the thread's list of unfulfilled futures (in the slot too). The
// promise still names the PE that made it ("home"), which keeps the state in
// its table while the thread is there. Then:
//   - leaving a PE, the thread's futures made there become "followed":
//     home's table entry becomes a record of the thread (its serial, the
//     state's address) and where it is (not known yet);
//   - arriving anywhere, the thread tells the home of each of its unfulfilled
//     futures where it is now, with its move count (reports from different
//     PEs can overtake each other: the highest count wins);
//   - home, once it has both the outcome (packed at fulfilment, kept) and a
//     report, sends the outcome to that PE, which stores it into the state
//     (in the thread's slot, here now), wakes the thread if it waits in get,
//     and tells home to let go. An outcome that finds the thread gone, or
//     moved since, is dropped: the report of its next arrival makes home
//     send it again.
//   - a thread that ends takes its states with it: home keeps a tombstone,
//     so that a late fulfilment is dropped quietly.
// A checkpoint of a thread with unfulfilled futures is refused (a restarted
// run has no home tables for them). docs/design/isomalloc.md.
#include <cstdint>
#include <vector>

#include <roam/sched/detail/pe_state.hpp>
#include <roam/sched/detail/ult.hpp>

namespace roam::detail {

/// Puts a state made by migratable thread `t` on its list of unfulfilled futures.
inline void link_thread_future(ult* t, future_state_base* s) noexcept {
  future_state_base*& head = ult_futures(t);
  s->thread_prev = nullptr;
  s->thread_next = head;
  if (head) head->thread_prev = s;
  head = s;
}
/// Takes a state off its thread's list (it is fulfilled; the thread is here).
inline void unlink_thread_future(future_state_base* s) noexcept {
  if (s->thread_prev) s->thread_prev->thread_next = s->thread_next;
  else ult_futures(s->slot_owner) = s->thread_next;
  if (s->thread_next) s->thread_next->thread_prev = s->thread_prev;
  s->thread_prev = s->thread_next = nullptr;
}

/// `t`, blocked, leaves the calling PE (the iso layer, before ult_depart):
/// its unfulfilled futures made here become followed.
void thread_futures_depart(ult* t);
/// `t` arrived on the calling PE (after ult_arrive): tells the homes of its
/// unfulfilled futures where it is.
void thread_futures_arrive(ult* t);
/// `t` ended on the calling PE (its slot goes next): its unfulfilled futures
/// become tombstones at their homes.
void thread_futures_end(ult* t) noexcept;
/// On home, at the fulfilment of a followed future: keeps the packed outcome
/// and sends it after the thread if home knows where it is.
void followed_future_fulfilled(std::uint64_t id, std::vector<std::byte> outcome) noexcept;

}  // namespace roam::detail
