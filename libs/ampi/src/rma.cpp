// One-sided communication: windows, MPI_Put/Get/Accumulate, active target
// (MPI_Win_fence) and passive target (MPI_Win_lock/unlock).
//
// An operation is a message to the target rank's element, which applies it
// to the window's memory there (the target thread's memory, on the target's
// PE): the target's program does not take part. One-sided messages between
// two ranks are applied in sending order (their own sequence numbers, as for
// point-to-point), so an unlock never overtakes the operations before it.
// The target datatype travels with the operation (a derived type is the
// origin's handle, meaningless at the target).
// - Fence: each rank counts what it sent to each rank since the last fence;
//   a reduce-scatter tells every rank how many operations target it, and it
//   waits until that many are applied and its own gets are answered.
// - Lock/unlock: the target grants locks (shared ones together, an
//   exclusive one alone, the others queued in order); the unlock is
//   acknowledged once the operations before it are applied.
// - Request-based operations (MPI_Rput...) inside a passive-target epoch: a
//   put's or accumulate's request completes at once (the data is packed
//   into the message), a get's when its reply is in the origin's buffer
//   (the reply names the request).
// - Dynamic windows (rma_windows.cpp): displacements are addresses; the
//   target checks that an operation falls in memory attached there and
//   otherwise answers `refused`, which the origin reports at its next
//   synchronization on the window (and in a get's request).
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "api.hpp"
#include "ops.hpp"
#include "rma.hpp"

using namespace roam::ampi;

window* roam::ampi::find_window(rank& r, int handle) {
  auto it = r.windows.find(handle);
  return it == r.windows.end() ? nullptr : &it->second;
}

window* roam::ampi::window_of(rank& r, std::uint64_t context) {
  for (auto& [h, w] : r.windows)
    if (w.context == context) return &w;
  return nullptr;
}

namespace {

void send_rma(rank& r, int to_world, rma_header h, const type_info& target_type, roam::buffer<std::byte> data) {
  h.from_world = r.this_index()[0];
  h.seq = r.rma_sent_to[to_world]++;
  r.this_array()[to_world].send<&rank::rma>(h, target_type, std::move(data));
}

bool fetches(std::int32_t kind) {
  return kind == rma_header::get || kind == rma_header::get_accumulate || kind == rma_header::compare_swap;
}

// Completes a request-based operation's request (a get's reply, or the
// target's refusal). A request MPI_Request_free'd meanwhile is dropped now.
void complete_request(rank& r, int handle, int error, std::int64_t bytes) {
  if (handle <= 0 || static_cast<std::size_t>(handle) > r.requests.size()) return;
  request_record& q = r.req(handle);
  if (q.what != request_record::kind::rma || q.complete) return;
  q.complete = true;
  q.status_error = error;
  q.bytes = bytes;
  if (q.freed) r.release_request(handle);
}

// Where an operation's bytes are in the target's window, or null when a
// dynamic window has no attached region holding all of them (`lo`, `bytes`:
// the span refused).
std::byte* target_address(const window& w, const rma_header& h, const type_info& t, std::uint64_t* lo,
                          std::int64_t* bytes) {
  // In integers: a dynamic window's base is MPI_BOTTOM (null), its
  // displacements addresses.
  const std::uint64_t address = w.base + static_cast<std::uint64_t>(h.disp * w.disp_unit);
  auto* at = reinterpret_cast<std::byte*>(address);
  if (w.extra.flavor != MPI_WIN_FLAVOR_DYNAMIC || h.count <= 0 || t.size == 0) return at;
  const std::uint64_t first = address + static_cast<std::uint64_t>(t.true_lb);
  const std::int64_t span = (h.count - 1) * t.extent() + (t.true_ub - t.true_lb);
  *lo = first;
  *bytes = span;
  auto region = w.extra.regions.upper_bound(first);
  if (region == w.extra.regions.begin()) return nullptr;
  --region;
  const std::uint64_t region_end = region->first + static_cast<std::uint64_t>(region->second);
  return first + static_cast<std::uint64_t>(span) <= region_end ? at : nullptr;
}

// The window's rank of world rank `world` (-1: not a member).
int rank_in_window(rank& r, const window& w, int world) {
  const communicator& c = r.comms.at(w.comm);
  for (int i = 0; i < c.size; ++i)
    if (c.world_of(i) == world) return i;
  return -1;
}

}  // namespace

std::string roam::ampi::address_text(std::uint64_t address) {
  char text[32];
  std::snprintf(text, sizeof text, "%#llx", static_cast<unsigned long long>(address));
  return text;
}

void rank::rma(rma_header h, type_info target_type, buffer<std::byte> data) {
  std::uint32_t& next = rma_expected_from[h.from_world];
  if (h.seq != next) {
    rma_early.emplace(std::pair{h.from_world, h.seq}, std::tuple{h, std::move(target_type), std::move(data)});
    return;
  }
  apply_rma(h, target_type, data);
  ++next;
  for (auto it = rma_early.find({h.from_world, next}); it != rma_early.end();
       it = rma_early.find({h.from_world, next})) {
    auto [eh, et, ed] = std::move(it->second);
    rma_early.erase(it);
    apply_rma(eh, et, ed);
    ++next;
  }
  notify();
}

void rank::apply_rma(rma_header h, type_info& target_type, buffer<std::byte>& data) {
  window* w = window_of(*this, h.context);
  if (w == nullptr) {
    std::fprintf(stderr, "ampi: rank %d (PE %u): a one-sided operation from rank %d for a window it does not have\n",
                 this_index()[0], roam::my_pe().value(), h.from_world);
    return;
  }
  std::byte* at = nullptr;
  if (h.kind == rma_header::put || h.kind == rma_header::accumulate || fetches(h.kind)) {
    std::uint64_t lo = 0;
    std::int64_t bytes = 0;
    at = target_address(*w, h, target_type, &lo, &bytes);
    if (at == nullptr) {
      // Not applied (counted for fences all the same); the origin reports it.
      w->applied += h.fenced;
      rma_header no = h;
      no.kind = rma_header::refused;
      no.op = h.kind;
      no.disp = static_cast<std::int64_t>(lo);
      no.count = bytes;
      send_rma(*this, h.from_world, no, target_type, {});
      return;
    }
  }
  switch (h.kind) {
    case rma_header::put:
      unpack(target_type, data.data(), static_cast<std::int64_t>(data.size()), at, h.count);
      w->applied += h.fenced;
      break;
    case rma_header::accumulate: {
      // target = origin op target, on the packed form.
      auto current = buffer<std::byte>::uninitialized(static_cast<std::size_t>(h.count * target_type.size));
      pack(target_type, at, h.count, current.mutable_data());
      if (h.op == MPI_REPLACE) current = data;
      else apply_op(*this, h.op, 0, target_type, data.data(), current.mutable_data(), h.count);
      unpack(target_type, current.data(), static_cast<std::int64_t>(current.size()), at, h.count);
      w->applied += h.fenced;
      break;
    }
    case rma_header::get: {
      auto out = buffer<std::byte>::uninitialized(static_cast<std::size_t>(h.count * target_type.size));
      pack(target_type, at, h.count, out.mutable_data());
      rma_header reply = h;
      reply.kind = rma_header::get_reply;
      w->applied += h.fenced;
      send_rma(*this, h.from_world, reply, target_type, std::move(out));
      break;
    }
    case rma_header::get_accumulate:
    case rma_header::compare_swap: {
      // The old value goes back; then the operation (or the swap, when the
      // compare value, the second half of the bytes, matches).
      const auto bytes = static_cast<std::size_t>(h.count * target_type.size);
      auto old = buffer<std::byte>::uninitialized(bytes);
      pack(target_type, at, h.count, old.mutable_data());
      if (h.kind == rma_header::compare_swap) {
        if (std::memcmp(old.data(), data.data() + bytes, bytes) == 0)
          unpack(target_type, data.data(), static_cast<std::int64_t>(bytes), at, h.count);
      } else if (h.op != MPI_NO_OP) {
        auto next = old;
        if (h.op == MPI_REPLACE) next = data;
        else apply_op(*this, h.op, 0, target_type, data.data(), next.mutable_data(), h.count);
        unpack(target_type, next.data(), static_cast<std::int64_t>(next.size()), at, h.count);
      }
      rma_header reply = h;
      reply.kind = rma_header::get_reply;
      w->applied += h.fenced;
      send_rma(*this, h.from_world, reply, target_type, std::move(old));
      break;
    }
    case rma_header::flush: {
      rma_header a = h;
      a.kind = rma_header::flush_ack;
      send_rma(*this, h.from_world, a, target_type, {});
      break;
    }
    case rma_header::flush_ack: ++w->flush_acks; break;
    case rma_header::get_reply: {
      // The origin's buffer, with the origin's type (sent along as target_type's partner: reply_type is
      // the origin's handle, valid here).
      const type_info* ot = h.reply_type < first_derived_type ? predefined_type(h.reply_type) : nullptr;
      if (ot == nullptr) {
        auto t = types.find(h.reply_type);
        if (t != types.end()) ot = &t->second;
      }
      if (ot != nullptr)
        unpack(*ot, data.data(), static_cast<std::int64_t>(data.size()), reinterpret_cast<void*>(h.reply_to),
               h.reply_count);
      --w->replies_due;
      complete_request(*this, h.request, MPI_SUCCESS, static_cast<std::int64_t>(data.size()));
      break;
    }
    case rma_header::refused: {
      // Kept for the next synchronization on the window (the first one
      // since the last report); a get's request completes with the error.
      if (w->extra.error.empty())
        w->extra.error = "rank " + std::to_string(rank_in_window(*this, *w, h.from_world)) +
                         " has no memory attached at " + address_text(static_cast<std::uint64_t>(h.disp)) + " (" +
                         std::to_string(h.count) + " bytes; MPI_Win_attach it there first)";
      if (fetches(h.op)) --w->replies_due;
      complete_request(*this, h.request, MPI_ERR_RMA_RANGE, 0);
      break;
    }
    case rma_header::lock: {
      const bool exclusive = h.op == MPI_LOCK_EXCLUSIVE;
      if (w->lock_waiters.empty() && (w->lock_state == 0 || (!exclusive && w->lock_state > 0))) {
        w->lock_state = exclusive ? -1 : w->lock_state + 1;
        rma_header g = h;
        g.kind = rma_header::grant;
        send_rma(*this, h.from_world, g, target_type, {});
      } else {
        w->lock_waiters.emplace_back(h.from_world, h.op);
      }
      break;
    }
    case rma_header::grant: ++w->grants; break;
    case rma_header::unlock: {
      w->lock_state = w->lock_state < 0 ? 0 : w->lock_state - 1;
      rma_header a = h;
      a.kind = rma_header::unlock_ack;
      send_rma(*this, h.from_world, a, target_type, {});
      // Grant what now fits, in order.
      while (!w->lock_waiters.empty()) {
        auto [who, type] = w->lock_waiters.front();
        const bool exclusive = type == MPI_LOCK_EXCLUSIVE;
        if (!(w->lock_state == 0 || (!exclusive && w->lock_state > 0))) break;
        w->lock_waiters.pop_front();
        w->lock_state = exclusive ? -1 : w->lock_state + 1;
        rma_header g = h;
        g.kind = rma_header::grant;
        g.from_world = who;
        send_rma(*this, who, g, target_type, {});
        if (exclusive) break;
      }
      break;
    }
    case rma_header::unlock_ack: ++w->unlock_acks; break;
    case rma_header::post: ++w->posts_from[h.from_world]; break;
    case rma_header::complete: ++w->completes_from[h.from_world]; break;
    default: break;
  }
}

int roam::ampi::make_window(void* base, MPI_Aint size, int disp_unit, MPI_Info hints, MPI_Comm comm, MPI_Win* win,
                            int flavor, const char* function) {
  rank& r = me();
  communicator* c = find_comm(r, comm);
  if (c == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_COMM, function, "invalid communicator " + std::to_string(comm));
  if (size < 0 || disp_unit <= 0) return fail(comm, MPI_ERR_ARG, function, "negative size or non-positive disp_unit");
  window w;
  w.context = child_context(*c, -3);
  w.base = reinterpret_cast<std::uint64_t>(base);
  w.size = size;
  w.disp_unit = disp_unit;
  w.allocated = flavor == MPI_WIN_FLAVOR_ALLOCATE;
  w.extra.flavor = flavor;
  record_hints(w, hints);
  w.sent.assign(static_cast<std::size_t>(c->size), 0);
  w.locked.assign(static_cast<std::size_t>(c->size), 0);
  MPI_Comm own = MPI_COMM_NULL;
  if (int e = PMPI_Comm_dup(comm, &own)) return e;  // the window's fences are its own collectives
  w.comm = own;
  rank& after = me();
  const int h = after.next_window++;
  after.windows[h] = std::move(w);
  *win = h;
  // Every member has the window before anyone may reach it (a post or a
  // lock needs no epoch opened by the target first).
  return PMPI_Barrier(own);
}

int roam::ampi::report_refused(MPI_Win win, const char* function) {
  window* w = find_window(me(), win);
  if (w == nullptr || w->extra.error.empty()) return MPI_SUCCESS;
  const std::string what = "window " + std::to_string(win) + (w->name.empty() ? "" : " (" + w->name + ")") + ": " +
                           w->extra.error;
  w->extra.error.clear();
  return fail(w->comm, MPI_ERR_RMA_RANGE, function, what);
}

namespace {

// Checks an operation's target and returns the window (null: reported).
window* check_target(MPI_Win win, int target_rank, MPI_Datatype target_type, int* err, const char* function) {
  rank& r = me();
  window* w = find_window(r, win);
  if (w == nullptr) {
    *err = fail(MPI_COMM_WORLD, MPI_ERR_WIN, function, "invalid window " + std::to_string(win));
    return nullptr;
  }
  const communicator& c = r.comms.at(w->comm);
  if (target_rank < 0 || target_rank >= c.size) {
    *err = fail(w->comm, MPI_ERR_RANK, function, "target " + std::to_string(target_rank) + " is not in the window");
    return nullptr;
  }
  if (find_type(r, target_type) == nullptr) {
    *err = fail(w->comm, MPI_ERR_TYPE, function, "invalid target datatype");
    return nullptr;
  }
  *err = MPI_SUCCESS;
  return w;
}

// A request-based operation's checks: it needs a passive-target epoch on
// its target (MPI_Win_lock or MPI_Win_lock_all).
int check_epoch(MPI_Win win, const window& w, int target_rank, const char* function) {
  if (w.locked[static_cast<std::size_t>(target_rank)]) return MPI_SUCCESS;
  return fail(w.comm, MPI_ERR_RMA_SYNC, function,
              "window " + std::to_string(win) + ": no passive-target epoch on rank " + std::to_string(target_rank) +
                  " (request-based operations need MPI_Win_lock or MPI_Win_lock_all first)");
}

// A request-based operation's request: complete at once for puts and
// accumulates (their data is in the message already), else when the reply
// comes (complete_request).
int new_rma_request(rank& r, const window& w, bool complete) {
  const int h = r.new_request();
  request_record& q = r.req(h);
  q.what = request_record::kind::rma;
  q.active = true;
  q.complete = complete;
  q.comm = w.comm;
  q.status_source = MPI_ANY_SOURCE;
  q.status_tag = MPI_ANY_TAG;
  return h;
}

// Sends an operation that has a reply (a get, a fetching accumulate):
// where the reply goes, whether the target counts it for the next fence,
// its request if any.
void send_with_reply(rank& r, window& w, int target_rank, rma_header h, void* reply_to, int reply_count,
                     MPI_Datatype reply_type, const type_info& target_type, roam::buffer<std::byte> data,
                     MPI_Request* request) {
  h.reply_to = reinterpret_cast<std::uint64_t>(reply_to);
  h.reply_count = reply_count;
  h.reply_type = reply_type;
  h.fenced = w.locked[static_cast<std::size_t>(target_rank)] || w.accessing ? 0 : 1;
  if (request != nullptr) *request = h.request = new_rma_request(r, w, false);
  ++w.replies_due;
  w.sent[static_cast<std::size_t>(target_rank)] += static_cast<std::uint32_t>(h.fenced);
  send_rma(r, r.comms.at(w.comm).world_of(target_rank), h, target_type, std::move(data));
}

// MPI_PROC_NULL is a valid target of every operation: nothing is done (a
// request-based one's request is complete at once). True when that is the
// target (*err: the outcome).
bool to_proc_null(MPI_Win win, int target_rank, MPI_Request* request, int* err, const char* function) {
  if (target_rank != MPI_PROC_NULL) return false;
  rank& r = me();
  const window* w = find_window(r, win);
  if (w == nullptr) {
    *err = fail(MPI_COMM_WORLD, MPI_ERR_WIN, function, "invalid window " + std::to_string(win));
    return true;
  }
  if (request != nullptr) *request = new_rma_request(r, *w, true);
  *err = MPI_SUCCESS;
  return true;
}

int put_or_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                      MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                      rma_header::kind_t kind, MPI_Request* request, const char* function) {
  int err = 0;
  if (to_proc_null(win, target_rank, request, &err, function)) return err;
  window* w = check_target(win, target_rank, target_datatype, &err, function);
  if (w == nullptr) return err;
  if (request != nullptr)
    if (int e = check_epoch(win, *w, target_rank, function)) return e;
  rank& r = me();
  const type_info* ot = find_type(r, origin_datatype);
  if (ot == nullptr) return fail(w->comm, MPI_ERR_TYPE, function, "invalid origin datatype");
  if (kind == rma_header::accumulate && !op_known(r, op))
    return fail(w->comm, MPI_ERR_OP, function, "invalid operation");
  auto data = roam::buffer<std::byte>::uninitialized(static_cast<std::size_t>(origin_count * ot->size));
  pack(*ot, origin_addr, origin_count, data.mutable_data());
  rma_header h;
  h.kind = kind;
  h.op = op;
  h.context = w->context;
  h.disp = target_disp;
  h.count = target_count;
  h.fenced = w->locked[static_cast<std::size_t>(target_rank)] || w->accessing ? 0 : 1;
  w->sent[static_cast<std::size_t>(target_rank)] += static_cast<std::uint32_t>(h.fenced);
  send_rma(r, r.comms.at(w->comm).world_of(target_rank), h, *find_type(r, target_datatype), std::move(data));
  if (request != nullptr) *request = new_rma_request(r, *w, true);
  return MPI_SUCCESS;
}

// MPI_Get and MPI_Rget: the reply fills the origin buffer (and completes
// the request, if any).
int start_get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request,
              const char* function) {
  int err = 0;
  if (to_proc_null(win, target_rank, request, &err, function)) return err;
  window* w = check_target(win, target_rank, target_datatype, &err, function);
  if (w == nullptr) return err;
  if (request != nullptr)
    if (int e = check_epoch(win, *w, target_rank, function)) return e;
  rank& r = me();
  if (find_type(r, origin_datatype) == nullptr) return fail(w->comm, MPI_ERR_TYPE, function, "invalid origin datatype");
  rma_header h;
  h.kind = rma_header::get;
  h.context = w->context;
  h.disp = target_disp;
  h.count = target_count;
  send_with_reply(r, *w, target_rank, h, origin_addr, origin_count, origin_datatype, *find_type(r, target_datatype), {},
                  request);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                               MPI_Win* win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return make_window(base, size, disp_unit, info, comm, win, MPI_WIN_FLAVOR_CREATE, "MPI_Win_create");
}
ROAM_AMPI_PMPI(Win_create)

extern "C" int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                                 MPI_Win* win) {
  // In the rank's heap: the window's memory moves with the rank.
  void* base = roam::thread_heap_allocate(static_cast<std::size_t>(std::max<MPI_Aint>(size, 1)));
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  *static_cast<void**>(baseptr) = base;
  return make_window(base, size, disp_unit, info, comm, win, MPI_WIN_FLAVOR_ALLOCATE, "MPI_Win_allocate");
}
ROAM_AMPI_PMPI(Win_allocate)

extern "C" int PMPI_Win_free(MPI_Win* win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  window* w = find_window(r, *win);
  if (w == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_WIN, "MPI_Win_free", "invalid window " + std::to_string(*win));
  int comm = w->comm;
  const std::map<int, std::uint64_t> attributes = w->attributes;
  for (const auto& [keyval, value] : attributes)
    if (int e = delete_window_attribute(*win, keyval, value)) return e;
  // Nobody may still be reaching into this rank's memory.
  if (int e = PMPI_Barrier(comm)) return e;
  rank& after = me();
  window& mine = after.windows.at(*win);
  if (mine.allocated) roam::thread_heap_release(reinterpret_cast<void*>(mine.base));
  release_shared(mine);
  after.windows.erase(*win);
  PMPI_Comm_free(&comm);
  *win = MPI_WIN_NULL;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Win_free)

extern "C" int PMPI_Win_fence(int, MPI_Win win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  window* w = find_window(r, win);
  if (w == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_WIN, "MPI_Win_fence", "invalid window " + std::to_string(win));
  const std::uint64_t context = w->context;
  const int comm = w->comm;
  std::vector<int> sent(w->sent.begin(), w->sent.end());
  int incoming = 0;
  if (int e = PMPI_Reduce_scatter_block(sent.data(), &incoming, 1, MPI_INT, MPI_SUM, comm)) return e;
  for (;;) {
    window& now = *window_of(me(), context);
    if (now.applied >= static_cast<std::uint32_t>(incoming) && now.replies_due == 0) {
      now.applied -= static_cast<std::uint32_t>(incoming);
      std::fill(now.sent.begin(), now.sent.end(), 0u);
      break;
    }
    rank::block();
  }
  // Everyone's operations on everyone are done before anyone goes on.
  if (int e = PMPI_Barrier(comm)) return e;
  return report_refused(win, "MPI_Win_fence");
}
ROAM_AMPI_PMPI(Win_fence)

extern "C" int PMPI_Win_lock(int lock_type, int target_rank, int, MPI_Win win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  window* w = check_target(win, target_rank, MPI_BYTE, &err, "MPI_Win_lock");
  if (w == nullptr) return err;
  if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
    return fail(w->comm, MPI_ERR_LOCKTYPE, "MPI_Win_lock", "unknown lock type " + std::to_string(lock_type));
  rank& r = me();
  const std::uint64_t context = w->context;
  const int grants = w->grants;
  rma_header h;
  h.kind = rma_header::lock;
  h.op = lock_type;
  h.context = context;
  send_rma(r, r.comms.at(w->comm).world_of(target_rank), h, *predefined_type(MPI_BYTE), {});
  while (window_of(me(), context)->grants == grants) rank::block();
  window_of(me(), context)->locked[static_cast<std::size_t>(target_rank)] = 1;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Win_lock)

extern "C" int PMPI_Win_unlock(int target_rank, MPI_Win win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  window* w = check_target(win, target_rank, MPI_BYTE, &err, "MPI_Win_unlock");
  if (w == nullptr) return err;
  rank& r = me();
  const std::uint64_t context = w->context;
  const int acks = w->unlock_acks;
  rma_header h;
  h.kind = rma_header::unlock;
  h.context = context;
  w->locked[static_cast<std::size_t>(target_rank)] = 0;
  send_rma(r, r.comms.at(w->comm).world_of(target_rank), h, *predefined_type(MPI_BYTE), {});
  for (;;) {
    window& now = *window_of(me(), context);
    if (now.unlock_acks != acks && now.replies_due == 0) break;
    rank::block();
  }
  return report_refused(win, "MPI_Win_unlock");
}
ROAM_AMPI_PMPI(Win_unlock)

extern "C" int PMPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                        MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return put_or_accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                           target_datatype, MPI_REPLACE, win, rma_header::put, nullptr, "MPI_Put");
}
ROAM_AMPI_PMPI(Put)

extern "C" int PMPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                               int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
                               MPI_Op op, MPI_Win win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (op > MPI_NO_OP)
    return fail(MPI_COMM_WORLD, MPI_ERR_OP, "MPI_Accumulate", "only predefined operations apply one-sided");
  return put_or_accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                           target_datatype, op, win, rma_header::accumulate, nullptr, "MPI_Accumulate");
}
ROAM_AMPI_PMPI(Accumulate)

extern "C" int PMPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                        MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return start_get(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype,
                   win, nullptr, "MPI_Get");
}
ROAM_AMPI_PMPI(Get)

extern "C" int PMPI_Win_get_attr(MPI_Win win, int keyval, void* attribute_val, int* flag) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  window* w = find_window(me(), win);
  if (w == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_WIN, "MPI_Win_get_attr", "invalid window");
  // The values are the window's own fields (they move with the rank).
  *flag = 1;
  switch (keyval) {
    case MPI_WIN_BASE: *static_cast<void**>(attribute_val) = reinterpret_cast<void*>(w->base); break;
    case MPI_WIN_SIZE: *static_cast<MPI_Aint**>(attribute_val) = reinterpret_cast<MPI_Aint*>(&w->size); break;
    case MPI_WIN_DISP_UNIT: *static_cast<int**>(attribute_val) = &w->disp_unit; break;
    case MPI_WIN_CREATE_FLAVOR: *static_cast<int**>(attribute_val) = &w->extra.flavor; break;
    case MPI_WIN_MODEL: {
      // Unified: the window's memory is the target's own memory, which
      // operations write directly (there is no separate public copy).
      static int unified = MPI_WIN_UNIFIED;
      *static_cast<int**>(attribute_val) = &unified;
      break;
    }
    default: {
      auto it = w->attributes.find(keyval);
      if (it == w->attributes.end()) *flag = 0;
      else *static_cast<void**>(attribute_val) = reinterpret_cast<void*>(it->second);
    }
  }
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Win_get_attr)

extern "C" int PMPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  window* w = find_window(me(), win);
  if (w == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_WIN, "MPI_Win_get_group", "invalid window");
  return PMPI_Comm_group(w->comm, group);
}
ROAM_AMPI_PMPI(Win_get_group)

namespace {
// Get_accumulate, Fetch_and_op and Compare_and_swap: an operation whose old
// target value comes back into result_addr.
int fetching(const void* origin_addr, const void* compare_addr, int origin_count, MPI_Datatype origin_datatype,
             void* result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
             int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, rma_header::kind_t kind,
             MPI_Request* request, const char* function) {
  int err = 0;
  if (to_proc_null(win, target_rank, request, &err, function)) return err;
  window* w = check_target(win, target_rank, target_datatype, &err, function);
  if (w == nullptr) return err;
  if (request != nullptr)
    if (int e = check_epoch(win, *w, target_rank, function)) return e;
  rank& r = me();
  const type_info* ot = find_type(r, origin_datatype);
  if (ot == nullptr || find_type(r, result_datatype) == nullptr)
    return fail(w->comm, MPI_ERR_TYPE, function, "invalid origin or result datatype");
  if (op > MPI_NO_OP || op < MPI_MAX) return fail(w->comm, MPI_ERR_OP, function, "only predefined operations apply one-sided");
  const std::int64_t bytes = origin_count * ot->size;
  auto data = roam::buffer<std::byte>::uninitialized(static_cast<std::size_t>(compare_addr ? 2 * bytes : bytes));
  if (op != MPI_NO_OP || compare_addr) pack(*ot, origin_addr, origin_count, data.mutable_data());
  if (compare_addr) pack(*ot, compare_addr, origin_count, data.mutable_data() + bytes);
  rma_header h;
  h.kind = kind;
  h.op = op;
  h.context = w->context;
  h.disp = target_disp;
  h.count = target_count;
  send_with_reply(r, *w, target_rank, h, result_addr, result_count, result_datatype, *find_type(r, target_datatype),
                  std::move(data), request);
  return MPI_SUCCESS;
}

// Waits until the targets acknowledged a flush (every earlier operation
// applied) and every get is answered.
int flush(MPI_Win win, int target_rank, const char* function) {
  rank& r = me();
  window* w = find_window(r, win);
  if (w == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_WIN, function, "invalid window " + std::to_string(win));
  const communicator& c = r.comms.at(w->comm);
  const std::uint64_t context = w->context;
  const int before = w->flush_acks;
  int expected = 0;
  for (int t = 0; t < c.size; ++t) {
    if (target_rank != MPI_ANY_SOURCE && t != target_rank) continue;
    rma_header h;
    h.kind = rma_header::flush;
    h.context = context;
    send_rma(r, c.world_of(t), h, *predefined_type(MPI_BYTE), {});
    ++expected;
  }
  for (;;) {
    window& now = *window_of(me(), context);
    if (now.flush_acks - before >= expected && now.replies_due == 0) return report_refused(win, function);
    rank::block();
  }
}
}  // namespace

extern "C" int PMPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                   void* result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
                                   MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                                   MPI_Win win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return fetching(origin_addr, nullptr, origin_count, origin_datatype, result_addr, result_count, result_datatype,
                  target_rank, target_disp, target_count, target_datatype, op, win, rma_header::get_accumulate,
                  nullptr, "MPI_Get_accumulate");
}
ROAM_AMPI_PMPI(Get_accumulate)

extern "C" int PMPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype, int target_rank,
                                 MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return fetching(origin_addr, nullptr, 1, datatype, result_addr, 1, datatype, target_rank, target_disp, 1, datatype,
                  op, win, rma_header::get_accumulate, nullptr, "MPI_Fetch_and_op");
}
ROAM_AMPI_PMPI(Fetch_and_op)

extern "C" int PMPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                                     MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return fetching(origin_addr, compare_addr, 1, datatype, result_addr, 1, datatype, target_rank, target_disp, 1,
                  datatype, MPI_REPLACE, win, rma_header::compare_swap, nullptr, "MPI_Compare_and_swap");
}
ROAM_AMPI_PMPI(Compare_and_swap)

// ---- request-based operations (passive target only) -----------------------------------
extern "C" int PMPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                         MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                         MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return put_or_accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                           target_datatype, MPI_REPLACE, win, rma_header::put, request, "MPI_Rput");
}
ROAM_AMPI_PMPI(Rput)

extern "C" int PMPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                         MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                         MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return start_get(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype,
                   win, request, "MPI_Rget");
}
ROAM_AMPI_PMPI(Rget)

extern "C" int PMPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
                                MPI_Op op, MPI_Win win, MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (op > MPI_NO_OP)
    return fail(MPI_COMM_WORLD, MPI_ERR_OP, "MPI_Raccumulate", "only predefined operations apply one-sided");
  return put_or_accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                           target_datatype, op, win, rma_header::accumulate, request, "MPI_Raccumulate");
}
ROAM_AMPI_PMPI(Raccumulate)

extern "C" int PMPI_Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                    void* result_addr, int result_count, MPI_Datatype result_datatype,
                                    int target_rank, MPI_Aint target_disp, int target_count,
                                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return fetching(origin_addr, nullptr, origin_count, origin_datatype, result_addr, result_count, result_datatype,
                  target_rank, target_disp, target_count, target_datatype, op, win, rma_header::get_accumulate,
                  request, "MPI_Rget_accumulate");
}
ROAM_AMPI_PMPI(Rget_accumulate)

extern "C" int PMPI_Win_lock_all(int assert, MPI_Win win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  window* w = find_window(me(), win);
  if (w == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_WIN, "MPI_Win_lock_all", "invalid window");
  const int n = me().comms.at(w->comm).size;
  for (int t = 0; t < n; ++t)
    if (int e = PMPI_Win_lock(MPI_LOCK_SHARED, t, assert, win)) return e;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Win_lock_all)

extern "C" int PMPI_Win_unlock_all(MPI_Win win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  window* w = find_window(me(), win);
  if (w == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_WIN, "MPI_Win_unlock_all", "invalid window");
  // Every lock is released even when an unlock reports an error (a
  // refused operation, under MPI_ERRORS_RETURN): the first is returned.
  const int n = me().comms.at(w->comm).size;
  int first = MPI_SUCCESS;
  for (int t = 0; t < n; ++t)
    if (int e = PMPI_Win_unlock(t, win); e != MPI_SUCCESS && first == MPI_SUCCESS) first = e;
  return first;
}
ROAM_AMPI_PMPI(Win_unlock_all)

extern "C" int PMPI_Win_flush(int target_rank, MPI_Win win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (target_rank < 0) return fail(MPI_COMM_WORLD, MPI_ERR_RANK, "MPI_Win_flush", "invalid target rank");
  return flush(win, target_rank, "MPI_Win_flush");
}
ROAM_AMPI_PMPI(Win_flush)

extern "C" int PMPI_Win_flush_all(MPI_Win win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return flush(win, MPI_ANY_SOURCE, "MPI_Win_flush_all");
}
ROAM_AMPI_PMPI(Win_flush_all)

// ---- post/start/complete/wait (PSCW) --------------------------------------------------
// A target's MPI_Win_post sends `post` to each origin of its group; an
// origin's MPI_Win_start waits for the posts of its targets. MPI_Win_complete
// sends `complete` to each target after the origin's operations, on the same
// ordered channel, once its gets have their replies: when a target applies
// a `complete`, everything that origin did in the epoch is applied before it.
// MPI_Win_wait waits for the completes of its exposure group. Operations of
// an access epoch are not counted for MPI_Win_fence.
namespace {

// The world ranks of `group`, which must be ranks of the window's communicator.
int window_group(rank& r, const window& w, MPI_Group group, std::vector<int>* out, const char* function) {
  out->clear();
  if (group == MPI_GROUP_EMPTY) return MPI_SUCCESS;
  auto g = r.groups.find(group);
  if (g == r.groups.end()) return fail(w.comm, MPI_ERR_GROUP, function, "invalid group");
  const communicator& c = r.comms.at(w.comm);
  for (int world : g->second) {
    bool member = false;
    for (int i = 0; i < c.size && !member; ++i) member = c.world_of(i) == world;
    if (!member)
      return fail(w.comm, MPI_ERR_GROUP, function,
                  "world rank " + std::to_string(world) + " of the group is not in the window's communicator");
    out->push_back(world);
  }
  return MPI_SUCCESS;
}

// Whether every rank of `from` has one unconsumed message in `have`; if so,
// consumes them.
bool take_one_each(std::map<int, int>& have, const std::vector<int>& from) {
  for (int w : from)
    if (have[w] < 1) return false;
  for (int w : from) --have[w];
  return true;
}

}  // namespace

extern "C" int PMPI_Win_post(MPI_Group group, int, MPI_Win win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  window* w = find_window(r, win);
  if (w == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_WIN, "MPI_Win_post", "invalid window " + std::to_string(win));
  if (!w->exposure_group.empty())
    return fail(w->comm, MPI_ERR_RMA_SYNC, "MPI_Win_post", "the window is already exposed (MPI_Win_wait first)");
  std::vector<int> origins;
  if (int e = window_group(r, *w, group, &origins, "MPI_Win_post")) return e;
  rma_header h;
  h.kind = rma_header::post;
  h.context = w->context;
  h.fenced = 0;
  for (int world : origins) send_rma(r, world, h, *predefined_type(MPI_BYTE), {});
  w->exposure_group = std::move(origins);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Win_post)

extern "C" int PMPI_Win_start(MPI_Group group, int, MPI_Win win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  window* w = find_window(r, win);
  if (w == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_WIN, "MPI_Win_start", "invalid window " + std::to_string(win));
  if (w->accessing) return fail(w->comm, MPI_ERR_RMA_SYNC, "MPI_Win_start", "an access epoch is open (MPI_Win_complete first)");
  std::vector<int> targets;
  if (int e = window_group(r, *w, group, &targets, "MPI_Win_start")) return e;
  const std::uint64_t context = w->context;
  while (!take_one_each(window_of(me(), context)->posts_from, targets)) rank::block();
  window& now = *window_of(me(), context);
  now.access_group = std::move(targets);
  now.accessing = true;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Win_start)

extern "C" int PMPI_Win_complete(MPI_Win win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  window* w = find_window(r, win);
  if (w == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_WIN, "MPI_Win_complete", "invalid window " + std::to_string(win));
  if (!w->accessing) return fail(w->comm, MPI_ERR_RMA_SYNC, "MPI_Win_complete", "no access epoch (MPI_Win_start first)");
  const std::uint64_t context = w->context;
  while (window_of(me(), context)->replies_due != 0) rank::block();
  window& now = *window_of(me(), context);
  rma_header h;
  h.kind = rma_header::complete;
  h.context = context;
  h.fenced = 0;
  for (int world : now.access_group) send_rma(me(), world, h, *predefined_type(MPI_BYTE), {});
  now.access_group.clear();
  now.accessing = false;
  return report_refused(win, "MPI_Win_complete");
}
ROAM_AMPI_PMPI(Win_complete)

extern "C" int PMPI_Win_wait(MPI_Win win) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  window* w = find_window(r, win);
  if (w == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_WIN, "MPI_Win_wait", "invalid window " + std::to_string(win));
  const std::uint64_t context = w->context;
  for (;;) {
    window& now = *window_of(me(), context);
    if (take_one_each(now.completes_from, now.exposure_group)) break;
    rank::block();
  }
  window_of(me(), context)->exposure_group.clear();
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Win_wait)

extern "C" int PMPI_Win_test(MPI_Win win, int* flag) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  window* w = find_window(r, win);
  if (w == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_WIN, "MPI_Win_test", "invalid window " + std::to_string(win));
  const std::uint64_t context = w->context;
  if (!take_one_each(w->completes_from, w->exposure_group)) {
    roam::this_thread_yield();  // let the completes in (the program may poll in a loop)
    window& now = *window_of(me(), context);
    if (!take_one_each(now.completes_from, now.exposure_group)) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  window_of(me(), context)->exposure_group.clear();
  *flag = 1;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Win_test)

extern "C" int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  window* w = find_window(me(), win);
  if (w == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_WIN, "MPI_Win_set_errhandler", "invalid window");
  // A window's errors are reported on its own communicator.
  return PMPI_Comm_set_errhandler(w->comm, errhandler);
}
ROAM_AMPI_PMPI(Win_set_errhandler)

extern "C" int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  window* w = find_window(me(), win);
  if (w == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_WIN, "MPI_Win_get_errhandler", "invalid window");
  return PMPI_Comm_get_errhandler(w->comm, errhandler);
}
ROAM_AMPI_PMPI(Win_get_errhandler)
