// The sending side: put() into a receiver of this process (a copy by the
// sender's thread and a notice), or as a message that lands on arrival;
// puts that find the receiver away wait or follow it.
#include <cstdio>
#include <cstring>

#include "endpoint.hpp"

#include <roam/msg/pe_call.hpp>
#include <roam/sched/runtime.hpp>

namespace roam::direct {
namespace detail {
namespace {

// A put that travelled as a message, on a PE where the receiver was (or is).
void put_arrives(std::uint64_t id, std::uint32_t from_pe, roam::buffer<std::byte> data) {
  std::shared_ptr<endpoint> e = lookup(id);
  if (!e) {
    const std::uint32_t home = home_of(id);
    if (home != this_pe()) {  // never here: the home knows, or will
      send_put(home, id, std::move(data));
      return;
    }
    // At the home with no record: the receiver has not told it where it
    // settled yet (after a restart). The record waits for it.
    registry& r = the_registry();
    {
      std::lock_guard lock(r.mu);
      auto& slot = r.by_id[id];
      if (!slot) {
        slot = std::make_shared<endpoint>(id, 0);
        slot->state.store(away, std::memory_order_relaxed);
      }
      e = slot;
    }
  }
  for (;;) {
    const std::uint32_t s = e->state.load(std::memory_order_acquire);
    if (!(s & away) || (s & closed)) {
      land_here(*e, data.span(), from_pe);
      return;
    }
    std::shared_ptr<endpoint> next;
    {
      std::lock_guard lock(e->mu);
      if (!(e->state.load(std::memory_order_acquire) & away)) continue;  // it came back meanwhile
      next = e->successor.lock();
      if (!next) {
        park_or_forward(*e, std::move(data), from_pe);
        return;
      }
    }
    e = std::move(next);  // moved through pup within this process
  }
}

}  // namespace

void send_put(std::uint32_t pe, std::uint64_t id, roam::buffer<std::byte> data) {
  roam::call_on_pe<&put_arrives>(pe, id, this_pe(), std::move(data));
}

// Called with e.mu held and e away.
void park_or_forward(endpoint& e, roam::buffer<std::byte> data, std::uint32_t from_pe) {
  if (e.gone_to == nowhere) {
    e.parked.push_back({from_pe, std::move(data)});
    return;
  }
  roam::call_on_pe<&put_arrives>(e.gone_to, e.id, from_pe, std::move(data));
}

}  // namespace detail

channel::channel(const receiver& r) {
  if (r.ep_) {
    const detail::endpoint& e = *r.ep_;
    id_ = e.id;
    bytes_ = e.bytes;
    pe_ = e.pe.load(std::memory_order_acquire);
    receiver_ = e.owner_name;
    cached_ = r.ep_;
  } else {
    id_ = r.record_.id;
    bytes_ = r.record_.bytes;
    pe_ = r.record_.from_pe;
    receiver_ = r.record_.owner;
  }
  if (id_ == 0) detail::fail("a channel made from a receiver that has none (make_channel first)");
}

void channel::attach_bytes(std::span<const std::byte> source) {
  if (id_ == 0) detail::fail("attach on an empty channel (no make_channel behind it)");
  if (source.size() != bytes_) {
    char hex[24];
    std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(id_));
    detail::fail("attach of a " + std::to_string(source.size()) + "-byte source to channel " + hex + " into " +
                 receiver_ + ", whose buffer has " + std::to_string(bytes_) + " bytes");
  }
  source_ = source.data();
  if (source.empty()) source_ = reinterpret_cast<const std::byte*>(this);  // attached, nothing to copy
}

void channel::put() {
  using namespace detail;
  if (id_ == 0) fail("put on an empty channel (no make_channel behind it)");
  if (!source_) {
    char hex[24];
    std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(id_));
    fail("put on channel " + std::string(hex) + " into " + receiver_ +
         " with no source attached (attach once, and again after the sender moved through pup)");
  }
  if (!cached_) cached_ = lookup(id_);
  for (endpoint* e = cached_.get(); e != nullptr;) {
    std::uint32_t s = e->state.load(std::memory_order_acquire);
    bool took = false;
    while (!(s & (away | closed))) {
      if (!(s & armed))
        fail("a put into " + describe(*e) + " before its receiver was ready (ready() must come before each put after the first)");
      if (e->state.compare_exchange_weak(s, (s & ~std::uint32_t{armed}) | landing, std::memory_order_acq_rel)) {
        took = true;
        break;
      }
    }
    if (took) {
      if (bytes_ != 0) std::memcpy(e->data, source_, bytes_);
      s = e->state.fetch_add(landed - landing, std::memory_order_acq_rel) + (landed - landing);
      if (s & polling) signal(*e);
      return;
    }
    if (s & closed) fail("a put into " + describe(*e) + ", which is closed (its receiver was destroyed)");
    // Away: it moved on, or is moving.
    std::shared_ptr<endpoint> next;
    {
      std::lock_guard lock(e->mu);
      if (!(e->state.load(std::memory_order_acquire) & away)) continue;  // settled again as itself
      next = e->successor.lock();
      if (!next) {
        if (e->gone_to != nowhere) pe_ = e->gone_to;
        park_or_forward(*e, roam::buffer<std::byte>(std::span(source_, bytes_)), this_pe());
        if (e->gone_to != nowhere) cached_.reset();  // in another process now: messages from here on
        return;
      }
    }
    cached_ = std::move(next);
    e = cached_.get();
  }
  put_by_message();
}

void channel::put_by_message() {
  detail::send_put(pe_, id_, roam::buffer<std::byte>(std::span(source_, bytes_)));
}

}  // namespace roam::direct
