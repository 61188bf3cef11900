// Lifecycle observers (include/roam/obj/lifecycle.hpp): births, arrivals,
// departures and deaths of every kind of object, told where they happen.
#include <roam/obj/lifecycle.hpp>

#include "pe_objects.hpp"

namespace roam {

bool add_lifecycle_observer(lifecycle_observer& o) noexcept { return detail::g_lifecycle.add(o); }
void remove_lifecycle_observer(lifecycle_observer& o) noexcept { detail::g_lifecycle.remove(o); }

namespace detail {

object_identity element_identity(const collection_desc* d, const index_storage& idx) noexcept {
  object_identity id;
  id.collection = d->id;
  if (d->kind == collection_kind::group) {
    id.kind = object_kind::group_member;
    id.index[0] = idx.v[0];
    return id;
  }
  if (d->kind == collection_kind::nodegroup) {
    id.kind = object_kind::nodegroup_member;
    return id;
  }
  id.kind = object_kind::array_element;
  id.dims = d->dims;
  for (int k = 0; k < 6; ++k) id.index[static_cast<std::size_t>(k)] = idx.v[k];
  return id;
}

object_identity chare_identity(std::uint64_t chare_id) noexcept {
  object_identity id;
  id.kind = object_kind::chare;
  id.chare_id = chare_id;
  return id;
}

void notify_lifecycle(lifecycle_step step, const object_identity& who, void* obj, std::uint32_t peer,
                      bool syncs) noexcept {
  object_event e;
  e.object = who;
  e.obj = obj;
  e.pe = tls_pe ? tls_pe->id() : 0;
  e.peer = peer;
  e.syncs = syncs;
  g_lifecycle.for_each([&](lifecycle_observer& o) {
    switch (step) {
      case lifecycle_step::born: o.born(e); break;
      case lifecycle_step::arrived: o.arrived(e); break;
      case lifecycle_step::leaving: o.leaving(e); break;
      case lifecycle_step::died: o.died(e); break;
    }
  });
}

}  // namespace detail
}  // namespace roam
