// The object tables' side of checkpoints (include/roam/obj/detail/checkpoint_support.hpp):
// packing every object of a PE with its identity, finding work a cut would
// lose, and rebuilding objects from saved state in a fresh run of any size.
#include <roam/obj/detail/checkpoint_support.hpp>

#include <stdexcept>
#include <string>

#include "element_internal.hpp"
#include "pe_objects.hpp"

namespace roam::detail {

namespace {

// Sets the construction context for the base-class constructors and clears it however they end.
class constructing {
 public:
  explicit constructing(const construction_context& ctx) noexcept { tls_constructing = &ctx; }
  ~constructing() { tls_constructing = nullptr; }
  constructing(const constructing&) = delete;
  constructing& operator=(const constructing&) = delete;
};

std::string here() { return " on pe " + std::to_string(tls_pe->id()); }

// Why an object with these tasks and threads cannot be saved now (empty: it can).
std::string unsaveable_tasks(const task_roots& tasks, std::uint32_t threads) {
  if (threads != 0)
    return std::to_string(threads) + " threaded entries (or tasks waiting on a future or timer) are suspended in it";
  if (tasks.size() != tasks.restartable)
    return std::to_string(tasks.size() - tasks.restartable) +
           " of its entry tasks are suspended and are not its restart entry: a coroutine cannot be saved (make it the "
           "class's restart_entry, or checkpoint after they finish; docs/design/flow.md)";
  return {};
}

}  // namespace

std::string pack_objects_for_checkpoint(
    const std::function<void(saved_object&& who, const class_ops& cls, void* obj)>& sink) {
  pe_objects& objs = objects();
  const std::uint32_t me = tls_pe->id();
  const std::uint32_t node = tls_pe->runtime().my_node;
  std::string current;
  auto refusal = [&](const std::string& who, const std::string& why) {
    return who + here() + ": cannot be checkpointed: " + why;
  };
  auto add = [&](saved_object o, const class_ops& cls, void* obj) {
    o.pe = me;
    o.node = node;
    current = o.name;
    sink(std::move(o), cls, obj);
  };
  const std::string blank_needed =
      "it needs a pup function and a constructor taking roam::migrating (or a default constructor)";
  try {
    for (auto& [id, rec] : objs.chares) {
      saved_object o;
      o.kind = object_kind::chare;
      o.chare_id = id;
      o.home = chare_access::home(*rec.base);
      o.class_id = rec.ops->cls_id;
      o.name = "chare " + std::string(rec.ops->cls->name) + " #" + std::to_string(id >> 40) + "." +
               std::to_string(id & ((std::uint64_t{1} << 40) - 1));
      if (!rec.ops->moves->pack_state || !rec.ops->cls->pack_to)
        return refusal(o.name, rec.ops->moves->not_migratable_why);
      task_roots& tasks = chare_access::tasks(*rec.base);
      if (auto why = unsaveable_tasks(tasks, chare_access::threads(*rec.base)); !why.empty())
        return refusal(o.name, why);
      o.restarts = tasks.restartable;
      add(std::move(o), *rec.ops->cls, rec.obj);
    }
    for (auto& lc : objs.collections) {
      if (!lc || !lc->desc || !lc->constructed) continue;
      const collection_desc* d = lc->desc;
      const bool array = d->kind == collection_kind::array;
      for (auto& m : lc->order) {
        saved_object o;
        o.kind = array ? object_kind::array_element : object_kind::group_member;
        o.collection = to_wire(d);
        o.index = m.index;
        o.class_id = d->cls->id;
        o.name = describe_target(array ? target_kind::element : target_kind::group_member, d, m.index,
                                 array ? d->dims : 1, "");
        if (array) {
          if (!d->elem->moves->pack_state || !d->cls->pack_to)
            return refusal(o.name, d->elem->moves->not_migratable_why);
          element_base& b = base_of(*lc, m.obj);
          task_roots& tasks = element_access::tasks(b);
          if (auto why = unsaveable_tasks(tasks, element_access::threads(b)); !why.empty()) return refusal(o.name, why);
          o.restarts = tasks.restartable;
          add(std::move(o), *d->cls, m.obj);
        } else {
          if (!d->cls->pack_to || !d->cls->make_blank) return refusal(o.name, blank_needed);
          add(std::move(o), *d->cls, m.obj);
        }
      }
    }
    if (me == tls_pe->runtime().first_pe) {
      for (const collection_desc* d : nodegroup_descriptors()) {
        void* member = d->node_member.load(std::memory_order_acquire);
        if (!member) continue;
        saved_object o;
        o.kind = object_kind::nodegroup_member;
        o.collection = to_wire(d);
        o.class_id = d->cls->id;
        o.name = "nodegroup " + std::string(d->cls->name) + " (process " + std::to_string(node) + ")";
        if (!d->cls->pack_to || !d->cls->make_blank) return refusal(o.name, blank_needed);
        add(std::move(o), *d->cls, member);
      }
    }
  } catch (const std::exception& e) {
    if (current.empty()) return std::string("pe ") + std::to_string(me) + ": checkpoint: " + e.what();
    return refusal(current, std::string("its pup threw: ") + e.what());
  }
  return {};
}

std::string parked_work_here() {
  pe_objects& objs = objects();
  std::size_t chare_msgs = 0;
  for (auto& [id, list] : objs.chare_pending) chare_msgs += list.size();
  if (chare_msgs) return std::to_string(chare_msgs) + " messages wait for chares that do not exist yet" + here();
  for (auto& lc : objs.collections) {
    if (!lc) continue;
    std::string name = lc->desc ? std::string(lc->desc->cls->name) : std::string("#");
    if (!lc->desc) name += std::to_string(&lc - objs.collections.data());  // piecewise: no GCC 12 false warning
    if (!lc->pending.empty())
      return std::to_string(lc->pending.size()) + " messages wait for collection " + name + " to be built" + here();
    if (!lc->bcast_early.empty() || !lc->bcast_held.empty())
      return "broadcasts to array " + name + " wait for earlier ones or for insertions" + here();
    if (lc->loc) {
      std::size_t n = 0;
      for (auto& [idx, list] : lc->loc->unknown) n += list.size();
      for (auto& [idx, list] : lc->loc->arriving) n += list.size();
      if (n)
        return std::to_string(n) + " messages wait for elements of array " + name + " not inserted or not arrived" +
               here();
    }
  }
  return {};
}

std::uint32_t restored_element_pe(const saved_object& o) {
  const collection_desc* d = ensure_collection(o.collection);
  return home_of(d, o.index);
}

std::uint32_t saved_member_for(std::uint32_t new_member, std::uint32_t saved_members) noexcept {
  return saved_members == 0 ? 0 : new_member % saved_members;
}

namespace {

const collection_desc* restored_collection(const saved_object& o, collection_kind kind) {
  const collection_desc* d = ensure_collection(o.collection);
  if (d->kind != kind || d->cls->id != o.class_id)
    throw std::logic_error("collection " + std::to_string(d->id) + " of this process is a " +
                           std::string(d->cls->name) + ", not the saved one");
  return d;
}

// A group or nodegroup member built blank under `ctx` and filled from its saved state.
void* blank_member_from(const collection_desc* d, const construction_context& ctx, std::span<const std::byte> state) {
  if (!d->cls->make_blank || !d->cls->unpack_into) throw std::logic_error("it has no pup or no migrating constructor");
  void* obj = nullptr;
  {
    constructing guard(ctx);
    obj = d->cls->make_blank();
  }
  try {
    d->cls->unpack_into(obj, state);
  } catch (...) {
    d->cls->destroy(obj);
    throw;
  }
  return obj;
}

void remember_restarts(const object_identity& who, std::uint32_t count) {
  if (count) objects().restarts_after_restore.push_back({who, count});
}

}  // namespace

void restore_element(const saved_object& o, std::span<const std::byte> state) {
  const collection_desc* d = restored_collection(o, collection_kind::array);
  if (!d->elem->moves->unpack_state) throw std::logic_error(d->elem->moves->not_migratable_why);
  local_collection& lc = objects().get(d->id);
  lc.desc = d;
  if (lc.elements.find(o.index)) throw std::logic_error("it is in the checkpoint twice");
  construction_context ctx;
  ctx.desc = d;
  ctx.index = o.index;
  ctx.pe = tls_pe->id();
  void* obj = nullptr;
  {
    constructing guard(ctx);
    obj = d->elem->moves->unpack_state(state);
  }
  link(lc, o.index, obj);
  if (g_population_counter.here) g_population_counter.here(d, 0);
  member_lifecycle(lifecycle_step::arrived, d, o.index, obj);
  remember_restarts(element_identity(d, o.index), o.restarts);
}

void restore_chare(const saved_object& o, std::span<const std::byte> state) {
  const chare_ops* ops = chare_ops_by_class(o.class_id);
  if (!ops) throw std::logic_error("its type is not known to this program");
  if (!ops->moves->unpack_state) throw std::logic_error(ops->moves->not_migratable_why);
  construction_context ctx;
  ctx.chare_id = o.chare_id;
  ctx.pe = restored_chare_home(o.home);
  void* obj = nullptr;
  {
    constructing guard(ctx);
    obj = ops->moves->unpack_state(state);
  }
  register_chare(o.chare_id, obj, ops->base(obj), ops);
  remember_restarts(chare_identity(o.chare_id), o.restarts);
}

void restore_group_member(const saved_object& o, std::span<const std::byte> state) {
  const collection_desc* d = restored_collection(o, collection_kind::group);
  local_collection& lc = objects().get(d->id);
  lc.desc = d;
  if (!lc.order.empty()) throw std::logic_error("this PE has a member already");
  construction_context ctx;
  ctx.desc = d;
  ctx.index.v[0] = static_cast<std::int32_t>(tls_pe->id());
  ctx.pe = tls_pe->id();
  void* obj = blank_member_from(d, ctx, state);
  lc.elements.insert(ctx.index, obj);
  lc.order.push_back({obj, ctx.index});
  member_lifecycle(lifecycle_step::arrived, d, ctx.index, obj);
}

void restore_nodegroup_member(const saved_object& o, std::span<const std::byte> state) {
  const collection_desc* d = restored_collection(o, collection_kind::nodegroup);
  if (d->node_member.load(std::memory_order_acquire)) throw std::logic_error("this process has a member already");
  construction_context ctx;
  ctx.desc = d;
  ctx.pe = tls_pe->id();
  install_node_member(d, blank_member_from(d, ctx, state));
}

void finish_restored_collections(std::span<const collection_wire> collections) {
  pe_objects& objs = objects();
  for (const collection_wire& w : collections) {
    const collection_desc* d = ensure_collection(w);
    if (d->kind == collection_kind::nodegroup) continue;
    local_collection& lc = objs.get(d->id);
    lc.desc = d;
    if (lc.constructed) continue;
    lc.constructed = true;
    if (d->elem && g_population_counter.constructed) g_population_counter.constructed(d);
    auto pending = std::move(lc.pending);
    lc.pending.clear();
    for (message* m : pending) deliver(m, work_action::run);
  }
}

void reserve_chare_ids(std::uint64_t highest_seq) noexcept {
  pe_objects& objs = objects();
  if (objs.next_chare_seq < highest_seq) objs.next_chare_seq = highest_seq;
}

void restart_restored_tasks() {
  pe_objects& objs = objects();
  auto pending = std::move(objs.restarts_after_restore);
  objs.restarts_after_restore.clear();
  for (const restored_restart& r : pending) {
    if (r.who.kind == object_kind::chare) {
      auto it = objs.chares.find(r.who.chare_id);
      if (it == objs.chares.end()) continue;
      chare_record rec = it->second;
      const std::string name = "chare " + std::string(rec.ops->cls->name) + here();
      task_roots* outer = tls_task_owner;
      tls_task_owner = &chare_access::tasks(*rec.base);
      for (std::uint32_t k = 0; k < r.count; ++k)
        rec.ops->moves->restart(rec.obj, name + " (restarted from a checkpoint)");
      tls_task_owner = outer;
      carry_out_chare_move(objs, r.who.chare_id, rec);
      continue;
    }
    local_collection* lc = objs.find(r.who.collection);
    if (!lc) continue;
    index_storage idx;
    for (int k = 0; k < 6; ++k) idx.v[k] = r.who.index[static_cast<std::size_t>(k)];
    void* obj = lc->elements.find(idx);
    if (!obj) continue;
    element_base& b = base_of(*lc, obj);
    const std::string name = describe_element(lc->desc, idx) + here() + " (restarted from a checkpoint)";
    element_base* outer = tls_running_element;
    task_roots* outer_tasks = tls_task_owner;
    tls_running_element = &b;
    tls_task_owner = &element_access::tasks(b);
    for (std::uint32_t k = 0; k < r.count; ++k) lc->desc->elem->moves->restart(obj, name);
    tls_running_element = outer;
    tls_task_owner = outer_tasks;
    run_entry(*lc, nullptr, obj);
  }
}

namespace {
restart_exchange g_restart_exchange;
}  // namespace

void register_restart_exchange(restart_exchange x) noexcept { g_restart_exchange = x; }
restart_exchange registered_restart_exchange() noexcept { return g_restart_exchange; }

}  // namespace roam::detail
