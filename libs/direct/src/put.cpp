// The sending side: put() into a receiver of this process (a copy by the
// sender's thread and a notice), or as a message that lands on arrival;
// puts that find the receiver away wait or follow it.
#include <cstdio>
#include <cstring>

#include "endpoint.hpp"

#include <roam/msg/pe_call.hpp>
#include <roam/sched/notice.hpp>
#include <roam/sched/runtime.hpp>

namespace roam::direct {
namespace detail {
namespace {

// Location news: channel `id` is reached directly by `v` (from a PE of this host).
void way_news(std::uint64_t id, host_view v) { remember_view(id, v); }

// A put came by message from `from_pe`: if that PE is in another process of
// this host, it can come straight here next time.
void tell_the_way(const endpoint& e, std::uint32_t from_pe) {
  if (e.slot == nowhere || e.data == nullptr || from_pe >= roam::num_pes()) return;
  const std::uint32_t node = node_of(from_pe);
  if (node == roam::my_node().value() || !roam::shares_host(roam::node_id{node})) return;
  roam::call_on_pe<&way_news>(from_pe, e.id, view_of(e.slot, e.staging_offset, e.data, e.pe.load(std::memory_order_acquire), e.epoch));
}

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
    e = record_for(id, 0);
  }
  for (;;) {
    const std::uint32_t s = e->st().load(std::memory_order_acquire);
    if (!(s & away) || (s & closed)) {
      land_here(*e, data.span(), from_pe);
      tell_the_way(*e, from_pe);
      return;
    }
    std::shared_ptr<endpoint> next;
    {
      std::lock_guard lock(e->mu);
      if (!(e->st().load(std::memory_order_acquire) & away)) continue;  // it came back meanwhile
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
    if (e.slot != detail::nowhere) view_ = detail::view_of(e.slot, e.staging_offset, e.data, pe_, e.epoch);
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
    detail::fail("attach of a " + std::to_string(source.size()) + "-byte source to " +
                 detail::describe_channel(id_, receiver_, bytes_) + ": the sizes must be equal");
  }
  source_ = source.data();
  if (source.empty()) source_ = reinterpret_cast<const std::byte*>(this);  // attached, nothing to copy
}

void channel::put() {
  using namespace detail;
  if (id_ == 0) fail("put on an empty channel (no make_channel behind it)");
  if (!source_) {
    fail("put on " + describe_channel(id_, receiver_, bytes_) +
         " with no source attached (attach once, and again after the sender moved through pup)");
  }
  if (!cached_ && !peer_state_) cached_ = lookup(id_);
  for (endpoint* e = cached_.get(); e != nullptr;) {
    std::uint32_t s = e->st().load(std::memory_order_acquire);
    bool took = false;
    while (!(s & (away | closed))) {
      if (!(s & armed))
        fail("a put into " + describe(*e) + " before its receiver was ready (ready() must come before each put after the first)");
      if (e->st().compare_exchange_weak(s, (s & ~std::uint32_t{armed}) | landing, std::memory_order_acq_rel)) {
        took = true;
        break;
      }
    }
    if (took) {
      if (bytes_ != 0) std::memcpy(e->data, source_, bytes_);
      s = e->st().fetch_add(landed - landing, std::memory_order_acq_rel) + (landed - landing);
      if (s & polling) signal(*e);
      return;
    }
    if (s & closed) fail("a put into " + describe(*e) + ", which is closed (its receiver was destroyed)");
    // Away: it moved on, or is moving.
    std::shared_ptr<endpoint> next;
    {
      std::lock_guard lock(e->mu);
      if (!(e->st().load(std::memory_order_acquire) & away)) continue;  // settled again as itself
      next = e->successor.lock();
      if (!next) {
        if (e->gone_to != nowhere) {
          // In another process now: straight there if it is on this host
          // and has told us how (location news), else by message.
          pe_ = e->gone_to;
          host_view v;
          if (recall_view(id_, v) && v.epoch >= e->epoch) {
            view_ = v;
            cached_.reset();
            break;
          }
        }
        park_or_forward(*e, roam::buffer<std::byte>(std::span(source_, bytes_)), this_pe());
        return;
      }
    }
    cached_ = std::move(next);
    e = cached_.get();
  }
  if (put_to_peer()) return;
  put_by_message();
}

// The host path: the receiver is in another process of this host.
bool channel::put_to_peer() {
  using namespace detail;
  if (!peer_state_) {
    if (!view_.valid() && !recall_view(id_, view_)) return false;
    peer_access a;
    if (!reach(view_, a)) {
      view_ = {};
      return false;
    }
    peer_state_ = a.state;
    peer_bell_ = a.bell;
    peer_staging_ = a.staging;
  }
  auto& word = *static_cast<std::atomic<std::uint32_t>*>(peer_state_);
  std::uint32_t s = word.load(std::memory_order_acquire);
  for (;;) {
    if (s & closed) fail("a put into " + describe_channel(id_, receiver_, bytes_) + ", which is closed (its receiver was destroyed)");
    if (s & away) {  // it moved: messages find it, and its news may bring us a new view
      peer_state_ = peer_bell_ = peer_staging_ = nullptr;
      view_ = {};
      return false;
    }
    if (!(s & armed))
      fail("a put into " + describe_channel(id_, receiver_, bytes_) +
           " before its receiver was ready (ready() must come before each put after the first)");
    if (word.compare_exchange_weak(s, (s & ~std::uint32_t{armed}) | landing, std::memory_order_acq_rel)) break;
  }
  std::uint32_t arrival = landed;
  if (peer_staging_) {  // two memcpys (here, and the receiver's into its buffer)
    if (bytes_ != 0) std::memcpy(peer_staging_, source_, bytes_);
    arrival |= staged;
  } else if (!write_peer(view_, source_, bytes_)) {  // not permitted, or the process is gone: messages
    word.fetch_sub(landing - armed, std::memory_order_acq_rel);
    peer_state_ = peer_bell_ = nullptr;
    view_ = {};
    return false;
  }
  roam::count_external_send();  // received when the bell's PE counts the ring
  word.fetch_add(arrival - landing, std::memory_order_acq_rel);
  ring(view_, *static_cast<pe_bell*>(peer_bell_));  // every put: the receiver counts it
  return true;
}

void channel::put_by_message() {
  detail::send_put(pe_, id_, roam::buffer<std::byte>(std::span(source_, bytes_)));
}

}  // namespace roam::direct
