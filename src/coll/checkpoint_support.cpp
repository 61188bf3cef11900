// The collectives' side of checkpoints (include/roam/coll/detail/checkpoint_support.hpp).
#include <roam/coll/detail/checkpoint_support.hpp>

#include "state.hpp"

namespace roam::detail {

std::string partial_reduction_here() {
  coll_state& st = local_coll_state();
  const std::string pe = " on pe " + std::to_string(tls_pe->id());
  for (auto& [key, r] : st.reductions) {
    for (auto& [seq, slot] : r.slots)
      if (slot.local || slot.children || slot.value)
        return r.name + " reduction #" + std::to_string(seq) + " is partly contributed" + pe;
    if (!r.finished.empty())
      return r.name + " reduction #" + std::to_string(r.finished.begin()->first) + " waits for an earlier one" + pe;
  }
  for (auto& [id, r] : st.arrays) {
    for (auto& [seq, slot] : r.slots)
      if (slot.count || slot.value)
        return r.name + " reduction #" + std::to_string(seq) + " is partly contributed" + pe;
    for (auto& [seq, slot] : r.at_root)
      if (slot.count || slot.value)
        return r.name + " reduction #" + std::to_string(seq) + " is partly contributed" + pe;
  }
  return {};
}

}  // namespace roam::detail
