// Array broadcasts on one PE: delivered in the root's numbering, kept for
// elements that arrive having missed some, and replayed to them.
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <roam/msg/detail/control.hpp>
#include <roam/obj/detail/objects.hpp>

#include "element_internal.hpp"

namespace roam::detail {

// Gives an element that arrived (or was inserted) the broadcasts this PE
// delivered after the last one it saw.
void replay_broadcasts(local_collection& lc, const index_storage& idx, void* obj) {
  element_fields& f = element_access::fields(base_of(lc, obj));
  if (f.broadcasts >= lc.bcast_seen) return;
  std::uint32_t oldest = lc.bcast_seen - static_cast<std::uint32_t>(lc.bcast_history.size()) + 1;
  if (f.broadcasts + 1 < oldest) {
    report_fatal(describe_element(lc.desc, idx) + " arrived on pe " + std::to_string(my_pe()) + " having missed broadcast #" +
                 std::to_string(f.broadcasts + 1) + ", older than the " + std::to_string(broadcast_history) +
                 " this PE keeps");
    return;
  }
  for (std::uint32_t n = f.broadcasts + 1; n <= lc.bcast_seen; ++n) {
    if (lc.elements.find(idx) != obj) return;  // it moved on or died meanwhile
    message* m = lc.bcast_history[n - oldest];
    element_access::fields(base_of(lc, obj)).broadcasts = n;
    m->target = target_kind::element;
    m->index = idx;
    invoke_on(lc, m, obj);
    m->target = target_kind::array_all;
    run_entry(lc, nullptr, obj);
  }
}

void deliver_array_broadcast(local_collection& lc, message* m) noexcept {
  if (m->seq != lc.bcast_seen + 1) {
    if (m->seq <= lc.bcast_seen) {
      report_delivery_failure(*m, "broadcast delivered twice");
      discard_message(m);
      return;
    }
    lc.bcast_early.emplace(m->seq, m);  // an earlier one is still on its way (priorities reorder)
    return;
  }
  for (;;) {
    std::uint32_t n = m->seq;
    lc.bcast_seen = n;
    // No copy of the member list: only the element just run can leave it (its
    // requests run right after its entry), and members added meanwhile were
    // born with this broadcast counted as seen.
    // Once per element and broadcast: the element's base is found once (an
    // indirect call) and run_entry is entered only for a request.
    for (std::size_t i = 0; i < lc.order.size();) {
      if (tls_pe->runtime().stopping()) break;
      void* const obj = lc.order[i].obj;
      element_base& b = base_of(lc, obj);
      element_fields& f = element_access::fields(b);
      if (f.broadcasts >= n) {  // got it on the PE it came from
        ++i;
        continue;
      }
      f.broadcasts = n;
      m->target = target_kind::element;  // so errors and tasks name the element
      m->index = lc.order[i].index;
      invoke_on(m, obj, b);
      if (element_access::has_request(b)) run_entry(lc, nullptr, obj);
      if (i < lc.order.size() && lc.order[i].obj == obj) ++i;  // else it left: the next one moved into slot i
    }
    m->target = target_kind::array_all;
    lc.bcast_history.push_back(m);
    if (lc.bcast_history.size() > broadcast_history) {
      discard_message(lc.bcast_history.front());
      lc.bcast_history.pop_front();
    }
    auto next = lc.bcast_early.find(lc.bcast_seen + 1);
    if (next == lc.bcast_early.end()) return;
    m = next->second;
    lc.bcast_early.erase(next);
  }
}

bool hold_array_broadcast(local_collection& lc, message* m) noexcept {
  if (lc.bcast_holds == 0) return false;
  lc.bcast_held.push_back(m);
  return true;
}

}  // namespace roam::detail
