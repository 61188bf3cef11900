// ARMCI's operations between ranks (state.hpp has the protocol).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <armci.h>

#include "host_residence.hpp"
#include "residence.hpp"
#include "state.hpp"

namespace roam::armci {
namespace {

void receive(ampi::rank& target, int from_world, std::span<const std::byte> header, buffer<std::byte>& data);

std::unique_ptr<ampi::rank_extension> make_state() { return std::make_unique<state>(); }

const int armci_kind = ampi::register_extension({"armci", &make_state, &receive, &rank_arrived, &rank_leaving});

const char* op_name(int k) {
  switch (k) {
    case op_header::put: return "ARMCI_Put";
    case op_header::acc: return "ARMCI_Acc";
    case op_header::get: return "ARMCI_Get";
    case op_header::rmw: return "ARMCI_Rmw";
    case op_header::lock: return "ARMCI_Lock";
    case op_header::unlock: return "ARMCI_Unlock";
    case op_header::trylock: return "ARMCIX_Trylock_hdl";
    default: return "ARMCI";
  }
}

std::string hex(std::uint64_t a) {
  char t[32];
  std::snprintf(t, sizeof t, "%#llx", static_cast<unsigned long long>(a));
  return t;
}

// The target's check that an operation stays inside one block it allocated
// with ARMCI_Malloc (a wrong address would write into whatever is there).
// The check that an operation stays inside one block its target allocated
// with ARMCI_Malloc (a wrong address would write into whatever is there),
// reported by `detector` (the target's element, or a direct origin).
// False (after ending the job with the report) when it does not.
void report_outside(int detector, int target, std::uint64_t lo, std::uint64_t hi, int kind_of, int from) {
  std::fprintf(stderr,
               "armci: rank %d (PE %u): %s from rank %d to rank %d reaches %s..%s (%llu bytes), outside every block "
               "rank %d allocated with ARMCI_Malloc\n",
               detector, roam::my_pe().value(), op_name(kind_of), from, target, hex(lo).c_str(), hex(hi).c_str(),
               static_cast<unsigned long long>(hi - lo), target);
  std::fflush(stderr);
  roam::exit(1);
}

bool check_span(int detector, int target, const state& s, std::uint64_t lo, std::uint64_t hi, int kind_of, int from) {
  if (lo == hi) return true;
  auto it = s.blocks.upper_bound(lo);
  if (it != s.blocks.begin()) {
    --it;
    if (hi <= it->first + static_cast<std::uint64_t>(it->second)) return true;
  }
  report_outside(detector, target, lo, hi, kind_of, from);
  return false;
}

bool check_inside(int detector, int target, const state& s, const layout& where, int kind_of, int from) {
  std::uint64_t lo = 0, hi = 0;
  span_of(where, &lo, &hi);
  return check_span(detector, target, s, lo, hi, kind_of, from);
}

void send(ampi::rank& from, int to, op_header h, buffer<std::byte> data) {
  ampi::send_extension(from, to, armci_kind, roam::pack(h), std::move(data));
}

void answer(ampi::rank& target, int to, int ticket, buffer<std::byte> data) {
  op_header r;
  r.kind = op_header::reply;
  r.ticket = ticket;
  send(target, to, r, std::move(data));
}

std::size_t rmw_bytes(int type) {
  return type == ARMCI_FETCH_AND_ADD_LONG || type == ARMCI_SWAP_LONG ? sizeof(long) : sizeof(int);
}

// ARMCI_Rmw at `at` (the caller holds the target's locks): the old value to `old`.
void read_modify_write(std::byte* at, int type, std::int64_t value, std::byte* old) {
  std::memcpy(old, at, rmw_bytes(type));
  if (rmw_bytes(type) == sizeof(long)) {
    long v;
    std::memcpy(&v, at, sizeof v);
    v = type == ARMCI_SWAP_LONG ? static_cast<long>(value) : v + static_cast<long>(value);
    std::memcpy(at, &v, sizeof v);
  } else {
    int v;
    std::memcpy(&v, at, sizeof v);
    v = type == ARMCI_SWAP ? static_cast<int>(value) : v + static_cast<int>(value);
    std::memcpy(at, &v, sizeof v);
  }
}

// Applies one operation at the target (its PE; the target's thread is not
// running). Returns the bytes of the answer, if the operation has one.
// `detector`: the rank whose PE applies it. Put and get are applied only by
// the target's own PE here (its block list changes only there, on its
// thread: no lock); accumulate and read-modify-write may also be applied by
// a direct origin (start) and take the target's entry lock.
// `refused`: set when the target's blocks do not hold the operation (the
// job is ending then; nothing was touched).
buffer<std::byte> apply(int detector, int target, state& s, int from, const op_header& h,
                        const buffer<std::byte>& data, bool* refused = nullptr) {
  auto refuse = [refused]() -> buffer<std::byte> {
    if (refused) *refused = true;
    return {};
  };
  switch (h.kind) {
    case op_header::put:
      if (!check_inside(detector, target, s, h.where, h.kind, from)) return refuse();
      scatter(h.where, data.data());
      return {};
    case op_header::acc:
      {
        const entry_lock atomic(residence_of(target));
        const host_lock across(s, target);
        if (!check_inside(detector, target, s, h.where, h.kind, from)) return refuse();
        accumulate(h.where, data.data(), h.type, h.scale.data());
      }
      return {};
    case op_header::get: {
      if (!check_inside(detector, target, s, h.where, h.kind, from)) return refuse();
      auto out = buffer<std::byte>::uninitialized(static_cast<std::size_t>(total_bytes(h.where)));
      gather(h.where, out.mutable_data());
      return out;
    }
    case op_header::rmw: {
      const entry_lock atomic(residence_of(target));
      const host_lock across(s, target);
      if (!check_inside(detector, target, s, h.where, h.kind, from)) return refuse();
      auto old = buffer<std::byte>::uninitialized(rmw_bytes(h.type));
      read_modify_write(reinterpret_cast<std::byte*>(h.where.bases[0]), h.type, h.value, old.mutable_data());
      return old;
    }
    default:
      return {};
  }
}

const int trylock_refused = 1;  // a trylock's answer when the mutex is held (a grant carries nothing)

// The mutex a request names, or null (after ending the job with the report).
mutex_record* mutex_at(ampi::rank& target, state& s, const op_header& h, int from) {
  auto set = s.mutex_sets.find(static_cast<int>(h.value));
  if (set == s.mutex_sets.end() || h.type < 0 || static_cast<std::size_t>(h.type) >= set->second.size()) {
    std::fprintf(stderr, "armci: rank %d (PE %u): %s from rank %d names mutex %d of set %lld, which this rank lacks\n",
                 ampi::world_rank_of(target), roam::my_pe().value(), op_name(h.kind), from, h.type,
                 static_cast<long long>(h.value));
    std::fflush(stderr);
    roam::exit(1);
    return nullptr;
  }
  return &set->second[static_cast<std::size_t>(h.type)];
}

void grant_next(ampi::rank& target, mutex_record& m) {
  if (m.waiters.empty()) {
    m.holder = -1;
    return;
  }
  auto [who, ticket] = m.waiters.front();
  m.waiters.pop_front();
  m.holder = who;
  answer(target, who, ticket, {});
}

// One operation in the origin's order.
void apply_in_order(ampi::rank& target, state& s, int from, const op_header& h, buffer<std::byte>& data) {
  switch (h.kind) {
    case op_header::fence:
      answer(target, from, h.ticket, {});
      return;
    case op_header::lock:
    case op_header::trylock: {
      mutex_record* found = mutex_at(target, s, h, from);
      if (found == nullptr) return;
      mutex_record& m = *found;
      if (h.kind == op_header::trylock && m.holder >= 0) {
        answer(target, from, h.ticket, roam::buffer<std::byte>(std::as_bytes(std::span{&trylock_refused, 1})));
        return;
      }
      m.waiters.emplace_back(from, h.ticket);
      if (m.holder < 0) grant_next(target, m);
      return;
    }
    case op_header::unlock: {
      mutex_record* found = mutex_at(target, s, h, from);
      if (found == nullptr) return;
      mutex_record& m = *found;
      if (m.holder != from) {
        std::fprintf(stderr, "armci: rank %d (PE %u): ARMCI_Unlock of mutex %d by rank %d, which does not hold it\n",
                     ampi::world_rank_of(target), roam::my_pe().value(), h.type, from);
        std::fflush(stderr);
        roam::exit(1);
        return;
      }
      grant_next(target, m);
      return;
    }
    default: {
      const int t = ampi::world_rank_of(target);
      buffer<std::byte> out = apply(t, t, s, from, h, data);
      if (h.ticket != 0) answer(target, from, h.ticket, std::move(out));
    }
  }
}

void take_answer(ampi::rank& origin, state& s, const op_header& h, const buffer<std::byte>& data) {
  auto it = s.tickets.find(h.ticket);
  if (it == s.tickets.end()) return;
  if (!data.empty()) scatter(it->second.into, data.data());
  if (const int handle = it->second.handle; handle != 0) {
    auto hit = s.handles.find(handle);
    if (hit != s.handles.end() && --hit->second <= 0) s.handles.erase(hit);
  }
  s.tickets.erase(it);
  ampi::wake_rank(origin);
}

void receive(ampi::rank& target, int from, std::span<const std::byte> header, buffer<std::byte>& data) {
  op_header h;
  roam::unpack_into(header, h);
  state& s = state_of(target);
  if (h.kind == op_header::reply) return take_answer(target, s, h, data);
  std::uint32_t& next = s.expected_from[from];
  if (h.seq != next) {
    s.early.emplace(std::pair{from, h.seq}, early_op{std::vector<std::byte>(header.begin(), header.end()),
                                                     std::move(data)});
    return;
  }
  apply_in_order(target, s, from, h, data);
  ++next;
  for (auto it = s.early.find({from, next}); it != s.early.end(); it = s.early.find({from, next})) {
    early_op e = std::move(it->second);
    s.early.erase(it);
    op_header eh;
    roam::unpack_into(e.header, eh);
    apply_in_order(target, s, from, eh, e.data);
    ++next;
  }
}

int new_ticket(state& s, layout into, int handle, int target) {
  const int t = s.next_ticket++;
  s.tickets.emplace(t, ticket_record{std::move(into), handle, target});
  if (handle != 0) ++s.handles[handle];
  return t;
}

}  // namespace

state& state_of(ampi::rank& r) { return ampi::extension_of<state>(r, armci_kind); }
state& my_state() { return state_of(ampi::current_rank()); }

void stop_here() {
  roam::suspend_this_thread();  // never resumed: the run ends and unwinds the thread
  std::abort();
}

void fatal(const char* function, const std::string& what) {
  ampi::rank& r = ampi::current_rank();
  std::fprintf(stderr, "armci: rank %d (PE %u): %s: %s\n", ampi::world_rank_of(r), roam::my_pe().value(), function,
               what.c_str());
  std::fflush(stderr);
  roam::exit(1);
  stop_here();
}

namespace {
enum class direct { done, not_here, refused };

// The operation on a pinned target; the pin and the entry lock are let go
// before a refused operation stops the thread.
// The same, to a rank in another process of this host (host_residence.hpp).
direct contiguous_on_peer(const state& origin, int me, int target, op_header::kind_t kind, void* local, void* remote,
                          std::int64_t bytes, int type, const void* scale) {
  const host_pinned there(origin, target);
  if (!there.usable()) return direct::not_here;
  const auto at = reinterpret_cast<std::uint64_t>(remote);
  const auto n = static_cast<std::size_t>(bytes);
  if (n != 0 && !open_peer_memory(at)) return direct::not_here;
  host_entry& e = there.entry();
  e.lock();
  const int inside = n == 0 ? 1 : e.where_is(at, at + n);
  if (inside != 1) {
    e.unlock();
    if (inside < 0) return direct::not_here;
    report_outside(me, target, at, at + n, kind, me);
    return direct::refused;
  }
  if (kind == op_header::acc) {
    accumulate_block(static_cast<std::byte*>(remote), static_cast<const std::byte*>(local), bytes, type,
                     static_cast<const std::byte*>(scale));
    e.unlock();
    return direct::done;
  }
  e.unlock();
  if (kind == op_header::put) std::memmove(remote, local, n);
  else std::memmove(local, remote, n);
  return direct::done;
}

direct contiguous_on(int me, int target, op_header::kind_t kind, void* local, void* remote, std::int64_t bytes,
                     int type, const void* scale) {
  const pinned there(target);
  state* ts = there.target();
  if (ts == nullptr) return direct::not_here;
  const auto at = reinterpret_cast<std::uint64_t>(remote);
  const auto n = static_cast<std::size_t>(bytes);
  if (kind == op_header::acc) {
    const entry_lock atomic(there.entry());
    const host_lock across(*ts, target);
    if (!check_span(me, target, *ts, at, at + n, kind, me)) return direct::refused;
    accumulate_block(static_cast<std::byte*>(remote), static_cast<const std::byte*>(local), bytes, type,
                     static_cast<const std::byte*>(scale));
    return direct::done;
  }
  {
    const entry_lock blocks(there.entry());  // the target's list may change meanwhile (ARMCI_Malloc)
    if (!check_span(me, target, *ts, at, at + n, kind, me)) return direct::refused;
  }
  if (kind == op_header::put) std::memmove(remote, local, n);
  else std::memmove(local, remote, n);
  return direct::done;
}
}  // namespace

bool direct_contiguous(op_header::kind_t kind, void* local, void* remote, std::int64_t bytes, int target, int type,
                       const void* scale) {
  ampi::rank& r = ampi::current_rank();
  state& s = state_of(r);
  if (!s.unfenced.empty() && s.unfenced.count(target) != 0) return false;  // ours on its way there: keep the order
  const int me = ampi::world_rank_of(r);
  direct d = contiguous_on(me, target, kind, local, remote, bytes, type, scale);
  if (d == direct::done) ++s.done_here;
  if (d == direct::not_here &&
      (d = contiguous_on_peer(s, me, target, kind, local, remote, bytes, type, scale)) == direct::done)
    ++s.done_peer;
  if (d == direct::refused) stop_here();
  return d == direct::done;
}

namespace {
// A put, get or accumulate between two layouts done by this thread on a
// pinned target: packed into a temporary and unpacked (on the stack when
// small; measured faster than walking both layouts piece by piece for many
// small segments), no header, no message. The pin and lock are let go before
// a refused operation stops the thread.
// Copies between two layouts through `temp` (a put or get).
void copy_layouts(const operation& op, std::byte* temp) {
  if (op.kind == op_header::put) {
    gather(op.local, temp);
    scatter(op.remote, temp);
  } else {
    gather(op.remote, temp);
    scatter(op.local, temp);
  }
}

// A temporary of `bytes` on the stack when small.
struct temporary {
  std::byte small[512];
  buffer<std::byte> large;
  std::byte* at = small;
  explicit temporary(std::size_t bytes) {
    if (bytes > sizeof small) {
      large = buffer<std::byte>::uninitialized(bytes);
      at = large.mutable_data();
    }
  }
};

// The same, to a rank in another process of this host (host_residence.hpp).
direct layouts_on_peer(const state& origin, int me, const operation& op) {
  const host_pinned there(origin, op.target);
  if (!there.usable()) return direct::not_here;
  std::uint64_t lo = 0, hi = 0;
  span_of(op.remote, &lo, &hi);
  if (lo != hi && !open_peer_memory(lo)) return direct::not_here;
  temporary temp(static_cast<std::size_t>(total_bytes(op.local)));
  if (op.kind == op_header::acc) gather(op.local, temp.at);
  host_entry& e = there.entry();
  e.lock();
  const int inside = lo == hi ? 1 : e.where_is(lo, hi);
  if (inside != 1) {
    e.unlock();
    if (inside < 0) return direct::not_here;
    report_outside(me, op.target, lo, hi, op.kind, me);
    return direct::refused;
  }
  if (op.kind == op_header::acc) {
    accumulate(op.remote, temp.at, op.type, static_cast<const std::byte*>(op.scale));
    e.unlock();
    return direct::done;
  }
  e.unlock();
  copy_layouts(op, temp.at);
  return direct::done;
}

direct layouts_on(int me, const operation& op) {
  const pinned there(op.target);
  state* ts = there.target();
  if (ts == nullptr) return direct::not_here;
  std::uint64_t lo = 0, hi = 0;
  span_of(op.remote, &lo, &hi);
  temporary tmp(static_cast<std::size_t>(total_bytes(op.local)));
  std::byte* temp = tmp.at;
  if (op.kind == op_header::acc) {
    gather(op.local, temp);
    const entry_lock atomic(there.entry());
    const host_lock across(*ts, op.target);
    if (!check_span(me, op.target, *ts, lo, hi, op.kind, me)) return direct::refused;
    accumulate(op.remote, temp, op.type, static_cast<const std::byte*>(op.scale));
    return direct::done;
  }
  {
    const entry_lock blocks(there.entry());
    if (!check_span(me, op.target, *ts, lo, hi, op.kind, me)) return direct::refused;
  }
  copy_layouts(op, temp);
  return direct::done;
}

// A read-modify-write on a rank in another process of this host.
direct rmw_on_peer(const state& origin, int me, const operation& op) {
  const host_pinned there(origin, op.target);
  if (!there.usable()) return direct::not_here;
  const std::uint64_t at = op.remote.bases[0];
  const std::size_t n = rmw_bytes(op.type);
  if (!open_peer_memory(at)) return direct::not_here;
  std::byte old[sizeof(long)];
  host_entry& e = there.entry();
  e.lock();
  const int inside = e.where_is(at, at + n);
  if (inside == 1) read_modify_write(reinterpret_cast<std::byte*>(at), op.type, op.value, old);
  e.unlock();
  if (inside < 0) return direct::not_here;
  if (inside == 0) {
    report_outside(me, op.target, at, at + n, op.kind, me);
    return direct::refused;
  }
  scatter(op.local, old);
  return direct::done;
}
}  // namespace

int start(const operation& op) {
  ampi::rank& r = ampi::current_rank();
  state& s = state_of(r);
  const int me = ampi::world_rank_of(r);
  const bool nothing_in_flight = s.unfenced.find(op.target) == s.unfenced.end();
  // Put, get and accumulate: memory to memory when the target is in this
  // process and nothing of ours is on its way to it (residence.hpp).
  if (nothing_in_flight && op.kind != op_header::rmw) {
    direct d = layouts_on(me, op);
    if (d == direct::done) ++s.done_here;
    if (d == direct::not_here && (d = layouts_on_peer(s, me, op)) == direct::done) ++s.done_peer;
    if (d == direct::refused) stop_here();
    if (d == direct::done) return 0;
  }
  op_header h;
  h.kind = op.kind;
  h.type = op.type;
  h.value = op.value;
  if (op.scale) std::memcpy(h.scale.data(), op.scale, static_cast<std::size_t>(acc_element_bytes(op.type)));
  h.where = op.remote;
  // The origin's bytes, packed once (a put's or accumulate's).
  buffer<std::byte> data;
  if (op.kind == op_header::put || op.kind == op_header::acc) {
    data = buffer<std::byte>::uninitialized(static_cast<std::size_t>(total_bytes(op.local)));
    gather(op.local, data.mutable_data());
  }
  // A read-modify-write on a target here: applied by this thread through
  // the target's own code path (under the target's entry lock).
  if (nothing_in_flight && op.kind == op_header::rmw) {
    bool refused = false, done = false;
    {
      const pinned there(op.target);
      if (state* ts = there.target()) {
        buffer<std::byte> out = apply(me, op.target, *ts, me, h, data, &refused);
        if (!out.empty()) scatter(op.local, out.data());
        done = true;
      }
    }
    if (refused) stop_here();  // the pin let go first
    if (done) {
      ++s.done_here;
      return 0;
    }
    const direct d = rmw_on_peer(s, me, op);
    if (d == direct::refused) stop_here();
    if (d == direct::done) {
      ++s.done_peer;
      return 0;
    }
  }
  const bool answered = op.kind == op_header::get || op.kind == op_header::rmw;
  if (answered) h.ticket = new_ticket(s, op.local, op.handle, op.target);
  h.seq = s.sent_to[op.target]++;
  ++s.unfenced[op.target];
  ++s.sent;
  send(r, op.target, h, std::move(data));
  return h.ticket;
}

void wait_ticket(int ticket) {
  while (ticket != 0 && my_state().tickets.count(ticket) != 0) ampi::block_rank();
}

void wait_target(int target) {
  for (;;) {
    state& s = my_state();
    bool due = false;
    for (const auto& [t, rec] : s.tickets)
      if (target < 0 || rec.target == target) {
        due = true;
        break;
      }
    if (!due) return;
    ampi::block_rank();
  }
}

void wait_handle(int handle) {
  while (handle != 0 && my_state().handles.count(handle) != 0) ampi::block_rank();
}

void fence(int target) {
  ampi::rank& r = ampi::current_rank();
  state& s = state_of(r);
  std::vector<int> tickets;
  for (auto it = s.unfenced.begin(); it != s.unfenced.end();) {
    if (target >= 0 && it->first != target) {
      ++it;
      continue;
    }
    op_header h;
    h.kind = op_header::fence;
    h.ticket = new_ticket(s, {}, 0, it->first);
    h.seq = s.sent_to[it->first]++;
    tickets.push_back(h.ticket);
    send(r, it->first, h, {});
    it = s.unfenced.erase(it);
  }
  for (int t : tickets) wait_ticket(t);
}

namespace {
int send_mutex_op(op_header::kind_t k, int set, int mutex, int target, layout into) {
  ampi::rank& r = ampi::current_rank();
  state& s = state_of(r);
  op_header h;
  h.kind = k;
  h.type = mutex;
  h.value = set;
  if (k != op_header::unlock) h.ticket = new_ticket(s, std::move(into), 0, target);
  h.seq = s.sent_to[target]++;
  send(r, target, h, {});
  return h.ticket;
}
}  // namespace

void lock(int set, int mutex, int target) { wait_ticket(send_mutex_op(op_header::lock, set, mutex, target, {})); }

bool trylock(int set, int mutex, int target) {
  int answer_value = 0;  // stays 0 when granted (the grant carries no bytes)
  wait_ticket(send_mutex_op(op_header::trylock, set, mutex, target, contiguous(&answer_value, sizeof answer_value)));
  return answer_value == 0;
}

void unlock(int set, int mutex, int target) {
  // What the holder did inside the critical section is complete everywhere
  // before the next holder is granted the mutex.
  fence(-1);
  send_mutex_op(op_header::unlock, set, mutex, target, {});
}

}  // namespace roam::armci
