// What the object layer reports to runtime observers (roam/sched/observe.hpp):
// the object and entry of every invocation and task resumption, and entry
// messages sent and received. Only reached when an observer is subscribed.
#include <cstring>

#include <roam/obj/detail/objects.hpp>
#include <roam/sched/observe.hpp>

#include "pe_objects.hpp"

namespace roam::detail {

namespace {
// Per PE (one PE per thread): the clock reading of the receipt just reported,
// which the entry that message starts takes as its begin (one reading for
// both). Only that message's: one held back or passed on leaves it unused.
constinit thread_local std::uint64_t t_receipt_ticks = 0;
constinit thread_local const message* t_receipt_message = nullptr;
}  // namespace

object_identity identity_of(target_kind target, std::uint32_t collection, const index_storage& idx,
                            std::uint8_t dims) noexcept {
  object_identity id;
  identify(id, target, collection, idx, dims);
  return id;
}

void identify(object_identity& id, target_kind target, std::uint32_t collection, const index_storage& idx,
              std::uint8_t dims) noexcept {
  switch (target) {
    case target_kind::chare:
      id.kind = object_kind::chare;
      id.chare_id = chare_id_in(idx);
      return;
    case target_kind::nodegroup:
      id.kind = object_kind::nodegroup_member;
      id.collection = collection;
      return;
    case target_kind::group_member:
    case target_kind::group_all:
      id.kind = object_kind::group_member;
      id.collection = collection;
      id.index[0] = tls_pe ? static_cast<std::int32_t>(tls_pe->id()) : 0;
      return;
    case target_kind::element: {
      // A section multicast to a group addresses its members as elements.
      const collection_desc* d = find_collection(collection);
      id.collection = collection;
      if (d && d->kind == collection_kind::group) {
        id.kind = object_kind::group_member;
        id.index[0] = idx.v[0];
        return;
      }
      id.kind = object_kind::array_element;
      id.dims = dims;
      static_assert(sizeof(id.index) == sizeof(idx.v));
      std::memcpy(id.index.data(), idx.v, sizeof(idx.v));  // a loop here became a slow rep movs
      return;
    }
    case target_kind::array_all:
    case target_kind::section_all:
    case target_kind::control:
      break;
  }
  id.collection = collection;
}

void invoke_observed(message* m, void* obj) noexcept {
  const std::uint32_t needs = observer_needs_now();
  std::uint64_t begin = 0;
  if (needs & need_begin_times) begin = t_receipt_message == m ? t_receipt_ticks : clock_ticks();
  // Every field given here: a default-initialised event would be zeroed first (rep stos, slow).
  entry_event e{.object = {},
                .entry = m->ops->id,
                .entry_name = m->ops->name,
                .obj = obj,
                .pe = tls_pe->id(),
                .how = run_kind::entry,
                .ticks = begin,
                .begin_ticks = 0,
                .nested = false};
  if (needs & need_identity) identify(e.object, m->target, m->collection, m->index, m->dims);
  const entry_event* outer = tls_observed_entry;
  tls_observed_entry = &e;
  t_receipt_message = nullptr;  // a broadcast's next member is timed on its own
  dispatch_entry_begin(e);
  invoke_unobserved(m, obj);
  // An entry inside another is always timed: the outer one goes on after it.
  const bool timed_end = (needs & need_end_times) || ((needs & need_begin_times) && tls_observed_depth > 1);
  dispatch_entry_end(e, timed_end ? clock_ticks() : 0);
  tls_observed_entry = outer;
}

void resume_observed(const object_identity& who, const void* obj, task_roots& roots, std::coroutine_handle<> h,
                     void (*resume)(task_roots&, std::coroutine_handle<>) noexcept) noexcept {
  entry_event e;
  e.object = who;
  e.obj = obj;
  e.pe = tls_pe->id();
  e.how = run_kind::task_resume;
  e.ticks = clock_ticks();
  dispatch_entry_begin(e);
  resume(roots, h);
  dispatch_entry_end(e, clock_ticks());
}

namespace {
// What a message carries, however it holds it: the envelope plus its
// payload's serialized size, so that a roam::buffer or std::vector argument
// counts its contents, not the few bytes of its handle (a typed payload's
// payload_bytes is sizeof the arguments). A sizing pass only: no copy, and
// only when an observer asks (need_message_bytes: the trace, a
// communication-aware balancer), not for every balanced run's messages.
std::uint64_t carried_bytes(const message* m, std::uint32_t needs) noexcept {
  if (!(needs & need_message_bytes) || m->payload == payload_kind::packed || !m->ops || !m->ops->packed_size)
    return sizeof(message) + m->payload_bytes;
  try {
    return sizeof(message) + m->ops->packed_size(m, nullptr);
  } catch (...) {  // a payload that cannot be serialized (local only): what it holds in memory
    return sizeof(message) + m->payload_bytes;
  }
}

// Per PE (one PE per thread): the number the next send observed here carries.
constinit thread_local std::uint32_t t_next_flow = 0;
}  // namespace

void note_sent(message* m, std::uint32_t dst, bool to_node) noexcept {
  const std::uint32_t needs = observer_needs_now();
  const std::uint32_t flow = needs & need_flows ? ++t_next_flow & (work_flow_mask >> work_flow_shift) : 0;
  m->flags = (m->flags & ~static_cast<std::uint32_t>(work_flow_mask | work_received)) | (flow << work_flow_shift);
  // Every field given here: a default-initialised event would be zeroed first (rep stos, slow).
  message_event e{.pe = tls_pe ? tls_pe->id() : 0,
                  .peer = dst,
                  .to_node = to_node,
                  .bytes = carried_bytes(m, needs),
                  .entry = m->ops ? m->ops->id : 0,
                  .flow = flow,
                  .ticks = needs & need_send_times ? clock_ticks() : 0,
                  .to = {}};
  if ((needs & need_targets) && (m->target == target_kind::element || m->target == target_kind::chare ||
                                 m->target == target_kind::group_member))
    identify(e.to, m->target, m->collection, m->index, m->dims);
  for_each_observer([&](runtime_observer& o) { o.message_sent(e); });
}

void note_received(message* m) noexcept {
  if (m->flags & work_received) return;  // parked and delivered again: received once
  m->flags |= work_received;
  std::uint64_t ticks = 0;
  const std::uint32_t needs = observer_needs_now();
  if (needs & need_begin_times) {
    ticks = t_receipt_ticks = clock_ticks();
    t_receipt_message = m;
  }
  const message_event e{.pe = tls_pe->id(),
                        .peer = m->src_pe,
                        .to_node = m->target == target_kind::nodegroup,
                        .bytes = carried_bytes(m, needs),
                        .entry = m->ops ? m->ops->id : 0,
                        .flow = (m->flags & work_flow_mask) >> work_flow_shift,
                        .ticks = ticks,
                        .to = {}};
  for_each_observer([&](runtime_observer& o) { o.message_received(e); });
}

}  // namespace roam::detail
