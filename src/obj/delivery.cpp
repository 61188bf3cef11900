// Message delivery: `deliver`, the run of every entry message, is the only
// switch over target kinds; each kind's own file does the rest. Errors name
// the PE, the object and the entry.
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <roam/obj/detail/objects.hpp>
#include <roam/sched/observe.hpp>
#include <roam/sched/detail/tree.hpp>

#include "pe_objects.hpp"

namespace roam::detail {

std::string describe_context(const delivery_context& ctx) {
  std::string s = describe_target(ctx.target, ctx.target == target_kind::chare ? nullptr : find_collection(ctx.collection),
                                  ctx.index, ctx.dims, ctx.ops ? ctx.ops->name : std::string_view{});
  if (ctx.target == target_kind::chare && ctx.ops) s.replace(0, 5, "chare " + std::string(ctx.ops->class_name));
  return s;
}

void report_delivery_failure(const message& m, const char* what) noexcept {
  report_fatal(describe_context(context_of(m)) + ": " + what);
}

void invoke_guarded(message* m, void* obj) noexcept {
  if (observed()) [[unlikely]] {
    invoke_observed(m, obj);
    return;
  }
  invoke_unobserved(m, obj);
}

void invoke_unobserved(message* m, void* obj) noexcept {
  try {
    m->ops->invoke(m, obj);
  } catch (const pup_error& e) {
    report_fatal(describe_context(context_of(*m)) + ": corrupt message: " + e.what());
  } catch (const std::exception& e) {
    report_fatal(describe_context(context_of(*m)) + ": uncaught exception: " + e.what());
  } catch (...) {
    report_fatal(describe_context(context_of(*m)) + ": uncaught exception of unknown type");
  }
}

message* clone_message(const message* m) noexcept {
  std::size_t payload = m->payload == payload_kind::packed ? m->payload_bytes : sizeof(void*);
  message* copy = allocate_message(payload);
  copy->run = m->run;
  copy->priority = m->priority;
  copy->flags = m->flags & ~static_cast<std::uint32_t>(work_forwarded);
  copy->ops = m->ops;
  copy->collection = m->collection;
  copy->payload_bytes = m->payload_bytes;
  copy->target = m->target;
  copy->payload = m->payload;
  copy->dims = m->dims;
  copy->is_call = m->is_call;
  copy->index = m->index;
  copy->seq = m->seq;
  std::memcpy(copy->payload_ptr(), m->payload_ptr(), payload);
  if (m->payload == payload_kind::shared_args)
    (*static_cast<shared_payload_base* const*>(m->payload_ptr()))->refs.fetch_add(1, std::memory_order_relaxed);
  return copy;
}

// Sends a copy of a fan-out message to PE `to`.
void forward_copy(const message* m, std::uint32_t to) noexcept {
  message* copy = clone_message(m);
  if (observed()) [[unlikely]]
    note_sent(copy, to, false);  // each copy down the tree is a send of its own
  copy->dst_pe = to;
  copy->src_pe = tls_pe->id();
  post(to, copy);
}

namespace {

// Passes a broadcast to this PE's children in the tree of all PEs rooted at the broadcast root.
void forward_broadcast(const message* m) noexcept {
  static_assert(broadcast_root == 0, "the node-aware tree is rooted at pe 0");
  runtime_state& rt = tls_pe->runtime();
  pe_tree{rt.num_pes, rt.ppn, rt.opts.bfactor}.for_each_child(tls_pe->id(), [&](std::uint32_t child) { forward_copy(m, child); });
}

}  // namespace

// ---- delivery -------------------------------------------------------------

void deliver(work_item* w, work_action a) noexcept {
  auto* m = static_cast<message*>(w);
  if (a == work_action::discard) {
    discard_message(m);
    return;
  }
  // An element or chare message is received where its object runs it
  // (deliver_to_element, deliver_to_chare): one passed on towards a migrated
  // object is not received at each hop.
  if (observed() && m->target != target_kind::element && m->target != target_kind::chare) [[unlikely]]
    note_received(m);
  pe_objects& objs = objects();
  switch (m->target) {
    case target_kind::element: {
      local_collection* lc = objs.find(m->collection);
      if (!lc || !lc->constructed) {
        objs.get(m->collection).pending.push_back(m);
        return;
      }
      const collection_desc* d = lc->desc;
      if (m->dims != d->dims || (!d->sparse && !d->user_index && !inside(m->index, d->shape, d->dims))) {
        report_delivery_failure(*m, "index outside the array's extents");
        break;
      }
      if (d->kind != collection_kind::array) {
        report_delivery_failure(*m, "element message for a collection that is not an array");
        break;
      }
      deliver_to_element(*lc, m);
      return;
    }
    case target_kind::array_all:
    case target_kind::group_all:
    case target_kind::group_member: {
      local_collection* lc = objs.find(m->collection);
      if (!lc || !lc->constructed) {
        objs.get(m->collection).pending.push_back(m);
        return;
      }
      if (m->target != target_kind::group_member && !(m->flags & work_forwarded)) {
        // The root numbers array broadcasts: every PE delivers them in that order.
        if (m->target == target_kind::array_all && tls_pe->id() == broadcast_root && m->seq == 0) {
          if (hold_array_broadcast(*lc, m)) return;
          m->seq = ++lc->bcast_stamped;
        }
        forward_broadcast(m);
        m->flags |= work_forwarded;  // a buffered broadcast replayed later must not forward twice
      }
      if (m->target == target_kind::array_all) {
        deliver_array_broadcast(*lc, m);
        return;
      } else {
        for (auto& mem : lc->order) invoke_guarded(m, mem.obj);
      }
      break;
    }
    case target_kind::chare:
      deliver_to_chare(objs, m);
      return;
    case target_kind::section_all:
      deliver_section(objs, m);
      return;
    case target_kind::nodegroup:
      deliver_to_node_member(m);
      return;
    case target_kind::control:
      report_delivery_failure(*m, "control message with an entry payload");
      break;
  }
  discard_message(m);
}

std::string describe_target(target_kind t, const collection_desc* desc, const index_storage& idx, std::uint8_t dims,
                            std::string_view entry) {
  std::string s;
  std::string type = desc && desc->cls ? std::string(desc->cls->name) : std::string("?");
  auto coords = [&] {
    std::string c = "[";
    for (int k = 0; k < dims; ++k) {
      if (k) c += ',';
      c += std::to_string(idx.v[k]);  // piecewise: `"," + std::string` warns falsely under GCC 12 -O2
    }
    return c + "]";
  };
  switch (t) {
    case target_kind::element:
      s = "array " + type + (desc && desc->user_index && desc->elem ? desc->elem->format_index(idx) : coords());
      break;
    case target_kind::array_all:
      s = "array " + type + "[*]";
      break;
    case target_kind::group_member:
    case target_kind::group_all:
      s = "group " + type + (dims ? coords() : std::string("[pe ") + std::to_string(tls_pe ? tls_pe->id() : 0) + "]");
      break;
    case target_kind::section_all:
      s = "section of array " + type;
      break;
    case target_kind::nodegroup:
      s = "nodegroup " + type;
      break;
    case target_kind::chare: {
      std::uint64_t id = chare_id_in(idx);
      s = "chare #" + std::to_string(id >> 40) + "." + std::to_string(id & ((std::uint64_t{1} << 40) - 1));
      break;
    }
    case target_kind::control:
      s = "runtime";
      break;
  }
  if (!entry.empty()) s += " entry " + std::string(entry);
  return s;
}

void report_bad_send(const std::string& what) noexcept { report_fatal(what); }

}  // namespace roam::detail
