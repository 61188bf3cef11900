// The per-PE object table: made when a PE starts, and torn down (every
// object destroyed, every undelivered message freed) when it stops. Only the
// owning PE's thread touches it.
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <roam/obj/detail/objects.hpp>

#include "pe_objects.hpp"

namespace roam::detail {

namespace {

// ---- per-PE objects (obj/pe_objects.hpp) ----------------------------------

void teardown_objects(pe_state& pe) noexcept {
  auto* objs = static_cast<pe_objects*>(pe.slot(layer_slot::objects));
  if (!objs) return;
  for (auto& lc : objs->collections) {
    if (!lc) continue;
    for (message* m : lc->pending) discard_message(m);
    teardown_locations(*lc);
    if (lc->desc)
      for (auto& mem : lc->order) {
        if (lc->desc->kind == collection_kind::array) end_tasks(lc->desc, mem.obj);
        lc->desc->cls->destroy(mem.obj);
      }
  }
  for (auto& [id, rec] : objs->chares) {
    chare_access::tasks(*rec.base).destroy_all();
    rec.ops->cls->destroy(rec.obj);
  }
  discard_waiting(objs->chare_pending);
  if (pe.id() == pe.runtime().first_pe) {
    // Nodegroup members belong to the process; its first PE destroys them.
    destroy_nodegroup_members();
    discard_waiting_node_messages();
    discard_waiting_multicasts();
  }
  delete objs;
  pe.slot(layer_slot::objects) = nullptr;
}

}  // namespace

void setup_objects(pe_state& pe) {
  auto* objs = new pe_objects();
  objs->chare_seq_seen.assign(pe.runtime().num_pes, 0);
  pe.slot(layer_slot::objects) = objs;
  pe.add_stop_hook([&pe]() { teardown_objects(pe); });
}

}  // namespace roam::detail
