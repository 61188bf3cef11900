// Point-to-point: sends (eager: the bytes travel at once; a synchronous
// send completes when the receiver matched it), receives matched in MPI's
// order, requests and their completion, probes.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>

#include "api.hpp"

namespace roam::ampi {
namespace {

bool matches(std::uint64_t context, int source, int tag, const envelope& e) noexcept {
  return e.context == context && (source == MPI_ANY_SOURCE || source == e.source) && (tag == MPI_ANY_TAG || tag == e.tag);
}

// Lets the PE deliver what is queued for it: a poll that found nothing
// (MPI_Test, MPI_Iprobe) must not keep the PE from receiving.
void let_messages_in() { this_thread_yield(); }

}  // namespace

int rank::new_request() {
  if (!free_requests.empty()) {
    const int h = free_requests.back();
    free_requests.pop_back();
    req(h) = request_record{};
    return h;
  }
  requests.emplace_back();
  return static_cast<int>(requests.size());
}

void rank::release_request(int handle) {
  req(handle) = request_record{};
  free_requests.push_back(handle);
  if (!freed_types.empty()) sweep_freed_types();
}

void rank::sweep_freed_types() {
  for (auto it = freed_types.begin(); it != freed_types.end();) {
    const int t = *it;
    const bool used =
        std::any_of(requests.begin(), requests.end(),
                    [t](const request_record& q) { return q.what != request_record::kind::none && q.datatype == t; }) ||
        std::any_of(jobs.begin(), jobs.end(), [t](const auto& j) { return j.second.sendtype == t || j.second.recvtype == t; });
    if (used) {
      ++it;
      continue;
    }
    it = freed_types.erase(it);
    drop_type(t);
  }
}

bool rank::type_is_a_part(int t) const {
  return std::any_of(types.begin(), types.end(), [t](const auto& other) {
    const auto& parts = other.second.contents.types;
    return other.first != t && std::find(parts.begin(), parts.end(), t) != parts.end();
  });
}

void rank::drop_type(int t) {
  // A freed type stays while a type built from it lives (MPI_Type_get_contents
  // gives it back): held, out of freed_types, so that completions do not
  // look at it again; it goes with the last type built from it.
  if (type_is_a_part(t)) {
    held_types.insert(t);
    return;
  }
  const std::vector<int> parts = types.at(t).contents.types;
  types.erase(t);
  type_names.erase(t);
  reusable_types.push_back(t);
  for (int part : parts)
    if (held_types.count(part) != 0 && !type_is_a_part(part)) {
      held_types.erase(part);
      drop_type(part);
    }
}

void rank::deliver(envelope env, buffer<std::byte> data) { arrive(arrived{env, std::move(data), {}}); }

void rank::arrive(arrived&& m) {
  const int from = m.env.from_world;
  std::uint32_t& next = expected_from[from];
  if (m.env.seq != next) {  // it overtook an earlier one from the same sender
    const std::uint32_t seq = m.env.seq;
    early.emplace(std::pair{from, seq}, std::move(m));
    return;
  }
  accept(std::move(m));
  ++next;
  drain_early(from);
  notify();
}

void rank::drain_early(int from) {
  std::uint32_t& next = expected_from[from];
  for (auto it = early.find({from, next}); it != early.end(); it = early.find({from, next})) {
    arrived m = std::move(it->second);
    early.erase(it);
    accept(std::move(m));
    ++next;
  }
}

bool rank::deliver_direct(const envelope& env, const type_info& st, const void* buf, std::int64_t count) {
  auto expected = expected_from.find(env.from_world);
  if (env.seq != (expected == expected_from.end() ? 0u : expected->second)) return false;
  for (auto it = posted.begin(); it != posted.end(); ++it) {
    request_record& q = req(*it);
    if (!matches(q.context, q.peer, q.tag, env)) continue;
    if (q.raw) return false;
    const type_info* rt = q.datatype < first_derived_type ? predefined_type(q.datatype) : nullptr;
    if (rt == nullptr) {
      auto t = types.find(q.datatype);
      if (t == types.end()) return false;
      rt = &t->second;
    }
    const std::int64_t bytes = count * st.size;
    if (bytes > static_cast<std::int64_t>(q.count) * rt->size) return false;  // truncation: the general path
    if (rt->contiguous()) pack(st, buf, count, reinterpret_cast<std::byte*>(q.buf));
    else if (st.contiguous()) unpack(*rt, static_cast<const std::byte*>(buf), bytes, reinterpret_cast<void*>(q.buf), q.count);
    else return false;
    const int handle = *it;
    posted.erase(it);
    q.posted = false;
    q.complete = true;
    q.status_source = env.source;
    q.status_tag = env.tag;
    q.status_error = MPI_SUCCESS;
    q.bytes = bytes;
    if (env.sync_request != 0) this_array()[env.from_world].send<&rank::acknowledge>(env.sync_request);
    if (q.freed) release_request(handle);
    ++expected_from[env.from_world];
    drain_early(env.from_world);
    notify();
    return true;
  }
  return false;
}

void rank::accept(arrived&& m) {
  if (!try_match_posted(m)) unexpected.push_back(std::move(m));
}

bool rank::try_match_posted(arrived& m) {
  for (auto it = posted.begin(); it != posted.end(); ++it) {
    request_record& q = req(*it);
    if (!matches(q.context, q.peer, q.tag, m.env)) continue;
    const int handle = *it;
    posted.erase(it);
    q.posted = false;
    complete_receive(q, m);
    if (q.freed && q.complete) release_request(handle);
    return true;
  }
  return false;
}

namespace {
// Unpacks `size` packed bytes into the receive `q` (its buffer, count and
// datatype), truncating to what it holds.
void land(rank& r, request_record& q, const std::byte* bytes, std::int64_t size) {
  const type_info* t = q.datatype < first_derived_type ? predefined_type(q.datatype) : nullptr;
  if (t == nullptr) {
    auto it = r.types.find(q.datatype);
    if (it == r.types.end()) {
      q.status_error = MPI_ERR_TYPE;
      return;
    }
    t = &it->second;
  }
  const auto capacity = static_cast<std::int64_t>(q.count) * t->size;
  const auto n = std::min<std::int64_t>(capacity, size);
  unpack(*t, bytes, n, reinterpret_cast<void*>(q.buf), q.count);
  if (size > capacity) {
    q.status_error = MPI_ERR_TRUNCATE;
    q.bytes = n;
  }
}
}  // namespace

namespace {
// Copies a loan made by another process of this host straight into the
// receive `q` (into its buffer when the type is contiguous, else through a
// temporary); false when the lender's memory cannot be read.
bool read_loan(rank& r, request_record& q, const loan& l) {
  if (q.raw) {
    auto bytes = buffer<std::byte>::uninitialized(static_cast<std::size_t>(l.bytes));
    if (!read_process_memory(l.pid, l.domain, l.address, bytes.mutable_data(), l.bytes)) return false;
    q.kept = std::move(bytes);
    return true;
  }
  const type_info* t = find_type(r, q.datatype);
  if (t == nullptr) {
    q.status_error = MPI_ERR_TYPE;
    return true;
  }
  const auto capacity = static_cast<std::int64_t>(q.count) * t->size;
  const auto n = std::min<std::int64_t>(capacity, l.bytes);
  if (t->contiguous()) {
    if (!read_process_memory(l.pid, l.domain, l.address, reinterpret_cast<void*>(q.buf), n)) return false;
  } else {
    std::vector<std::byte> staged(static_cast<std::size_t>(n));
    if (!read_process_memory(l.pid, l.domain, l.address, staged.data(), n)) return false;
    unpack(*t, staged.data(), n, reinterpret_cast<void*>(q.buf), q.count);
  }
  if (l.bytes > capacity) {
    q.status_error = MPI_ERR_TRUNCATE;
    q.bytes = n;
  }
  return true;
}
}  // namespace

void rank::complete_receive(request_record& q, const arrived& m) {
  q.status_source = m.env.source;
  q.status_tag = m.env.tag;
  q.status_error = MPI_SUCCESS;
  q.bytes = m.size();
  const loan& l = m.lent;
  if (l.address != 0 && l.process != process_token()) {
    // Lent by another process: read it when this host allows (one copy);
    // else, or when this rank moved to another host since, ask the sender
    // for the bytes.
    if (read_loan(*this, q, l)) {
      count_loan(loan_served::read_across);
    } else {
      count_loan(loan_served::pulled);
      q.awaiting_push = true;
      const int handle = static_cast<int>(&q - requests.data()) + 1;
      this_array()[m.env.from_world].send<&rank::pull>(m.env.sync_request, this_index()[0], handle,
                                                         cross_process_reads_refused());
      return;
    }
  } else if (q.raw) {
    if (l.address) count_loan(loan_served::in_process);
    q.kept = l.address ? buffer<std::byte>(std::span<const std::byte>(reinterpret_cast<const std::byte*>(l.address),
                                                                       static_cast<std::size_t>(l.bytes)))
                       : m.data;
  } else if (l.address) {
    count_loan(loan_served::in_process);
    land(*this, q, reinterpret_cast<const std::byte*>(l.address), l.bytes);
  } else {
    land(*this, q, m.data.data(), static_cast<std::int64_t>(m.data.size()));
  }
  q.complete = true;
  // After the copy: the acknowledgement gives a lent buffer back.
  if (m.env.sync_request != 0) this_array()[m.env.from_world].send<&rank::acknowledge>(m.env.sync_request);
}

// ---- Lent messages ----------------------------------------------------------------
// A large blocking send to a rank of this process on another PE, or of
// another process on this host, does not pack: the sender lends the address
// of its (contiguous) buffer and stays blocked in the call; the receiver's
// PE copies from it straight into the receive (in another process with one
// process_vm_readv) and acknowledges, which ends the send. One copy instead
// of two (pack, unpack) in a process, instead of four (pack, the socket's
// two, unpack) between processes. If the receiver cannot read the address
// (it moved to another host in AMPI_Migrate with the message queued, or
// this host refuses cross-process reads), it pulls the bytes and the sender
// pushes them as a buffer.

std::uint64_t process_token() {
  static const std::uint64_t token = [] {
    std::random_device entropy;
    return (static_cast<std::uint64_t>(entropy()) << 32 ^ entropy() ^ static_cast<std::uint64_t>(::getpid()) << 16) | 1;
  }();
  return token;
}

namespace {
// Set once a receiver said it cannot read this process: loans then stay in
// the process.
std::atomic<bool> peers_cannot_read{false};
}  // namespace

bool may_lend_across_processes() { return !peers_cannot_read.load(std::memory_order_relaxed) && memory_domain() != 0; }

void rank::deliver_lent(envelope env, loan lent) { arrive(arrived{env, {}, lent}); }

void rank::pull(int send_request, int to_world, int recv_request, bool reads_refused) {
  if (reads_refused) peers_cannot_read.store(true, std::memory_order_relaxed);
  request_record& s = req(send_request);
  const type_info* t = find_type(*this, s.datatype);
  this_array()[to_world].send<&rank::pushed>(recv_request, packed(reinterpret_cast<const void*>(s.buf), s.count, *t));
  acknowledge(send_request);
}

void rank::pushed(int recv_request, buffer<std::byte> data) {
  request_record& q = req(recv_request);
  q.awaiting_push = false;
  q.complete = true;
  if (q.raw) q.kept = std::move(data);
  else land(*this, q, data.data(), static_cast<std::int64_t>(data.size()));
  if (q.freed) release_request(recv_request);
  notify();
}

void rank::acknowledge(int handle) {
  if (handle <= 0 || static_cast<std::size_t>(handle) > requests.size()) return;
  req(handle).complete = true;
  notify();
}

envelope make_envelope(rank& r, const communicator& c, std::uint64_t context, int dest, int tag,
                       int synchronous_request) {
  envelope e;
  e.context = context;
  e.source = c.my_rank;
  e.tag = tag;
  e.from_world = r.this_index()[0];
  e.seq = r.sent_to[c.world_of(dest)]++;
  e.sync_request = synchronous_request;
  return e;
}

void send_packed(rank& r, const communicator& c, std::uint64_t context, int dest, int tag, buffer<std::byte> data,
                 int synchronous_request) {
  const envelope e = make_envelope(r, c, context, dest, tag, synchronous_request);
  const int to = c.world_of(dest);
  // A rank on this PE gets it now, without a trip through the scheduler.
  if (rank* d = r.this_array()[to].local()) d->deliver(e, std::move(data));
  else r.this_array()[to].send<&rank::deliver>(e, std::move(data));
}

void post_receive(rank& r, int handle) {
  request_record& q = r.req(handle);
  for (auto it = r.unexpected.begin(); it != r.unexpected.end(); ++it) {
    if (!matches(q.context, q.peer, q.tag, it->env)) continue;
    arrived m = std::move(*it);
    r.unexpected.erase(it);
    r.complete_receive(q, m);
    return;
  }
  q.posted = true;
  r.posted.push_back(handle);
}

void wait_for(int handle) {
  while (!me().req(handle).complete) rank::block();
}

void fill_status(const request_record& q, MPI_Status* status) noexcept {
  if (status == MPI_STATUS_IGNORE) return;
  if (q.what == request_record::kind::send || q.what == request_record::kind::collective) {
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    status->MPI_LENGTH = 0;
    status->MPI_ERROR = q.what == request_record::kind::send ? MPI_SUCCESS : q.status_error;
  } else {
    status->MPI_SOURCE = q.status_source;
    status->MPI_TAG = q.status_tag;
    status->MPI_LENGTH = q.bytes;
    status->MPI_ERROR = q.status_error;
    status->MPI_COMM = q.comm;
  }
  status->roam_cancelled = q.cancelled;
}

int check_buffer_args(rank& r, int comm, int count, int datatype, const char* function) {
  const communicator* c = find_comm(r, comm);
  if (c == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_COMM, function, "invalid communicator " + std::to_string(comm));
  if (count < 0) return fail(comm, MPI_ERR_COUNT, function, "negative count " + std::to_string(count));
  const type_info* t = find_type(r, datatype);
  if (t == nullptr) return fail(comm, MPI_ERR_TYPE, function, "invalid datatype " + std::to_string(datatype));
  if (!t->committed) return fail(comm, MPI_ERR_TYPE, function, "datatype " + std::to_string(datatype) + " is not committed");
  return MPI_SUCCESS;
}

namespace {
struct coll_context {
  int depth = 0;
  std::uint32_t base = 0;
};
thread_private<coll_context> g_coll;  // per thread: a rank's own, or a non-blocking collective's
}  // namespace

std::uint32_t next_coll_base(int comm) {
  communicator* c = find_comm(me(), comm);
  return c ? (c->collectives++ & 0x3ffffffu) << 5 : 0;
}

coll_scope::coll_scope(int comm) {
  coll_context& c = *g_coll;
  if (c.depth++ == 0) c.base = next_coll_base(comm);
}

coll_scope::~coll_scope() { --g_coll->depth; }

void adopt_coll_base(std::uint32_t base) {
  coll_context& c = *g_coll;
  c.depth = 1;
  c.base = base;
}

void coll_send(int comm, int dest, int kind, buffer<std::byte> data) {
  const int tag = static_cast<int>(g_coll->base) + kind;
  rank& r = me();
  const communicator& c = r.comms.at(comm);
  send_packed(r, c, c.context + 1, dest, tag, std::move(data), 0);
}

buffer<std::byte> coll_recv(int comm, int source, int kind) {
  const int tag = static_cast<int>(g_coll->base) + kind;
  int h = 0;
  {
    rank& r = me();
    h = r.new_request();
    request_record& q = r.req(h);
    q.what = request_record::kind::recv;
    q.raw = true;
    q.active = true;
    q.peer = source;
    q.tag = tag;
    q.comm = comm;
    q.context = r.comms.at(comm).context + 1;
    post_receive(r, h);
  }
  wait_for(h);
  rank& r = me();
  buffer<std::byte> out = std::move(r.req(h).kept);
  r.release_request(h);
  return out;
}

}  // namespace roam::ampi

using namespace roam::ampi;

namespace {

// Sends of this many bytes or more to a rank of this process on another PE
// are lent rather than packed, when the caller waits for them in the call.
constexpr std::int64_t lend_threshold = 64 * 1024;

// Whether a rank last seen on `pe` can read this process's memory: in this
// process, or in another of this host when peers may read each other.
bool may_lend_to(roam::pe_id pe) {
  const roam::node_id node{process_of_pe(pe.value())};
  return node == roam::my_node() || (roam::shares_host(node) && may_lend_across_processes());
}

// The common part of every send: checks, packing, the request. With
// `may_lend` (the caller waits for the request before returning) a large
// message to another PE of this process is lent (see "Lent messages").
int start_send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, bool sync,
               int handle, const char* function, bool may_lend = false) {
  rank& r = me();
  if (int e = check_buffer_args(r, comm, count, datatype, function)) return e;
  const communicator& c = *find_comm(r, comm);
  if (dest == MPI_PROC_NULL) {
    if (handle) r.req(handle).complete = true;
    return MPI_SUCCESS;
  }
  if (dest < 0 || dest >= c.peer_size())
    return fail(comm, MPI_ERR_RANK, function,
                "destination " + std::to_string(dest) + " is not a rank of a communicator of size " + std::to_string(c.peer_size()));
  if (tag < 0) return fail(comm, MPI_ERR_TAG, function, "negative tag " + std::to_string(tag));
  const type_info& t = *find_type(r, datatype);
  if (handle) {
    request_record& q = r.req(handle);
    q.complete = !sync;
    q.synchronous = sync;
  }
  const int to = c.world_of(dest);
  const auto target = r.this_array()[to];
  if (rank* d = target.local()) {
    // The receiver is on this PE: one copy straight into its posted receive
    // when there is one, else its queue, without the scheduler.
    const envelope e = make_envelope(r, c, c.context, dest, tag, sync ? handle : 0);
    if (d->deliver_direct(e, t, buf, count)) return MPI_SUCCESS;
    d->deliver(e, packed(buf, count, t));
    return MPI_SUCCESS;
  }
  const std::int64_t bytes = count * t.size;
  if (may_lend && handle != 0 && bytes >= lend_threshold && t.contiguous() && may_lend_to(target.last_known_pe())) {
    request_record& q = r.req(handle);
    q.complete = false;  // until the receiver has copied the bytes
    q.synchronous = true;
    const envelope e = make_envelope(r, c, c.context, dest, tag, handle);
    const loan l{reinterpret_cast<std::uint64_t>(buf), process_token(), memory_domain(), ::getpid(), bytes};
    target.send<&rank::deliver_lent>(e, l);
    return MPI_SUCCESS;
  }
  send_packed(r, c, c.context, dest, tag, packed(buf, count, t), sync ? handle : 0);
  return MPI_SUCCESS;
}

int new_send_request(int comm, int dest, int tag, bool sync, const void* buf, int count, MPI_Datatype datatype,
                     bool persistent) {
  rank& r = me();
  const int h = r.new_request();
  request_record& q = r.req(h);
  q.what = request_record::kind::send;
  q.persistent = persistent;
  q.active = !persistent;
  q.complete = persistent;  // an inactive persistent request counts as complete
  q.synchronous = sync;
  q.buf = reinterpret_cast<std::uint64_t>(buf);
  q.count = count;
  q.datatype = datatype;
  q.peer = dest;
  q.tag = tag;
  q.comm = comm;
  return h;
}

int new_recv_request(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, bool persistent) {
  rank& r = me();
  const int h = r.new_request();
  request_record& q = r.req(h);
  q.what = request_record::kind::recv;
  q.persistent = persistent;
  q.active = !persistent;
  q.complete = persistent;
  q.buf = reinterpret_cast<std::uint64_t>(buf);
  q.count = count;
  q.datatype = datatype;
  q.peer = source;
  q.tag = tag;
  q.comm = comm;
  q.context = r.comms.at(comm).context;
  return h;
}

int check_recv(rank& r, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, const char* function) {
  if (int e = check_buffer_args(r, comm, count, datatype, function)) return e;
  const communicator& c = *find_comm(r, comm);
  if (source != MPI_ANY_SOURCE && source != MPI_PROC_NULL && (source < 0 || source >= c.peer_size()))
    return fail(comm, MPI_ERR_RANK, function,
                "source " + std::to_string(source) + " is not a rank of a communicator of size " + std::to_string(c.peer_size()));
  if (tag < 0 && tag != MPI_ANY_TAG) return fail(comm, MPI_ERR_TAG, function, "invalid tag " + std::to_string(tag));
  return MPI_SUCCESS;
}

void proc_null_status(MPI_Status* status) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = MPI_PROC_NULL;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = MPI_SUCCESS;
  status->MPI_LENGTH = 0;
  status->roam_cancelled = 0;
}

int isend_mode(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request, bool sync, const char* function, bool may_lend = false) {
  if (int e = check_buffer_args(me(), comm, count, datatype, function)) return e;
  const int h = new_send_request(comm, dest, tag, sync, buf, count, datatype, false);
  if (int e = start_send(buf, count, datatype, dest, tag, comm, sync, h, function, may_lend)) {
    me().release_request(h);
    return e;
  }
  *request = h;
  return MPI_SUCCESS;
}

// A blocking send. A buffered one never waits for its receiver; the others
// may, when their message is lent.
int send_mode(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, bool sync,
              const char* function, bool buffered = false) {
  if (!sync) {
    const type_info* t = find_type(me(), datatype);
    if (buffered || t == nullptr || count * t->size < lend_threshold)
      return start_send(buf, count, datatype, dest, tag, comm, false, 0, function);
  }
  MPI_Request h = MPI_REQUEST_NULL;
  if (int e = isend_mode(buf, count, datatype, dest, tag, comm, &h, sync, function, true)) return e;
  return PMPI_Wait(&h, MPI_STATUS_IGNORE);
}

// Completes a finished request for the caller: status, and the handle set
// to MPI_REQUEST_NULL unless persistent (which becomes inactive).
int finish(MPI_Request* handle, MPI_Status* status) {
  rank& r = me();
  request_record& q = r.req(*handle);
  if (q.what == request_record::kind::generalized) return finish_generalized(handle, status);  // grequest.cpp
  fill_status(q, status);
  const int err = q.status_error;
  if (q.persistent) {
    q.active = false;
  } else {
    if (q.what == request_record::kind::collective) forget_job(q.peer);
    r.release_request(*handle);
    *handle = MPI_REQUEST_NULL;
  }
  return err;
}

bool valid_request(rank& r, MPI_Request h) { return h > 0 && static_cast<std::size_t>(h) <= r.requests.size() && r.req(h).what != request_record::kind::none; }

// Null and inactive requests are "complete with an empty status".
bool is_inert(rank& r, MPI_Request h) { return h == MPI_REQUEST_NULL || (r.req(h).persistent && !r.req(h).active); }

void empty_status(MPI_Status* status) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = MPI_SUCCESS;
  status->MPI_LENGTH = 0;
  status->roam_cancelled = 0;
}

int check_requests(int count, MPI_Request* reqs, const char* function) {
  rank& r = me();
  for (int i = 0; i < count; ++i)
    if (reqs[i] != MPI_REQUEST_NULL && !valid_request(r, reqs[i]))
      return fail(MPI_COMM_WORLD, MPI_ERR_REQUEST, function, "invalid request " + std::to_string(reqs[i]));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return send_mode(buf, count, datatype, dest, tag, comm, false, "MPI_Send");
}
ROAM_AMPI_PMPI(Send)
extern "C" int PMPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return send_mode(buf, count, datatype, dest, tag, comm, false, "MPI_Bsend", true);
}
ROAM_AMPI_PMPI(Bsend)
extern "C" int PMPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return send_mode(buf, count, datatype, dest, tag, comm, false, "MPI_Rsend");
}
ROAM_AMPI_PMPI(Rsend)
extern "C" int PMPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return send_mode(buf, count, datatype, dest, tag, comm, true, "MPI_Ssend");
}
ROAM_AMPI_PMPI(Ssend)

extern "C" int PMPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                          MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return isend_mode(buf, count, datatype, dest, tag, comm, request, false, "MPI_Isend");
}
ROAM_AMPI_PMPI(Isend)
extern "C" int PMPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                           MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return isend_mode(buf, count, datatype, dest, tag, comm, request, false, "MPI_Ibsend");
}
ROAM_AMPI_PMPI(Ibsend)
extern "C" int PMPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                           MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return isend_mode(buf, count, datatype, dest, tag, comm, request, false, "MPI_Irsend");
}
ROAM_AMPI_PMPI(Irsend)
extern "C" int PMPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                           MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return isend_mode(buf, count, datatype, dest, tag, comm, request, true, "MPI_Issend");
}
ROAM_AMPI_PMPI(Issend)

extern "C" int PMPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                          MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  if (int e = check_recv(r, count, datatype, source, tag, comm, "MPI_Irecv")) return e;
  const int h = new_recv_request(buf, count, datatype, source, tag, comm, false);
  if (source == MPI_PROC_NULL) {
    request_record& q = r.req(h);
    q.complete = true;
    q.status_source = MPI_PROC_NULL;
    q.status_tag = MPI_ANY_TAG;
  } else {
    post_receive(r, h);
  }
  *request = h;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Irecv)

extern "C" int PMPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                         MPI_Status* status) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (source == MPI_PROC_NULL) {
    if (int e = check_recv(me(), count, datatype, source, tag, comm, "MPI_Recv")) return e;
    proc_null_status(status);
    return MPI_SUCCESS;
  }
  MPI_Request h = MPI_REQUEST_NULL;
  if (int e = PMPI_Irecv(buf, count, datatype, source, tag, comm, &h)) return e;
  wait_for(h);
  const int err = finish(&h, status);
  if (err != MPI_SUCCESS) return fail(comm, err, "MPI_Recv", "the message is longer than the receive buffer");
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Recv)

extern "C" int PMPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                              MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (int e = check_buffer_args(me(), comm, count, datatype, "MPI_Send_init")) return e;
  *request = new_send_request(comm, dest, tag, false, buf, count, datatype, true);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Send_init)
extern "C" int PMPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                               MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (int e = check_buffer_args(me(), comm, count, datatype, "MPI_Ssend_init")) return e;
  *request = new_send_request(comm, dest, tag, true, buf, count, datatype, true);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Ssend_init)
extern "C" int PMPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                              MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (int e = check_recv(me(), count, datatype, source, tag, comm, "MPI_Recv_init")) return e;
  *request = new_recv_request(buf, count, datatype, source, tag, comm, true);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Recv_init)

extern "C" int PMPI_Start(MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  if (!valid_request(r, *request) || !r.req(*request).persistent)
    return fail(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Start", "not a persistent request");
  request_record& q = r.req(*request);
  if (q.active) return fail(q.comm, MPI_ERR_REQUEST, "MPI_Start", "the request is already active");
  q.active = true;
  q.complete = false;
  q.cancelled = false;
  q.status_error = MPI_SUCCESS;
  if (q.what == request_record::kind::send) {
    const request_record copy = q;
    return start_send(reinterpret_cast<const void*>(copy.buf), copy.count, copy.datatype, copy.peer, copy.tag,
                      copy.comm, copy.synchronous, *request, "MPI_Start");
  }
  if (q.peer == MPI_PROC_NULL) {
    q.complete = true;
    q.status_source = MPI_PROC_NULL;
    q.status_tag = MPI_ANY_TAG;
    q.bytes = 0;
    return MPI_SUCCESS;
  }
  q.context = r.comms.at(q.comm).context;
  post_receive(r, *request);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Start)

extern "C" int PMPI_Startall(int count, MPI_Request reqs[]) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  for (int i = 0; i < count; ++i)
    if (int e = PMPI_Start(&reqs[i])) return e;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Startall)

extern "C" int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  if (is_inert(r, *request)) {
    empty_status(status);
    return MPI_SUCCESS;
  }
  if (int e = check_requests(1, request, "MPI_Wait")) return e;
  wait_for(*request);
  return finish(request, status);
}
ROAM_AMPI_PMPI(Wait)

extern "C" int PMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  if (is_inert(r, *request)) {
    *flag = 1;
    empty_status(status);
    return MPI_SUCCESS;
  }
  if (int e = check_requests(1, request, "MPI_Test")) return e;
  if (!r.req(*request).complete) let_messages_in();
  *flag = me().req(*request).complete;
  return *flag ? finish(request, status) : MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Test)

extern "C" int PMPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[]) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (int e = check_requests(count, reqs, "MPI_Waitall")) return e;
  int err = MPI_SUCCESS;
  for (int i = 0; i < count; ++i) {
    MPI_Status* s = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
    const int e = PMPI_Wait(&reqs[i], s);
    if (e != MPI_SUCCESS) err = MPI_ERR_IN_STATUS;
  }
  return err;
}
ROAM_AMPI_PMPI(Waitall)

extern "C" int PMPI_Testall(int count, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (int e = check_requests(count, reqs, "MPI_Testall")) return e;
  auto all_done = [&] {
    rank& r = me();
    for (int i = 0; i < count; ++i)
      if (!is_inert(r, reqs[i]) && !r.req(reqs[i]).complete) return false;
    return true;
  };
  if (!all_done()) let_messages_in();
  *flag = all_done();
  if (*flag) return PMPI_Waitall(count, reqs, statuses);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Testall)

extern "C" int PMPI_Waitany(int count, MPI_Request reqs[], int* index, MPI_Status* status) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (int e = check_requests(count, reqs, "MPI_Waitany")) return e;
  for (;;) {
    rank& r = me();
    bool any_active = false;
    for (int i = 0; i < count; ++i) {
      if (is_inert(r, reqs[i])) continue;
      any_active = true;
      if (r.req(reqs[i]).complete) {
        *index = i;
        return finish(&reqs[i], status);
      }
    }
    if (!any_active) {
      *index = MPI_UNDEFINED;
      empty_status(status);
      return MPI_SUCCESS;
    }
    rank::block();
  }
}
ROAM_AMPI_PMPI(Waitany)

extern "C" int PMPI_Testany(int count, MPI_Request reqs[], int* index, int* flag, MPI_Status* status) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (int e = check_requests(count, reqs, "MPI_Testany")) return e;
  for (int round = 0; round < 2; ++round) {
    rank& r = me();
    bool any_active = false;
    for (int i = 0; i < count; ++i) {
      if (is_inert(r, reqs[i])) continue;
      any_active = true;
      if (r.req(reqs[i]).complete) {
        *index = i;
        *flag = 1;
        return finish(&reqs[i], status);
      }
    }
    if (!any_active) {
      *index = MPI_UNDEFINED;
      *flag = 1;
      empty_status(status);
      return MPI_SUCCESS;
    }
    if (round == 0) let_messages_in();
  }
  *flag = 0;
  *index = MPI_UNDEFINED;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Testany)

namespace {
int some(int incount, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[], bool block) {
  for (int round = 0;; ++round) {
    rank& r = me();
    bool any_active = false;
    int n = 0;
    int err = MPI_SUCCESS;
    for (int i = 0; i < incount; ++i) {
      if (is_inert(r, reqs[i])) continue;
      any_active = true;
      if (!me().req(reqs[i]).complete) continue;
      indices[n] = i;
      if (finish(&reqs[i], statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[n]) != MPI_SUCCESS)
        err = MPI_ERR_IN_STATUS;
      ++n;
    }
    if (!any_active) {
      *outcount = MPI_UNDEFINED;
      return MPI_SUCCESS;
    }
    if (n > 0 || (!block && round > 0)) {
      *outcount = n;
      return err;
    }
    if (block) rank::block();
    else let_messages_in();
  }
}
}  // namespace

extern "C" int PMPI_Waitsome(int incount, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (int e = check_requests(incount, reqs, "MPI_Waitsome")) return e;
  return some(incount, reqs, outcount, indices, statuses, true);
}
ROAM_AMPI_PMPI(Waitsome)

extern "C" int PMPI_Testsome(int incount, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (int e = check_requests(incount, reqs, "MPI_Testsome")) return e;
  return some(incount, reqs, outcount, indices, statuses, false);
}
ROAM_AMPI_PMPI(Testsome)

extern "C" int PMPI_Request_free(MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  if (!valid_request(r, *request)) return fail(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Request_free", "invalid request");
  if (r.req(*request).what == request_record::kind::generalized) return free_generalized(request);  // grequest.cpp
  request_record& q = r.req(*request);
  if ((q.what == request_record::kind::recv || q.what == request_record::kind::collective ||
       q.what == request_record::kind::rma) && q.active && !q.complete) {
    // A receive still pending keeps its slot: the message will land in the
    // buffer and the request is then dropped.
    q.persistent = false;
    q.freed = true;
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
  }
  if (q.what == request_record::kind::collective) forget_job(q.peer);
  r.release_request(*request);
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Request_free)

extern "C" int PMPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  if (is_inert(r, request)) {
    *flag = 1;
    empty_status(status);
    return MPI_SUCCESS;
  }
  if (!valid_request(r, request)) return fail(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Request_get_status", "invalid request");
  if (r.req(request).what == request_record::kind::generalized) return generalized_status(request, flag, status);  // grequest.cpp
  if (!r.req(request).complete) let_messages_in();
  const request_record& q = me().req(request);
  *flag = q.complete;
  if (q.complete) fill_status(q, status);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Request_get_status)

extern "C" int PMPI_Cancel(MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  if (!valid_request(r, *request)) return fail(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Cancel", "invalid request");
  if (r.req(*request).what == request_record::kind::generalized) return cancel_generalized(*request);  // grequest.cpp
  request_record& q = r.req(*request);
  if (q.what == request_record::kind::recv && q.posted && !q.complete) {
    r.posted.erase(std::find(r.posted.begin(), r.posted.end(), *request));
    q.posted = false;
    q.cancelled = true;
    q.complete = true;
    q.status_source = MPI_ANY_SOURCE;
    q.status_tag = MPI_ANY_TAG;
    q.bytes = 0;
  }
  // A send has left already (eager): it cannot be cancelled, and
  // MPI_Test_cancelled says so.
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Cancel)

extern "C" int PMPI_Test_cancelled(const MPI_Status* status, int* flag) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  *flag = status->roam_cancelled;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Test_cancelled)

extern "C" int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                             MPI_Comm comm, MPI_Status* status) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  MPI_Request r = MPI_REQUEST_NULL;
  if (int e = PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &r)) return e;
  if (int e = PMPI_Send(sendbuf, sendcount, sendtype, dest, sendtag, comm)) return e;
  return PMPI_Wait(&r, status);
}
ROAM_AMPI_PMPI(Sendrecv)

extern "C" int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                                     int recvtag, MPI_Comm comm, MPI_Status* status) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  // The send packs the buffer before the receive can write it.
  if (int e = start_send(buf, count, datatype, dest, sendtag, comm, false, 0, "MPI_Sendrecv_replace")) return e;
  return PMPI_Recv(buf, count, datatype, source, recvtag, comm, status);
}
ROAM_AMPI_PMPI(Sendrecv_replace)

// ---- probes ----------------------------------------------------------------------

namespace {
// The first queued message that matches, or null.
arrived* find_unexpected(rank& r, std::uint64_t context, int source, int tag) {
  for (arrived& m : r.unexpected)
    if (matches(context, source, tag, m.env)) return &m;
  return nullptr;
}

void status_of(const arrived& m, int comm, MPI_Status* status) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_COMM = comm;
  status->MPI_SOURCE = m.env.source;
  status->MPI_TAG = m.env.tag;
  status->MPI_ERROR = MPI_SUCCESS;
  status->MPI_LENGTH = m.size();
  status->roam_cancelled = 0;
}

int probe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status, bool block, MPI_Message* message,
          const char* function) {
  {
    rank& r = me();
    if (find_comm(r, comm) == nullptr)
      return fail(MPI_COMM_WORLD, MPI_ERR_COMM, function, "invalid communicator " + std::to_string(comm));
    if (source == MPI_PROC_NULL) {
      *flag = 1;
      proc_null_status(status);
      if (message) *message = MPI_MESSAGE_NO_PROC;
      return MPI_SUCCESS;
    }
  }
  for (int round = 0;; ++round) {
    rank& r = me();
    const std::uint64_t context = r.comms.at(comm).context;
    if (arrived* m = find_unexpected(r, context, source, tag)) {
      *flag = 1;
      status_of(*m, comm, status);
      if (message) {  // the message leaves the queue: only MPI_Mrecv can receive it
        const int h = r.next_message++;
        auto it = std::find_if(r.unexpected.begin(), r.unexpected.end(), [&](const arrived& a) { return &a == m; });
        r.messages.emplace(h, std::move(*it));
        r.unexpected.erase(it);
        *message = h;
      }
      return MPI_SUCCESS;
    }
    if (block) {
      rank::block();
    } else if (round == 0) {
      let_messages_in();
    } else {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
}
}  // namespace

extern "C" int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int flag = 0;
  return probe(source, tag, comm, &flag, status, true, nullptr, "MPI_Probe");
}
ROAM_AMPI_PMPI(Probe)
extern "C" int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return probe(source, tag, comm, flag, status, false, nullptr, "MPI_Iprobe");
}
ROAM_AMPI_PMPI(Iprobe)
extern "C" int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int flag = 0;
  return probe(source, tag, comm, &flag, status, true, message, "MPI_Mprobe");
}
ROAM_AMPI_PMPI(Mprobe)
extern "C" int PMPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                            MPI_Status* status) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return probe(source, tag, comm, flag, status, false, message, "MPI_Improbe");
}
ROAM_AMPI_PMPI(Improbe)

extern "C" int PMPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  if (*message == MPI_MESSAGE_NO_PROC) {
    const int h = new_recv_request(buf, count, datatype, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, false);
    request_record& q = r.req(h);
    q.complete = true;
    q.status_source = MPI_PROC_NULL;
    q.status_tag = MPI_ANY_TAG;
    *message = MPI_MESSAGE_NULL;
    *request = h;
    return MPI_SUCCESS;
  }
  auto it = r.messages.find(*message);
  if (it == r.messages.end()) return fail(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Imrecv", "invalid message handle");
  if (find_type(r, datatype) == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Imrecv", "invalid datatype");
  const int h = new_recv_request(buf, count, datatype, it->second.env.source, it->second.env.tag, MPI_COMM_WORLD, false);
  arrived m = std::move(it->second);
  r.messages.erase(it);
  r.complete_receive(r.req(h), m);
  *message = MPI_MESSAGE_NULL;
  *request = h;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Imrecv)

extern "C" int PMPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  MPI_Request h = MPI_REQUEST_NULL;
  if (int e = PMPI_Imrecv(buf, count, datatype, message, &h)) return e;
  return PMPI_Wait(&h, status);
}
ROAM_AMPI_PMPI(Mrecv)

extern "C" int PMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const type_info* t = find_type(me(), datatype);
  if (t == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Get_count", "invalid datatype");
  if (t->size == 0) {
    *count = status->MPI_LENGTH == 0 ? 0 : MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  *count = status->MPI_LENGTH % t->size == 0 ? static_cast<int>(status->MPI_LENGTH / t->size) : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Get_count)

extern "C" int PMPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const type_info* t = find_type(me(), datatype);
  if (t == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Get_elements", "invalid datatype");
  const std::int64_t n = count_elements(*t, status->MPI_LENGTH);
  *count = n < 0 ? MPI_UNDEFINED : static_cast<int>(n);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Get_elements)

// Sends are eager (the bytes leave at once), so a buffered send needs no
// buffer: the attached one is only kept to be given back.
extern "C" int PMPI_Buffer_attach(void* buffer, int size) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  r.attached_buffer = reinterpret_cast<std::uint64_t>(buffer);
  r.attached_size = size;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Buffer_attach)
extern "C" int PMPI_Buffer_detach(void* buffer_addr, int* size) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  *static_cast<void**>(buffer_addr) = reinterpret_cast<void*>(r.attached_buffer);
  *size = r.attached_size;
  r.attached_buffer = 0;
  r.attached_size = 0;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Buffer_detach)
