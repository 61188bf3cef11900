// Futures made by a migratable thread follow it when it moves
// (include/roam/msg/detail/future_follow.hpp).
#include <roam/msg/detail/future_follow.hpp>

#include <exception>
#include <string>
#include <utility>

#include <roam/msg/detail/control.hpp>
#include <roam/msg/future.hpp>
#include <roam/sched/detail/heap_route.hpp>
#include <roam/sched/runtime.hpp>

namespace roam::detail {

// Control messages (their names are their identities across processes).

/// On home: thread `serial`, which made future `id` here, arrived on `pe`
/// (its `moves`-th arrival).
void followed_future_thread_at(std::uint64_t id, std::uint64_t serial, std::uint32_t moves, std::uint32_t pe) noexcept;
/// On the thread's PE: the outcome of future `id` of `home`, whose state is
/// at `at` in the thread's slot, sent after the thread's `moves`-th arrival.
void followed_future_outcome(std::uint64_t serial, std::uint32_t home, std::uint64_t id, std::uint32_t moves,
                             std::uint64_t at, std::vector<std::byte> outcome) noexcept;
/// On home: the thread has the outcome of future `id`.
void followed_future_taken(std::uint64_t id) noexcept;
/// On home: the thread that made future `id` ended before its outcome came.
void followed_future_abandoned(std::uint64_t id) noexcept;

namespace {

void send_followed_outcome(std::uint64_t id, const future_follow& f) {
  post_control<&followed_future_outcome>(f.pe, 0, f.serial, tls_pe->id(), id, f.moves,
                                         static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(f.at)),
                                         std::vector<std::byte>(f.outcome));
}

}  // namespace

void thread_futures_depart(ult* t) {
  pe_state& pe = *tls_pe;
  heap_route_pause pause;  // home's records are the PE's
  for (future_state_base* s = ult_futures(t); s != nullptr; s = s->thread_next) {
    if (s->owner != pe.id()) continue;  // made elsewhere: followed there already
    auto it = pe.futures.find(s->id);
    if (it == pe.futures.end() || it->second != s) continue;  // made here, followed since an earlier move
    pe.futures.erase(it);  // the table's reference goes with the state: the outcome's delivery drops it
    future_follow f;
    f.serial = ult_serial(t);
    f.at = s;
    pe.followed_futures.emplace(s->id, std::move(f));
  }
}

void thread_futures_arrive(ult* t) {
  heap_route_pause pause;
  const std::uint32_t moves = ++ult_moves(t);
  for (future_state_base* s = ult_futures(t); s != nullptr; s = s->thread_next)
    post_control<&followed_future_thread_at>(s->owner, 0, s->id, ult_serial(t), moves, tls_pe->id());
}

void thread_futures_end(ult* t) noexcept {
  pe_state& pe = *tls_pe;
  heap_route_pause pause;
  for (future_state_base* s = ult_futures(t); s != nullptr; s = s->thread_next) {
    if (s->owner != pe.id()) {
      post_control<&followed_future_abandoned>(s->owner, 0, s->id);
      continue;
    }
    if (auto it = pe.futures.find(s->id); it != pe.futures.end() && it->second == s) {
      pe.futures.erase(it);
      future_follow tomb;
      tomb.serial = ult_serial(t);  // at == nullptr: nobody to send the outcome to
      pe.followed_futures.emplace(s->id, std::move(tomb));
    } else {
      followed_future_abandoned(s->id);
    }
  }
  ult_futures(t) = nullptr;
}

void followed_future_fulfilled(std::uint64_t id, std::vector<std::byte> outcome) noexcept {
  pe_state& pe = *tls_pe;
  auto it = pe.followed_futures.find(id);
  if (it == pe.followed_futures.end()) return;
  future_follow& f = it->second;
  if (f.fulfilled) {
    report_fatal("future #" + std::to_string(id) + " fulfilled twice (or its promise was forged)");
    return;
  }
  if (f.at == nullptr) {  // its thread ended: nobody waits
    pe.followed_futures.erase(it);
    return;
  }
  f.fulfilled = true;
  f.outcome = std::move(outcome);
  if (f.pe != ~0u) send_followed_outcome(id, f);  // else the thread's first report sends it
}

void followed_future_thread_at(std::uint64_t id, std::uint64_t serial, std::uint32_t moves, std::uint32_t pe) noexcept {
  pe_state& here = *tls_pe;
  auto it = here.followed_futures.find(id);
  if (it == here.followed_futures.end()) return;  // the thread has the outcome already (this report was overtaken)
  future_follow& f = it->second;
  if (f.at == nullptr || f.serial != serial || moves <= f.moves) return;  // an older report than one seen
  f.pe = pe;
  f.moves = moves;
  if (f.fulfilled) send_followed_outcome(id, f);
}

void followed_future_outcome(std::uint64_t serial, std::uint32_t home, std::uint64_t id, std::uint32_t moves,
                             std::uint64_t at, std::vector<std::byte> outcome) noexcept {
  ult* t = ult_here_by_serial(serial);
  // Gone, or here after another move: the report of that move makes home send it again.
  if (t == nullptr || ult_moves(t) != moves) return;
  future_state_base* s = ult_futures(t);
  while (s != nullptr && !(reinterpret_cast<std::uintptr_t>(s) == at && s->id == id && s->owner == home))
    s = s->thread_next;
  if (s == nullptr) return;  // delivered already
  {
    // The value's own memory (a vector's elements) goes where the thread's allocations go.
    void* const saved = tls_heap_route;
    tls_heap_route = ult_heap_route(t);
    asm volatile("" ::: "memory");
    try {
      s->store_packed(outcome);
    } catch (const std::exception& e) {
      asm volatile("" ::: "memory");
      tls_heap_route = saved;
      report_fatal("pe " + std::to_string(tls_pe->id()) + ": the outcome of future #" + std::to_string(id) + " of pe " +
                   std::to_string(home) + ", which followed the migratable thread that made it here, does not unpack: " +
                   e.what());
      return;
    }
    asm volatile("" ::: "memory");
    tls_heap_route = saved;
  }
  s->ready = true;
  unlink_thread_future(s);
  ult* waiter = std::exchange(s->thread_waiter, nullptr);
  release(s);  // home's reference (its table's, carried by the outcome)
  post_control<&followed_future_taken>(home, 0, id);
  if (waiter) ult_ready(waiter);  // this handler runs on the scheduler's stack: the thread runs now
}

void followed_future_taken(std::uint64_t id) noexcept { tls_pe->followed_futures.erase(id); }

void followed_future_abandoned(std::uint64_t id) noexcept {
  pe_state& pe = *tls_pe;
  auto it = pe.followed_futures.find(id);
  if (it == pe.followed_futures.end()) return;
  if (it->second.fulfilled) {
    pe.followed_futures.erase(it);  // nobody will take the outcome
    return;
  }
  it->second.at = nullptr;  // a tombstone: the fulfilment, when it comes, is dropped
}

}  // namespace roam::detail
