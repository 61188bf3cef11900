// Receivers: making, rebinding and closing endpoints, ready(), and the
// notice that runs the callback on the receiver's PE.
#include "endpoint.hpp"

#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>

#include <roam/msg/pe_call.hpp>
#include <roam/sched/runtime.hpp>

namespace roam::direct::detail {
namespace {

// Channel ids: the creating PE in the top 20 bits (its home, where a put
// that finds no record anywhere goes), a per-process serial from a random
// start below (ids of a restarted run do not meet those it restored).
constexpr int pe_shift = 44;
constexpr std::uint64_t serial_mask = (std::uint64_t{1} << pe_shift) - 1;

std::uint64_t new_id() {
  static std::atomic<std::uint64_t> serial{[] {
    std::random_device rd;
    return (std::uint64_t{rd()} << 12) & serial_mask;
  }()};
  const std::uint64_t s = serial.fetch_add(1, std::memory_order_relaxed) & serial_mask;
  return (std::uint64_t{this_pe()} << pe_shift) | (s == 0 ? 1 : s);
}

void relocated(std::uint64_t id, std::uint32_t epoch, std::uint32_t pe);

// Runs on the receiver's PE when a put has landed (or the callback was
// turned on after one did).
void report(endpoint& e) noexcept {
  std::shared_ptr<endpoint> keep = std::move(e.keep);
  const std::uint32_t pe = e.pe.load(std::memory_order_acquire);
  if (pe != this_pe() && pe != nowhere) {  // the receiver moved (as itself) since the post
    e.keep = std::move(keep);
    e.notice.post(pe);
    return;
  }
  e.st().fetch_and(~std::uint32_t{queued}, std::memory_order_acq_rel);
  deliver_landed(e);
}

}  // namespace

bool deliver_landed(endpoint& e) noexcept {
  std::uint32_t s = e.st().load(std::memory_order_acquire);
  for (;;) {
    if ((s & (landed | polling)) != (landed | polling) || (s & (away | closed | queued))) return false;
    if (e.st().compare_exchange_weak(s, s & ~std::uint32_t{landed | staged}, std::memory_order_acq_rel)) break;
  }
  // The receiver may have settled on another PE between the caller's look
  // at `pe` and the claim (its arrival stores pe, then clears away): the
  // callback must run where it is now.
  if (e.pe.load(std::memory_order_acquire) != this_pe()) {
    e.st().fetch_or(s & (landed | staged), std::memory_order_acq_rel);
    signal(e);
    return true;
  }
  if ((s & staged) && e.staging) std::memcpy(e.data, e.staging, e.bytes);
  try {
    e.on_arrival();
  } catch (const std::exception& x) {
    roam::abort("roam::direct: the arrival callback of " + describe(e) + " threw: " + x.what());
  }
  return true;
}

endpoint::endpoint(std::uint64_t i, std::uint64_t b) : id(i), bytes(b), notice([this] { report(*this); }) {}

void endpoint::share_state() noexcept {
  std::uint32_t index = 0;
  if (std::atomic<std::uint32_t>* w = claim_slot(index)) {
    w->store(own_state.load(std::memory_order_relaxed), std::memory_order_release);
    state_word = w;
    slot = index;
    // A buffer in the segment (a host_buffer) is its own staging area:
    // senders of other processes write it directly and nothing is copied
    // on arrival (`staging` stays null).
    if (!in_own_segment(data, bytes, staging_offset)) staging = claim_staging(bytes, staging_offset);
  }
}

void unstage(endpoint& e) noexcept {
  std::uint32_t s = e.st().load(std::memory_order_acquire);
  while (s & staged) {
    if (e.st().compare_exchange_weak(s, s & ~std::uint32_t{staged}, std::memory_order_acq_rel)) {
      if (e.staging) std::memcpy(e.data, e.staging, e.bytes);
      return;
    }
  }
}

registry& the_registry() {
  static registry r;
  return r;
}

std::shared_ptr<endpoint> record_for(std::uint64_t id, std::uint32_t epoch) {
  registry& r = the_registry();
  std::lock_guard lock(r.mu);
  auto& slot = r.by_id[id];
  if (!slot) {  // nothing known here: a record that waits to learn where the receiver is
    slot = std::make_shared<endpoint>(id, 0);
    slot->st().store(away, std::memory_order_relaxed);
    slot->epoch = epoch;
  }
  return slot;
}

std::shared_ptr<endpoint> lookup(std::uint64_t id) {
  registry& r = the_registry();
  std::lock_guard lock(r.mu);
  auto it = r.by_id.find(id);
  return it == r.by_id.end() ? nullptr : it->second;
}

std::uint32_t home_of(std::uint64_t id) noexcept {
  return static_cast<std::uint32_t>((id >> pe_shift) % roam::num_pes());
}

std::string describe_channel(std::uint64_t id, const std::string& receiver, std::uint64_t bytes) {
  char hex[24];
  std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(id));
  return "channel " + std::string(hex) + " into " + (receiver.empty() ? std::string("a receiver") : receiver) + " (" +
         std::to_string(bytes) + " bytes)";
}

std::string describe(const endpoint& e) { return describe_channel(e.id, e.owner_name, e.bytes); }

void fail(const std::string& what) { throw std::logic_error("roam::direct: " + what); }

void signal(endpoint& e) {
  const std::uint32_t before = e.st().fetch_or(queued, std::memory_order_acq_rel);
  if (before & queued) return;
  e.keep = e.shared_from_this();
  e.notice.post(e.pe.load(std::memory_order_acquire));
}

void land_here(endpoint& e, std::span<const std::byte> data, std::uint32_t from_pe) {
  if (data.size() != e.bytes)
    fail("a put of " + std::to_string(data.size()) + " bytes from pe " + std::to_string(from_pe) + " into " +
         describe(e));
  std::uint32_t s = e.st().load(std::memory_order_acquire);
  for (;;) {
    if (s & closed) fail("a put from pe " + std::to_string(from_pe) + " into " + describe(e) + ", which is closed");
    if (!(s & armed))
      fail("a put from pe " + std::to_string(from_pe) + " into " + describe(e) +
           " before its receiver was ready (ready() must come before each put after the first)");
    if (e.st().compare_exchange_weak(s, (s & ~std::uint32_t{armed}) | landing, std::memory_order_acq_rel)) break;
  }
  if (!data.empty()) std::memcpy(e.data, data.data(), data.size());
  s = e.st().fetch_add(landed - landing, std::memory_order_acq_rel) + (landed - landing);
  if (s & polling) signal(e);
}

std::shared_ptr<endpoint> open(const void* owner, std::string owner_name, std::span<std::byte> buffer,
                               std::function<void()> on_arrival) {
  follow_moves();
  auto e = std::make_shared<endpoint>(new_id(), buffer.size());
  e->data = buffer.data();
  e->on_arrival = std::move(on_arrival);
  e->owner = owner;
  e->owner_name = std::move(owner_name);
  e->pe.store(this_pe(), std::memory_order_relaxed);
  e->st().store(armed | polling, std::memory_order_release);
  e->share_state();
  registry& r = the_registry();
  std::lock_guard lock(r.mu);
  r.by_id[e->id] = e;
  r.by_owner.emplace(owner, e);
  return e;
}

std::shared_ptr<endpoint> reopen(const receiver_record& from, const void* owner, std::span<std::byte> buffer,
                                 std::function<void()> on_arrival) {
  follow_moves();
  auto e = std::make_shared<endpoint>(from.id, from.bytes);
  e->owner_name = from.owner;
  if (buffer.size() != from.bytes)
    fail("rebind of " + describe(*e) + " with a buffer of " + std::to_string(buffer.size()) + " bytes");
  e->data = buffer.data();
  e->on_arrival = std::move(on_arrival);
  e->owner = owner;
  e->epoch = from.epoch;
  e->pe.store(this_pe(), std::memory_order_relaxed);
  e->st().store(from.state & travelling, std::memory_order_release);
  e->share_state();
  std::shared_ptr<endpoint> old;
  {
    registry& r = the_registry();
    std::lock_guard lock(r.mu);
    auto& slot = r.by_id[e->id];
    old = std::exchange(slot, e);
    r.by_owner.emplace(owner, e);
  }
  std::vector<parked_put> waiting;
  if (old) {  // a record here: it moved through pup within this process, or was here before
    std::lock_guard lock(old->mu);
    old->gone_to = this_pe();
    old->successor = e;
    waiting.swap(old->parked);
  }
  // Elsewhere: the PE it left and the channel's home learn where it is (the
  // home for puts whose senders only know where it was made, or after a restart).
  const std::uint32_t here = this_pe();
  const std::uint32_t home = home_of(e->id);
  // (A PE of this process finds the new endpoint registered and ignores it.)
  if (from.from_pe < roam::num_pes() && from.from_pe != here)
    roam::call_on_pe<&relocated>(from.from_pe, e->id, e->epoch, here);
  if (home != here && home != from.from_pe) roam::call_on_pe<&relocated>(home, e->id, e->epoch, here);
  for (parked_put& p : waiting) land_here(*e, p.data.span(), p.from_pe);
  if ((e->st().load(std::memory_order_acquire) & (landed | polling)) == (landed | polling)) signal(*e);
  return e;
}

namespace {
// On PE `pe`'s old place, or the channel's home: the receiver settled on
// `to` after its move number `epoch`. Puts waiting here go there.
void relocated(std::uint64_t id, std::uint32_t epoch, std::uint32_t to) {
  std::shared_ptr<endpoint> e = record_for(id, epoch);
  std::vector<parked_put> waiting;
  {
    std::lock_guard lock(e->mu);
    if (!(e->st().load(std::memory_order_acquire) & away)) return;  // live here: news of an older move
    if (e->epoch > epoch) return;
    e->epoch = epoch;
    e->gone_to = to;
    waiting.swap(e->parked);
  }
  for (parked_put& p : waiting) send_put(to, id, std::move(p.data));
}
}  // namespace

receiver_record record_of(const endpoint& e) {
  receiver_record r;
  r.id = e.id;
  r.bytes = e.bytes;
  r.epoch = e.epoch;
  r.state = e.st().load(std::memory_order_acquire) & travelling;
  r.owner = e.owner_name;
  r.from_pe = e.pe.load(std::memory_order_acquire);
  return r;
}

void close(const std::shared_ptr<endpoint>& e) noexcept {
  registry& r = the_registry();
  std::lock_guard lock(r.mu);
  for (auto [it, end] = r.by_owner.equal_range(e->owner); it != end; ++it)
    if (it->second == e) {
      r.by_owner.erase(it);
      break;
    }
  // Moving through pup (away): it stays as the record that forwards puts.
  // Otherwise the channel ends; the record stays to name it in errors.
  std::lock_guard elock(e->mu);
  if (!(e->st().load(std::memory_order_acquire) & away)) e->st().fetch_or(closed, std::memory_order_acq_rel);
}

void ready_mark(endpoint& e) {
  std::uint32_t s = e.st().load(std::memory_order_acquire);
  for (;;) {
    if (s & closed) fail("ready on " + describe(e) + ", which is closed");
    if (s & landing)
      fail("ready on " + describe(e) + " while a put is landing: the receiver was ready already (ready() twice before a put?)");
    const std::uint32_t next = (s & ~std::uint32_t{landed | staged | polling}) | armed;
    if (e.st().compare_exchange_weak(s, next, std::memory_order_acq_rel)) return;
  }
}

void ready_poll(endpoint& e) {
  const std::uint32_t s = e.st().fetch_or(polling, std::memory_order_acq_rel) | polling;
  if (s & landed) signal(e);
}

void ready(endpoint& e) {
  ready_mark(e);
  ready_poll(e);
}

bool arrived(endpoint& e) noexcept {
  if (!(e.st().load(std::memory_order_acquire) & landed)) return false;
  unstage(e);
  return true;
}

}  // namespace roam::direct::detail
