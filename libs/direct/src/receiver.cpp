// roam::direct::receiver: the receiving object's handle, and the lifecycle
// observer that follows receiving objects when they move.
#include <algorithm>
#include <mutex>
#include <thread>

#include "endpoint.hpp"

#include <roam/msg/packing_reason.hpp>
#include <roam/obj/lifecycle.hpp>
#include <roam/sched/runtime.hpp>

namespace roam::direct {
namespace detail {
namespace {

// Spins until a sender's copy into the buffer is over (it takes as long as
// one memcpy; the sender does not wait for anything while landing).
std::uint32_t wait_landed(endpoint& e) {
  std::uint32_t s = e.st().load(std::memory_order_acquire);
  while (s & landing) {
    std::this_thread::yield();
    s = e.st().load(std::memory_order_acquire);
  }
  return s;
}

}  // namespace

// From now on puts wait: the receiver leaves (its buffer is packed or handed
// over). Once per move; returns when no sender is copying any more.
void go_away(endpoint& e) {
  {
    std::lock_guard lock(e.mu);
    if (!(e.st().fetch_or(away, std::memory_order_acq_rel) & away)) ++e.epoch;
  }
  wait_landed(e);
  unstage(e);  // what landed is in the buffer when it is packed or handed over
}

namespace {

class move_follower final : public roam::lifecycle_observer {
 public:
  // Still here and intact, about to be packed or handed over: from now on
  // puts wait (they would land in memory that is being packed).
  // (Moving through pup, the receiver's pup did it already, before packing.)
  void leaving(const roam::object_event& ev) noexcept override {
    for (const auto& e : of(ev.obj)) go_away(*e);
  }
  // Arrived. Moved as itself (the same object): its endpoints are still
  // registered under its address; they serve it on this PE now, and the
  // puts that waited land. (Moved through pup: the new object's receivers
  // were unpacked; puts wait at the old place until after_migration
  // rebinds them.)
  void arrived(const roam::object_event& ev) noexcept override {
    for (const auto& e : of(ev.obj)) {
      std::vector<parked_put> waiting;
      {
        std::lock_guard lock(e->mu);
        if (!(e->st().load(std::memory_order_acquire) & away)) continue;
        e->pe.store(ev.pe, std::memory_order_release);
        e->st().fetch_and(~std::uint32_t{away}, std::memory_order_acq_rel);
        waiting.swap(e->parked);
      }
      try {
        for (parked_put& p : waiting) land_here(*e, p.data.span(), p.from_pe);
      } catch (const std::exception& x) {
        roam::abort(x.what());
      }
      if ((e->st().load(std::memory_order_acquire) & (landed | polling)) == (landed | polling)) signal(*e);
    }
  }

 private:
  static std::vector<std::shared_ptr<endpoint>> of(const void* obj) {
    std::vector<std::shared_ptr<endpoint>> out;
    registry& r = the_registry();
    std::lock_guard lock(r.mu);
    for (auto [it, end] = r.by_owner.equal_range(obj); it != end; ++it) out.push_back(it->second);
    return out;
  }
};

move_follower g_follower;

}  // namespace

void rebind_owner(endpoint& e, const void* owner) {
  if (e.owner == owner) return;
  registry& r = the_registry();
  std::lock_guard lock(r.mu);
  for (auto [it, end] = r.by_owner.equal_range(e.owner); it != end; ++it)
    if (it->second.get() == &e) {
      auto keep = it->second;
      r.by_owner.erase(it);
      r.by_owner.emplace(owner, std::move(keep));
      break;
    }
  e.owner = owner;
}

void follow_moves() {
  static std::once_flag once;
  std::call_once(once, [] { roam::add_lifecycle_observer(g_follower); });
}

}  // namespace detail

receiver& receiver::operator=(receiver&& o) noexcept {
  if (this != &o) {
    close();
    ep_ = std::move(o.ep_);
    record_ = std::move(o.record_);
    o.record_ = {};
  }
  return *this;
}

receiver::receiver(receiver&& o) noexcept : ep_(std::move(o.ep_)), record_(std::move(o.record_)) { o.record_ = {}; }

receiver::~receiver() { close(); }

void receiver::close() noexcept {
  if (ep_) detail::close(ep_);
  ep_.reset();
  record_ = {};
}

detail::endpoint& receiver::bound(const char* what) const {
  if (ep_) return *ep_;
  if (record_.id != 0)
    detail::fail(std::string(what) + " on the receiver of channel " + std::to_string(record_.id) + " (" + record_.owner +
                 ") before rebind after its move");
  detail::fail(std::string(what) + " on a receiver with no channel (make_channel first)");
}

void receiver::ready() { detail::ready(bound("ready")); }
void receiver::ready_mark() { detail::ready_mark(bound("ready_mark")); }
void receiver::ready_poll() { detail::ready_poll(bound("ready_poll")); }
bool receiver::arrived() noexcept { return ep_ && detail::arrived(*ep_); }

std::uint64_t receiver::id() const noexcept { return ep_ ? ep_->id : record_.id; }
std::size_t receiver::bytes() const noexcept { return ep_ ? ep_->bytes : record_.bytes; }

void receiver::rebind_bytes(const void* owner, std::span<std::byte> buffer, std::function<void()> on_arrival) {
  if (ep_) {  // moved as itself: nothing travelled; a new buffer or callback is still allowed
    if (buffer.size() != ep_->bytes)
      detail::fail("rebind of " + detail::describe(*ep_) + " with a buffer of " + std::to_string(buffer.size()) + " bytes");
    if (ep_->data != buffer.data())
      detail::fail("rebind of " + detail::describe(*ep_) +
                   " to another buffer while it is bound (rebind follows a move through pup; close and make a new channel)");
    detail::rebind_owner(*ep_, owner);
    ep_->on_arrival = std::move(on_arrival);
    return;
  }
  if (record_.id == 0) detail::fail("rebind of a receiver with no channel (make_channel first)");
  ep_ = detail::reopen(record_, owner, buffer, std::move(on_arrival));
  record_ = {};
}

void receiver::pup(roam::pup_er& p) {
  detail::receiver_record r;
  if (!p.is_unpacking()) {
    // Packed to migrate: no put may land once the buffer is being packed
    // (what landed before travels, with the `landed` bit). For a checkpoint
    // the channel goes on as it is.
    if (ep_ && roam::packing_to_move()) detail::go_away(*ep_);
    if (ep_) detail::unstage(*ep_);  // a put from another process travels in the buffer
    r = ep_ ? detail::record_of(*ep_) : record_;
  }
  p | r;
  if (p.is_unpacking()) {
    close();
    record_ = std::move(r);
  }
}

}  // namespace roam::direct
