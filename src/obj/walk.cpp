// Object walking (include/roam/obj/walk.hpp): the calling PE's chares,
// collection members and (on a process's first PE) nodegroup members, packed
// and unpacked through their pup, and moved on request.
#include <roam/obj/walk.hpp>

#include <stdexcept>
#include <string>

#include <roam/obj/chare.hpp>
#include <roam/obj/detail/objects.hpp>

#include "pe_objects.hpp"

namespace roam {

namespace detail {

void at_sync_of(void* obj, std::string_view type_name) {
  heap_route_pause pause;  // the balancer's records are the PE's
  if (!g_at_sync) {
    report_fatal("pe " + std::to_string(tls_pe ? tls_pe->id() : 0) + ": " + std::string(type_name) +
                 "::at_sync(): the load balancing layer is not linked into this program");
    return;
  }
  g_at_sync(obj, type_name);
}

namespace {

local_object chare_object(std::uint64_t id, chare_record& rec) {
  local_object o;
  o.id = chare_identity(id);
  o.type_name = rec.ops->cls->name;
  o.obj = rec.obj;
  o.migratable = rec.ops->moves && rec.ops->moves->pack_state;
  if (rec.ops->moves) o.resume_from_sync = rec.ops->moves->resume_from_sync;
  o.packable = rec.ops->cls->pack != nullptr;
  o.load = &rec.load;
  return o;
}

local_object member_object(const collection_desc* d, local_collection::member& m) {
  local_object o;
  o.id = element_identity(d, m.index);
  o.type_name = d->cls->name;
  o.obj = m.obj;
  o.migratable = d->kind == collection_kind::array && d->elem && d->elem->moves && d->elem->moves->pack_state;
  if (d->kind == collection_kind::array && d->elem && d->elem->moves) o.resume_from_sync = d->elem->moves->resume_from_sync;
  o.packable = d->cls->pack != nullptr;
  o.load = &m.load;
  return o;
}

local_object node_object(const collection_desc* d, void* member) {
  local_object o;
  o.id = element_identity(d, index_storage{});
  o.type_name = d->cls->name;
  o.obj = member;
  o.packable = d->cls->pack != nullptr;
  o.load = &d->node_load;
  return o;
}

bool hosts_node_members() noexcept { return tls_pe->id() == tls_pe->runtime().first_pe; }

const class_ops& class_of(const local_object& o) {
  if (o.id.kind == object_kind::chare) {
    auto it = objects().chares.find(o.id.chare_id);
    if (it == objects().chares.end()) throw std::logic_error("roam: chare is not on this PE");
    return *it->second.ops->cls;
  }
  const collection_desc* d = find_collection(o.id.collection);
  if (!d) throw std::logic_error("roam: no collection " + std::to_string(o.id.collection) + " in this process");
  return *d->cls;
}

}  // namespace

void walk_local_objects(void (*fn)(void* ctx, const local_object&), void* ctx) {
  this_pe("roam::for_each_local_object");
  pe_objects& objs = objects();
  for (auto& [id, rec] : objs.chares) fn(ctx, chare_object(id, rec));
  for (auto& lc : objs.collections) {
    if (!lc || !lc->desc || !lc->constructed) continue;
    for (auto& m : lc->order) fn(ctx, member_object(lc->desc, m));
  }
  if (!hosts_node_members()) return;
  for (const collection_desc* d : nodegroup_descriptors())
    if (void* member = d->node_member.load(std::memory_order_acquire)) fn(ctx, node_object(d, member));
}

}  // namespace detail

std::optional<local_object> find_local_object(const object_identity& id) {
  using namespace detail;
  this_pe("roam::find_local_object");
  pe_objects& objs = objects();
  switch (id.kind) {
    case object_kind::chare: {
      auto it = objs.chares.find(id.chare_id);
      if (it == objs.chares.end()) return std::nullopt;
      return chare_object(id.chare_id, it->second);
    }
    case object_kind::array_element:
    case object_kind::group_member: {
      local_collection* lc = objs.find(id.collection);
      if (!lc || !lc->desc || !lc->constructed) return std::nullopt;
      index_storage idx;
      for (int k = 0; k < 6; ++k) idx.v[k] = id.index[static_cast<std::size_t>(k)];
      for (auto& m : lc->order)
        if (m.index == idx) return member_object(lc->desc, m);
      return std::nullopt;
    }
    case object_kind::nodegroup_member: {
      const collection_desc* d = find_collection(id.collection);
      if (!d || !hosts_node_members()) return std::nullopt;
      void* member = d->node_member.load(std::memory_order_acquire);
      if (!member) return std::nullopt;
      return node_object(d, member);
    }
    case object_kind::none:
      break;
  }
  return std::nullopt;
}

bytes pack_local_object(const local_object& o) {
  const detail::class_ops& cls = detail::class_of(o);
  if (!cls.pack) throw std::logic_error("roam: " + std::string(cls.name) + " has no pup: it cannot be packed");
  return cls.pack(o.obj);
}

void unpack_local_object(const local_object& o, std::span<const std::byte> state) {
  const detail::class_ops& cls = detail::class_of(o);
  if (!cls.unpack_into) throw std::logic_error("roam: " + std::string(cls.name) + " has no pup: it cannot be unpacked");
  cls.unpack_into(o.obj, state);
}

bool migrate_local_object(const object_identity& id, std::uint32_t pe) {
  using namespace detail;
  this_pe("roam::migrate_local_object");
  if (id.kind == object_kind::array_element) {
    const collection_desc* d = find_collection(id.collection);
    if (!d || d->kind != collection_kind::array || !d->elem || !d->elem->moves->pack_state) return false;
    index_storage idx;
    for (int k = 0; k < 6; ++k) idx.v[k] = id.index[static_cast<std::size_t>(k)];
    // From the element's own entry: its request, carried out when the entry returns.
    if (tls_running_element && tls_running_element->descriptor() == d && tls_running_element->stored_index() == idx) {
      if (!local_element_count(d)) return false;
      tls_running_element->migrate_to(pe);
      return true;
    }
    return migrate_local_element(d, idx, pe);
  }
  if (id.kind != object_kind::chare) return false;
  pe_objects& objs = objects();
  auto it = objs.chares.find(id.chare_id);
  if (it == objs.chares.end() || !it->second.ops->moves->pack_state) return false;
  if (pe >= tls_pe->runtime().num_pes) return false;
  chare_record rec = it->second;
  chare_access::request_move(*rec.base, pe);
  // Within one of its own entries (its tasks are the current owner): carried
  // out when the entry returns; otherwise now (or when its threads end).
  if (tls_task_owner == &chare_access::tasks(*rec.base)) return true;
  carry_out_chare_move(objs, id.chare_id, rec);
  return true;
}

}  // namespace roam
