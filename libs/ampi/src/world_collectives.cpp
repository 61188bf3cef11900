// Collectives of every rank (MPI_COMM_WORLD and communicators that are
// copies of it) on roam's array reductions: the ranks of a PE are combined
// there first, then one partial per PE travels up the runtime's spanning
// tree and the result comes down it, so a reduction over 16 ranks on two
// PEs crosses between PEs twice instead of a binomial tree's log2(16) times.
//
// Every rank must make the same reductions in the same order. MPI gives
// that for blocking collectives (two ranks that order two collectives
// differently may deadlock, which makes the program erroneous), and only
// the rank's own thread takes this path: a non-blocking collective runs on
// a thread of its own in an order of its own, over point-to-point messages.
// Only predefined operations on a single basic type qualify (a user
// function belongs to the rank's copy of the program, and the partials are
// combined outside any rank).
#include "world_collectives.hpp"

#include <cstring>

#include "api.hpp"
#include "ops.hpp"

namespace roam::ampi {

void combine_world_parts(world_part& acc, const world_part& v) {
  if (v.size == 0) return;
  if (acc.size == 0) {
    acc = v;
    return;
  }
  const std::int64_t n = static_cast<std::int64_t>(acc.size) / primitive_size(acc.primitive);
  apply_predefined(acc.op, acc.primitive, v.data(), acc.mutable_data(), n);
}

world_hub::slot* world_hub::find(std::uint64_t number) noexcept {
  for (slot& s : slots)
    if (s.in_use && s.result.number == number) return &s;
  return nullptr;
}

world_hub::slot& world_hub::open(std::uint64_t number) {
  if (slot* s = find(number)) return *s;
  slot* s = nullptr;
  for (slot& free : slots)
    if (!free.in_use) s = &free;
  if (!s) s = &slots.emplace_back();
  s->in_use = true;
  s->arrived = false;
  s->readers = 0;
  s->result.number = number;
  s->result.size = 0;
  s->result.large.reset();
  s->waiting.clear();
  return *s;
}

void world_hub::result(world_part v) {
  slot* s = find(v.number);
  if (!s) return;  // no rank of this PE took part
  s->result = std::move(v);
  s->arrived = true;
  // A woken rank runs at once (its computing is measured as its own load,
  // taken from this entry's) and may free the slot or open another, which
  // can move the vector: the list is swapped out first, `s` not used after.
  std::vector<rank*> waiting;
  waiting.swap(s->waiting);
  const std::uint64_t number = v.number;
  for (rank* r : waiting) r->notify();
  waiting.clear();
  if (slot* again = find(number); again && again->waiting.empty()) again->waiting.swap(waiting);
}

namespace {

using world_reducer = decltype(roam::custom_reducer<&combine_world_parts>());

// This PE's hub. Its member is made on every PE by a message that may
// still be on its way when a rank first gets here.
world_hub& local_hub(const rank& r) {
  for (;;) {
    if (world_hub* h = r.hub.local()) return *h;
    this_thread_yield();  // the rank does not move meanwhile: `r` stays valid
  }
}

// Contributes `part` as world collective number part.number, waits for its
// result on this PE's hub and unpacks it into `out` (count elements of t).
void combine_everywhere(world_part part, void* out, int count, const type_info& t) {
  rank& r = me();  // valid until it returns: a rank does not move while in a collective
  const std::uint64_t k = part.number;
  world_hub& h = local_hub(r);  // a group member stays where it is
  ++h.open(k).readers;
  // Made once per rank and PE: a callback packs its target's description,
  // which costs more than the rest of a small reduction.
  if (r.world_to_hubs.is_ignore()) r.world_to_hubs = callback<world_part>::broadcast<&world_hub::result>(r.hub);
  r.contribute(std::move(part), world_reducer{}, r.world_to_hubs);
  for (;;) {
    world_hub::slot& s = *h.find(k);
    if (s.arrived) {
      if (count > 0) unpack(t, s.result.data(), s.result.size, out, count);
      if (--s.readers == 0) s.in_use = false;
      return;
    }
    s.waiting.push_back(&r);
    rank::block();
  }
}

}  // namespace

bool on_world_path(const communicator& c) {
  return !c.inter && c.members.empty() && c.size == static_cast<int>(me().this_array().size()) && running_job() == 0;
}

bool world_reducible(int op, const type_info& t) {
  return op >= MPI_MAX && op < MPI_REPLACE && t.primitive != 0;
}

int predefined_op_applies(int op, const type_info& t, const void* data, int count) {
  if (op < MPI_MAX || op > MPI_NO_OP) return MPI_SUCCESS;  // a user's: it applies to what it is given
  if (t.primitive == 0) return MPI_ERR_OP;
  if (count == 0) return MPI_SUCCESS;
  std::byte one[64];
  const std::int64_t width = primitive_size(t.primitive);
  if (width <= 0 || width > static_cast<std::int64_t>(sizeof one)) return MPI_ERR_OP;
  std::memcpy(one, data, static_cast<std::size_t>(width));
  return apply_predefined(op, t.primitive, static_cast<const std::byte*>(data), one, 1) ? MPI_SUCCESS : MPI_ERR_OP;
}

namespace {
// A rank's contribution: `count` elements of `t` packed into it.
world_part contribution(const void* sendbuf, int count, int op, const type_info& t) {
  world_part part;
  part.op = op;
  part.primitive = t.primitive;
  part.reserve(static_cast<std::uint32_t>(count * t.size));
  if (count > 0) pack(t, sendbuf, count, part.mutable_data());
  return part;
}
}  // namespace

int world_allreduce(const void* sendbuf, void* recvbuf, int count, int op, const type_info& t) {
  world_part part = contribution(sendbuf, count, op, t);
  if (int e = predefined_op_applies(op, t, part.data(), count)) return e;
  part.number = ++me().world_collectives;
  combine_everywhere(std::move(part), recvbuf, count, t);
  return MPI_SUCCESS;
}

int world_reduce(const void* sendbuf, void* recvbuf, int count, int op, const type_info& t, int root_world) {
  world_part part = contribution(sendbuf, count, op, t);
  if (int e = predefined_op_applies(op, t, part.data(), count)) return e;
  rank& r = me();
  auto [cb, made] = r.world_to_root.try_emplace(root_world);
  if (made) cb->second = callback<world_part>::to<&rank::world_result>(r.this_array()[root_world]);
  r.contribute(std::move(part), world_reducer{}, cb->second);
  if (r.this_index()[0] != root_world) return MPI_SUCCESS;
  while (me().world_results.empty()) rank::block();
  rank& root = me();
  const world_part result = std::move(root.world_results.front());
  root.world_results.pop_front();
  if (count > 0) unpack(t, result.data(), result.size, recvbuf, count);
  return MPI_SUCCESS;
}

void world_barrier() {
  world_part part;
  part.number = ++me().world_collectives;
  combine_everywhere(std::move(part), nullptr, 0, type_info{});
}

void rank::world_result(world_part v) {
  world_results.push_back(std::move(v));
  notify();
}

}  // namespace roam::ampi
