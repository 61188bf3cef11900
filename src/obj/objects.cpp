// The per-PE object table and message delivery. Each PE owns a pe_objects:
// only its thread touches it. Collection descriptors are process-wide and
// immutable; they are found by id through a lock-free two-level table.
#include <algorithm>
#include <array>
#include <cstdio>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <roam/obj/chare.hpp>
#include <roam/obj/map.hpp>
#include <roam/msg/detail/remote.hpp>
#include <roam/obj/detail/objects.hpp>
#include <roam/sched/detail/startup.hpp>
#include <roam/sched/detail/tree.hpp>

#include "pe_objects.hpp"

namespace roam::detail {

namespace {

// ---- process-wide collection descriptors -------------------------------

constexpr std::size_t chunk_bits = 10;
constexpr std::size_t chunk_size = std::size_t{1} << chunk_bits;
constexpr std::size_t chunk_count = 1024;  // up to a million collections per process

struct descriptor_table {
  std::mutex mutex;
  std::uint32_t next_seq = 0;  // this process's collections so far (ids: see objects.hpp)
  std::array<std::atomic<std::atomic<collection_desc*>*>, chunk_count> chunks{};
  std::vector<std::unique_ptr<collection_desc>> owned;
};

descriptor_table& descriptors() {
  static descriptor_table t;
  return t;
}

struct section_table {
  std::mutex mutex;
  std::uint32_t next_seq = 0;
  std::unordered_map<std::uint32_t, std::unique_ptr<section_desc>> by_id;  // never shrinks
  // Multicasts that reached this process before their section did, with their PE.
  std::unordered_map<std::uint32_t, std::vector<message*>> waiting;
};
section_table& sections() {
  static section_table t;
  return t;
}

// Classes and maps by the stable hash of their names.
struct name_registries {
  std::mutex mutex;
  std::unordered_map<std::uint64_t, const class_ops*> classes;
  std::unordered_map<std::uint64_t, std::pair<map_fn, std::string>> maps;
  std::unordered_map<std::uint64_t, const element_ops*> elements;
};
name_registries& registries() {
  static name_registries r;
  return r;
}

// Nodegroup messages that arrived before this process built its member.
struct node_member_waits {
  std::mutex mutex;
  std::unordered_map<std::uint32_t, std::vector<message*>> waiting;
};
node_member_waits& node_waits() {
  static node_member_waits w;
  return w;
}


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
  for (auto& [id, list] : objs->chare_pending)
    for (message* m : list) discard_message(m);
  if (pe.id() == pe.runtime().first_pe) {
    // Nodegroup members belong to the process; its first PE destroys them.
    auto& t = descriptors();
    std::lock_guard lock(t.mutex);
    for (auto& d : t.owned) {
      if (d->kind != collection_kind::nodegroup) continue;
      if (void* member = d->node_member.exchange(nullptr)) d->cls->destroy(member);
    }
    auto& w = node_waits();
    std::lock_guard wlock(w.mutex);
    for (auto& [id, list] : w.waiting)
      for (message* m : list) discard_message(m);
    w.waiting.clear();
    auto& sec = sections();
    std::lock_guard slock(sec.mutex);
    for (auto& [id, list] : sec.waiting)
      for (message* m : list) discard_message(m);
    sec.waiting.clear();
  }
  delete objs;
  pe.slot(layer_slot::objects) = nullptr;
}

void setup_objects(pe_state& pe) {
  auto* objs = new pe_objects();
  objs->chare_seq_seen.assign(pe.runtime().num_pes, 0);
  pe.slot(layer_slot::objects) = objs;
  pe.add_stop_hook([&pe]() { teardown_objects(pe); });
}

std::string describe_context(const delivery_context& ctx) {
  std::string s = describe_target(ctx.target, ctx.target == target_kind::chare ? nullptr : find_collection(ctx.collection),
                                  ctx.index, ctx.dims, ctx.ops ? ctx.ops->name : std::string_view{});
  if (ctx.target == target_kind::chare && ctx.ops) s.replace(0, 5, "chare " + std::string(ctx.ops->class_name));
  return s;
}

std::uint32_t* thread_counter(const delivery_context& ctx, void* obj) noexcept;
void threads_idle(const delivery_context& ctx, void* obj) noexcept;
void resume_chare_task(task_roots& roots, std::coroutine_handle<> h) noexcept;

void resume_owned_task(task_roots& roots, std::coroutine_handle<> h) noexcept {
  switch (roots.kind) {
    case task_owner_kind::element:
      resume_element_task(roots, h);
      return;
    case task_owner_kind::chare:
      resume_chare_task(roots, h);
      return;
    case task_owner_kind::none:
      h.resume();
      return;
  }
}

const bool registered = [] {
  register_pe_setup(&setup_objects);
  g_describe_delivery = &describe_context;
  g_thread_owner.counter = &thread_counter;
  g_thread_owner.idle = &threads_idle;
  g_task_owner.resume = &resume_owned_task;
  g_deliver_entry = &deliver;
  g_report_waiting_tasks = &print_waiting_tasks_here;
  install_remote_hooks();
  register_map("block", &block_map_fn);
  register_map("round_robin", &round_robin_map_fn);
  register_map("hash", &hash_map_fn);
  return true;
}();

}  // namespace

namespace {

std::uint64_t chare_id_of(const message& m) noexcept {
  return static_cast<std::uint32_t>(m.index.v[0]) | (std::uint64_t{static_cast<std::uint32_t>(m.index.v[1])} << 32);
}

}  // namespace

void report_delivery_failure(const message& m, const char* what) noexcept {
  report_fatal(describe_context(context_of(m)) + ": " + what);
}

void invoke_guarded(message* m, void* obj) noexcept {
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

namespace {

// Sends a copy of a fan-out message to PE `to`.
void forward_copy(const message* m, std::uint32_t to) noexcept {
  message* copy = clone_message(m);
  copy->dst_pe = to;
  copy->src_pe = tls_pe->id();
  post(to, copy);
}

// Passes a broadcast to this PE's children in the tree of all PEs rooted at the broadcast root.
void forward_broadcast(const message* m) noexcept {
  static_assert(broadcast_root == 0, "the node-aware tree is rooted at pe 0");
  runtime_state& rt = tls_pe->runtime();
  pe_tree{rt.num_pes, rt.ppn, rt.opts.bfactor}.for_each_child(tls_pe->id(), [&](std::uint32_t child) { forward_copy(m, child); });
}

// A multicast: pass it down the tree of the section's PEs, then deliver to
// this PE's members of the section, in index order.
void deliver_section(pe_objects& objs, message* m) noexcept {
  const section_desc* sec = find_section(static_cast<std::uint32_t>(m->index.v[0]));
  local_collection* lc = objs.find(m->collection);
  if (!lc || !lc->constructed) {
    objs.get(m->collection).pending.push_back(m);
    return;
  }
  if (!sec) {
    // Its description is still on the way from the process that made it.
    auto& t = sections();
    std::lock_guard lock(t.mutex);
    auto id = static_cast<std::uint32_t>(m->index.v[0]);
    if (auto it = t.by_id.find(id); it != t.by_id.end()) {
      sec = it->second.get();
    } else {
      m->dst_pe = tls_pe->id();
      t.waiting[id].push_back(m);
      return;
    }
  }
  auto pos = std::lower_bound(sec->pes.begin(), sec->pes.end(), tls_pe->id());
  if (pos == sec->pes.end() || *pos != tls_pe->id()) {
    report_delivery_failure(*m, "multicast reached a PE outside its section");
    discard_message(m);
    return;
  }
  auto rank = static_cast<std::uint32_t>(pos - sec->pes.begin());
  if (!(m->flags & work_forwarded)) {
    member_tree tree{sec->pes, tls_pe->runtime().ppn, tls_pe->runtime().opts.bfactor};
    tree.for_each_child(rank, [&](std::uint32_t child) { forward_copy(m, sec->pes[child]); });
    m->flags |= work_forwarded;
  }
  const collection_desc* d = lc->desc;
  for (const index_storage& idx : sec->keys_by_rank[rank]) {
    if (tls_pe->runtime().stopping()) break;
    if (d->kind != collection_kind::array) {
      void* obj = lc->elements.find(idx);
      m->target = target_kind::element;
      m->index = idx;
      if (!obj) {
        report_delivery_failure(*m, "section member missing on its PE");
        break;
      }
      invoke_guarded(m, obj);
      continue;
    }
    // One copy per member, addressed to it: one that moved away is followed
    // by location management, still exactly once.
    message* one = clone_message(m);
    one->target = target_kind::element;
    one->index = idx;
    one->flags &= ~static_cast<std::uint32_t>(work_forwarded);
    one->src_pe = tls_pe->id();
    deliver_to_element(*lc, one);
  }
  discard_message(m);
}

void deliver_to_chare(pe_objects& objs, message* m) noexcept {
  std::uint64_t id = chare_id_of(*m);
  auto it = objs.chares.find(id);
  if (it == objs.chares.end()) {
    if (forward_chare_message(objs, m, id)) return;
    std::uint32_t creator = static_cast<std::uint32_t>(id >> 40);
    std::uint64_t seq = id & ((std::uint64_t{1} << 40) - 1);
    if (creator < objs.chare_seq_seen.size() && seq > objs.chare_seq_seen[creator]) {
      objs.chare_pending[id].push_back(m);  // its creation is still on the way
      return;
    }
    report_delivery_failure(*m, "no such chare here (it was destroyed, or the proxy is invalid)");
    discard_message(m);
    return;
  }
  chare_record rec = it->second;
  correct_chare_sender(*m, id, rec);
  task_roots* outer_tasks = tls_task_owner;
  tls_task_owner = &chare_access::tasks(*rec.base);
  invoke_guarded(m, rec.obj);
  tls_task_owner = outer_tasks;
  discard_message(m);
  // With a threaded entry still blocked on it, the chare dies when its last thread ends (chare_threads_done).
  if (rec.base->destroy_requested() && chare_access::threads(*rec.base) == 0) {
    objs.chares.erase(id);
    chare_access::tasks(*rec.base).destroy_all();
    rec.ops->cls->destroy(rec.obj);
    return;
  }
  carry_out_chare_move(objs, id, rec);
}

// ---- threaded entries (docs/design/threads.md) ----------------------------
// An object with unfinished threads is neither moved nor destroyed: the
// threads hold its address. What it asked for meanwhile is carried out, in a
// message of its own, once the last one ends.

void chare_threads_done(std::uint64_t id) noexcept {
  pe_objects& objs = objects();
  auto it = objs.chares.find(id);
  if (it == objs.chares.end()) return;
  chare_record rec = it->second;
  if (chare_access::threads(*rec.base) != 0) return;  // another thread started meanwhile: it will call again
  if (rec.base->destroy_requested()) {
    objs.chares.erase(it);
    chare_access::tasks(*rec.base).destroy_all();
    rec.ops->cls->destroy(rec.obj);
    return;
  }
  carry_out_chare_move(objs, id, rec);
}

// A task that held its chare resumes (a future or timer it waited on is here):
// as the chare's entry would, then what it asked for meanwhile is carried out.
void resume_chare_task(task_roots& roots, std::coroutine_handle<> h) noexcept {
  --chare_access::threads(*static_cast<chare_base*>(roots.owner));
  task_roots* outer_tasks = tls_task_owner;
  tls_task_owner = &roots;
  h.resume();
  tls_task_owner = outer_tasks;
  chare_threads_done(roots.owner_id);
}

std::uint32_t* thread_counter(const delivery_context& ctx, void* obj) noexcept {
  if (ctx.target == target_kind::chare) {
    pe_objects& objs = objects();
    auto it = objs.chares.find(static_cast<std::uint32_t>(ctx.index.v[0]) |
                               (std::uint64_t{static_cast<std::uint32_t>(ctx.index.v[1])} << 32));
    return it == objs.chares.end() ? nullptr : &chare_access::threads(*it->second.base);
  }
  if (ctx.target != target_kind::element) return nullptr;
  const collection_desc* d = find_collection(ctx.collection);
  if (!d || d->kind != collection_kind::array || !d->elem) return nullptr;  // group members stay put
  return &element_access::threads(*d->elem->base(obj));
}

void threads_idle(const delivery_context& ctx, void* obj) noexcept {
  std::uint32_t pe = tls_pe->id();
  if (ctx.target == target_kind::chare) {
    std::uint64_t id = static_cast<std::uint32_t>(ctx.index.v[0]) |
                       (std::uint64_t{static_cast<std::uint32_t>(ctx.index.v[1])} << 32);
    auto it = objects().chares.find(id);
    if (it != objects().chares.end() &&
        (it->second.base->destroy_requested() || chare_access::move_requested(*it->second.base)))
      post_closure(pe, [id]() noexcept { chare_threads_done(id); });
    return;
  }
  const collection_desc* d = find_collection(ctx.collection);
  if (!d || !d->elem || !element_access::has_request(*d->elem->base(obj))) return;
  post_closure(pe, [c = ctx.collection, idx = ctx.index, obj]() noexcept { element_threads_done(c, idx, obj); });
}

}  // namespace

// ---- descriptors ----------------------------------------------------------

std::uint32_t program_wide_id(std::uint32_t seq) {
  runtime_state* rt = g_runtime.load();
  std::uint32_t nodes = rt ? rt->num_nodes : 1, node = rt ? rt->my_node : 0;
  std::uint64_t id = std::uint64_t{seq} * nodes + node + 1;
  if (id > 0x7fffffffu) {
    report_fatal("too many collections, sections or completion detectors in one program");
    std::abort();
  }
  return static_cast<std::uint32_t>(id);
}


namespace {

// Publishes `d` under its id; the caller holds the table's mutex.
collection_desc* publish(descriptor_table& t, std::unique_ptr<collection_desc> d) {
  std::uint32_t id = d->id;
  std::size_t c = id >> chunk_bits;
  if (c >= chunk_count) {
    report_fatal("collection id " + std::to_string(id) + " beyond this process's table");
    std::abort();
  }
  auto* chunk = t.chunks[c].load(std::memory_order_acquire);
  if (!chunk) {
    chunk = new std::atomic<collection_desc*>[chunk_size]();
    t.chunks[c].store(chunk, std::memory_order_release);
  }
  collection_desc* raw = d.get();
  t.owned.push_back(std::move(d));
  chunk[id & (chunk_size - 1)].store(raw, std::memory_order_release);
  return raw;
}

}  // namespace

bool register_class(const class_ops* cls) {
  auto& r = registries();
  std::lock_guard lock(r.mutex);
  r.classes.emplace(cls->id, cls);
  return true;
}

bool register_element_ops(const element_ops* ops) {
  auto& r = registries();
  std::lock_guard lock(r.mutex);
  r.elements.emplace(ops->cls_id, ops);
  return true;
}

bool register_map(std::string_view name, map_fn fn) {
  auto& r = registries();
  std::lock_guard lock(r.mutex);
  r.maps.emplace(stable_hash(name), std::pair{fn, std::string(name)});
  return true;
}

collection_desc* new_collection(collection_kind kind, const class_ops* cls) {
  auto& t = descriptors();
  std::lock_guard lock(t.mutex);
  auto d = std::make_unique<collection_desc>();
  d->id = program_wide_id(t.next_seq++);
  d->kind = kind;
  d->cls = cls;
  return publish(t, std::move(d));
}

collection_wire to_wire(const collection_desc* d) {
  collection_wire w;
  w.id = d->id;
  w.kind = static_cast<std::uint8_t>(d->kind);
  w.dims = d->dims;
  w.cls = d->cls->id;
  w.map = d->map ? stable_hash(d->map_name) : 0;
  w.volume = d->volume;
  w.shape = d->shape;
  w.array_flags = static_cast<std::uint8_t>((d->sparse ? 1 : 0) | (d->user_index ? 2 : 0) | (d->demand_creation ? 4 : 0));
  w.bound_to = d->bound_to;
  return w;
}

const collection_desc* ensure_collection(const collection_wire& w) {
  if (const collection_desc* d = find_collection(w.id)) return d;
  if (w.kind > static_cast<std::uint8_t>(collection_kind::nodegroup) || w.dims > 6)
    throw pup_error("collection " + std::to_string(w.id) + " arrived with an invalid description");
  auto d = std::make_unique<collection_desc>();
  d->id = w.id;
  d->kind = static_cast<collection_kind>(w.kind);
  d->dims = w.dims;
  d->shape = w.shape;
  d->volume = w.volume;
  d->sparse = w.array_flags & 1;
  d->user_index = w.array_flags & 2;
  d->demand_creation = w.array_flags & 4;
  d->bound_to = w.bound_to;
  if (d->sparse || d->user_index || d->demand_creation) d->dynamic.store(true, std::memory_order_relaxed);
  {
    auto& r = registries();
    std::lock_guard lock(r.mutex);
    auto c = r.classes.find(w.cls);
    if (c == r.classes.end())
      throw pup_error("collection " + std::to_string(w.id) + " names a class this process does not know (same binary everywhere?)");
    d->cls = c->second;
    if (w.map) {
      auto m = r.maps.find(w.map);
      if (m == r.maps.end())
        throw pup_error("array " + std::string(d->cls->name) + " names a map this process does not know");
      d->map = m->second.first;
      d->map_name = m->second.second;
    }
    if (d->kind == collection_kind::array) {
      auto e = r.elements.find(w.cls);
      if (e == r.elements.end())
        throw pup_error("array " + std::string(d->cls->name) + " names an element type this process does not know");
      d->elem = e->second;
    }
  }
  auto& t = descriptors();
  std::lock_guard lock(t.mutex);
  if (const collection_desc* raced = find_collection(w.id)) return raced;  // another PE was first
  collection_desc* made = publish(t, std::move(d));
  register_binding(made);
  return made;
}

namespace {

// The PEs hosting members and each one's keys; every process computes the same.
std::unique_ptr<section_desc> build_section(std::uint32_t id, const collection_desc* array, std::vector<index_storage> keys) {
  std::sort(keys.begin(), keys.end(), [](const index_storage& a, const index_storage& b) {
    return std::lexicographical_compare(std::begin(a.v), std::end(a.v), std::begin(b.v), std::end(b.v));
  });
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  auto d = std::make_unique<section_desc>();
  d->id = id;
  d->array = array;
  d->size = keys.size();
  std::uint32_t pes = g_runtime.load()->num_pes;
  std::vector<std::vector<index_storage>> by_pe(pes);
  for (const index_storage& key : keys) {
    if (array->kind == collection_kind::group) {  // a group section: the key is the PE
      if (static_cast<std::uint32_t>(key.v[0]) < pes) by_pe[static_cast<std::uint32_t>(key.v[0])].push_back(key);
      continue;
    }
    // Members are reached at their home; location management takes a
    // message on from there to a member that lives elsewhere.
    by_pe[home_of(array, key)].push_back(key);
  }
  for (std::uint32_t pe = 0; pe < pes; ++pe) {
    if (by_pe[pe].empty()) continue;
    d->pes.push_back(pe);
    d->keys_by_rank.push_back(std::move(by_pe[pe]));
  }
  return d;
}

std::vector<index_storage> section_keys(const section_desc* d) {
  std::vector<index_storage> keys;
  keys.reserve(d->size);
  for (const auto& k : d->keys_by_rank) keys.insert(keys.end(), k.begin(), k.end());
  return keys;
}

// Registers a section made elsewhere and releases the multicasts that waited for it.
const section_desc* adopt_section(std::uint32_t id, const collection_desc* array, std::vector<index_storage> keys) {
  auto d = build_section(id, array, std::move(keys));
  std::vector<message*> released;
  const section_desc* result = nullptr;
  {
    auto& t = sections();
    std::lock_guard lock(t.mutex);
    auto [it, fresh] = t.by_id.try_emplace(id, std::move(d));
    result = it->second.get();
    if (auto w = t.waiting.find(id); w != t.waiting.end()) {
      released = std::move(w->second);
      t.waiting.erase(w);
    }
  }
  runtime_state& rt = *g_runtime.load();
  for (message* m : released) rt.pe(m->dst_pe).enqueue_remote(m);
  return result;
}

void register_remote_section(std::uint32_t id, collection_wire array, std::vector<index_storage> keys) {
  adopt_section(id, ensure_collection(array), std::move(keys));
}

}  // namespace

const section_desc* new_section(const collection_desc* array, std::vector<index_storage> keys) {
  auto& t = sections();
  std::uint32_t id = 0;
  {
    std::lock_guard lock(t.mutex);
    id = program_wide_id(t.next_seq++);
  }
  const section_desc* d = adopt_section(id, array, std::move(keys));
  runtime_state& rt = tls_pe->runtime();
  if (rt.num_nodes > 1) {
    std::vector<index_storage> all = section_keys(d);
    for (std::uint32_t node = 0; node < rt.num_nodes; ++node)
      if (node != rt.my_node) post_control_uncounted<&register_remote_section>(rt.first_pe_of(node), id, to_wire(array), all);
  }
  return d;
}

const section_desc* find_section(std::uint32_t id) noexcept {
  auto& t = sections();
  std::lock_guard lock(t.mutex);
  auto it = t.by_id.find(id);
  return it == t.by_id.end() ? nullptr : it->second.get();
}

void pup_section(pup_er& p, const section_desc*& d) {
  std::uint32_t id = d ? d->id : 0;
  p | id;
  if (id == 0) {
    if (p.is_unpacking()) d = nullptr;
    return;
  }
  collection_wire array;
  std::vector<index_storage> keys;
  if (!p.is_unpacking()) {
    array = to_wire(d->array);
    keys = section_keys(d);
  }
  p | array | keys;
  if (p.is_unpacking()) {
    d = find_section(id);
    if (!d) d = adopt_section(id, ensure_collection(array), std::move(keys));
  }
}

// ---- nodegroups ---------------------------------------------------------

void install_node_member(const collection_desc* desc, void* member) {
  std::vector<message*> released;
  {
    auto& w = node_waits();
    std::lock_guard lock(w.mutex);
    const_cast<collection_desc*>(desc)->node_member.store(member, std::memory_order_release);
    if (auto it = w.waiting.find(desc->id); it != w.waiting.end()) {
      released = std::move(it->second);
      w.waiting.erase(it);
    }
  }
  runtime_state& rt = *g_runtime.load();
  for (message* m : released) rt.enqueue_node(m);
}

void send_node_message(message* m, std::uint32_t node) {
  pe_state& me = this_pe("roam send");
  runtime_state& rt = me.runtime();
  m->src_pe = me.id();
  if (node != all_nodes && node >= rt.num_nodes) {
    report_bad_send(describe_target(target_kind::nodegroup, find_collection(m->collection), m->index, 0, m->ops->name) +
                    ": node " + std::to_string(node) + " outside [0," + std::to_string(rt.num_nodes) + ")");
    m->ops->destroy(m);
    free_message(m);
    return;
  }
  if (node == all_nodes) {
    // One packed copy per other node; this node keeps the original.
    for (std::uint32_t n = 0; n < rt.num_nodes; ++n) {
      if (n == rt.my_node) continue;
      me.count_created();
      me.count_sent_away();
      m->dst_pe = rt.first_pe_of(n);
      send_copy_to(rt, m->dst_pe, *m);
    }
    node = rt.my_node;
  }
  me.count_created();
  me.count_sent_away();  // any PE of the node may run it
  m->dst_pe = rt.first_pe_of(node);
  if (node != rt.my_node) {
    route(rt, m->dst_pe, m);
    return;
  }
  if (rt.opts.serialize) [[unlikely]] m = roundtrip_through_wire(m);
  rt.enqueue_node(m);
}

const collection_desc* find_collection(std::uint32_t id) noexcept {
  std::size_t c = id >> chunk_bits;
  if (c >= chunk_count) return nullptr;
  auto* chunk = descriptors().chunks[c].load(std::memory_order_acquire);
  return chunk ? chunk[id & (chunk_size - 1)].load(std::memory_order_acquire) : nullptr;
}

const construction_context& current_construction(const char* base) {
  if (!tls_constructing) {
    std::fprintf(stderr,
                 "roam: %s constructed directly; create it through roam::create_chare / create_array / "
                 "create_group / create_nodegroup\n",
                 base);
    std::abort();
  }
  return *tls_constructing;
}

// ---- construction ---------------------------------------------------------

void construct_local_members(const collection_desc* desc, void* (*make)(const void*, const construction_context&),
                             const void* args) {
  pe_objects& objs = objects();
  local_collection& lc = objs.get(desc->id);
  lc.desc = desc;
  std::uint32_t me = tls_pe->id();
  std::uint32_t pes = tls_pe->runtime().num_pes;
  construction_context ctx;
  ctx.desc = desc;
  ctx.pe = me;
  auto build = [&]() {
    tls_constructing = &ctx;
    try {
      void* obj = make(args, ctx);
      lc.elements.insert(ctx.index, obj);
      lc.order.push_back({obj, ctx.index});
      if (desc->elem && g_element_hooks.here) g_element_hooks.here(desc, 0);
    } catch (const std::exception& e) {
      report_fatal(describe_target(desc->kind == collection_kind::array ? target_kind::element : target_kind::group_member,
                                   desc, ctx.index, desc->dims, "constructor") +
                   ": threw: " + e.what());
    }
    tls_constructing = nullptr;
  };
  if (desc->kind == collection_kind::group) {
    ctx.index.v[0] = static_cast<std::int32_t>(me);
    build();
  } else if (!desc->sparse) {
    // Walk the index space in row-major order and build what maps here.
    for (std::uint64_t l = 0; l < desc->volume; ++l) {
      index_storage idx = delinearize(l, desc->shape, desc->dims);
      std::uint32_t pe = desc->map(idx, desc->shape, desc->dims, pes);
      if (pe >= pes) {
        report_fatal("array " + std::string(desc->cls->name) + ": map '" + desc->map_name + "' returned pe " +
                     std::to_string(pe) + " outside [0," + std::to_string(pes) + ")");
        return;
      }
      if (pe != me) continue;
      ctx.index = idx;
      build();
    }
  }
  lc.constructed = true;
  if (desc->elem && g_element_hooks.constructed) g_element_hooks.constructed(desc);
  auto pending = std::move(lc.pending);
  lc.pending.clear();
  for (message* m : pending) deliver(m, work_action::run);
}

void* local_group_member(std::uint32_t collection) noexcept {
  local_collection* lc = objects().find(collection);
  return lc && lc->constructed && !lc->order.empty() ? lc->order.front().obj : nullptr;
}

std::uint64_t new_chare_id() noexcept {
  pe_objects& objs = objects();
  return (std::uint64_t{tls_pe->id()} << 40) | ++objs.next_chare_seq;
}

std::uint32_t place_chare() noexcept {
  pe_objects& objs = objects();
  std::uint32_t pes = tls_pe->runtime().num_pes;
  return (tls_pe->id() + ++objs.placement) % pes;
}

void register_chare(std::uint64_t id, void* obj, chare_base* base, const chare_ops* ops) {
  pe_objects& objs = objects();
  objs.chares.emplace(id, chare_record{obj, base, ops});
  std::uint32_t creator = static_cast<std::uint32_t>(id >> 40);
  std::uint64_t seq = id & ((std::uint64_t{1} << 40) - 1);
  if (creator < objs.chare_seq_seen.size() && seq > objs.chare_seq_seen[creator]) objs.chare_seq_seen[creator] = seq;
  auto it = objs.chare_pending.find(id);
  if (it != objs.chare_pending.end()) {
    auto waiting = std::move(it->second);
    objs.chare_pending.erase(it);
    for (message* m : waiting) deliver(m, work_action::run);
  }
}

namespace {
void destroy_chare_here(std::uint64_t id) {
  pe_objects& objs = objects();
  auto it = objs.chares.find(id);
  if (it == objs.chares.end()) {
    // It moved on: the destroy follows it, behind the messages sent before it.
    if (auto w = objs.chare_where.find(id); w != objs.chare_where.end() && w->second.pe != tls_pe->id()) {
      post_control<&destroy_chare_here>(w->second.pe, 0, id);
      return;
    }
    report_fatal("destroy of chare #" + std::to_string(id >> 40) + "." + std::to_string(id & ((std::uint64_t{1} << 40) - 1)) +
                 ": no such chare here");
    return;
  }
  chare_record rec = it->second;
  if (chare_access::threads(*rec.base) != 0) {
    rec.base->destroy_self();  // a threaded entry still runs on it: destroyed when the last ends
    return;
  }
  objs.chares.erase(it);
  chare_access::tasks(*rec.base).destroy_all();
  rec.ops->cls->destroy(rec.obj);
}
}  // namespace

void destroy_chare(std::uint32_t pe, std::uint64_t id) { post_control<&destroy_chare_here>(pe, 0, id); }

// ---- delivery -------------------------------------------------------------

void deliver(work_item* w, work_action a) noexcept {
  auto* m = static_cast<message*>(w);
  if (a == work_action::discard) {
    discard_message(m);
    return;
  }
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
    case target_kind::nodegroup: {
      const collection_desc* d = find_collection(m->collection);
      void* member = d ? d->node_member.load(std::memory_order_acquire) : nullptr;
      if (!member) {
        // This process's member is still being built (its creation message is on the way).
        auto& waits = node_waits();
        std::lock_guard lock(waits.mutex);
        d = find_collection(m->collection);
        member = d ? d->node_member.load(std::memory_order_acquire) : nullptr;
        if (!member) {
          waits.waiting[m->collection].push_back(m);
          return;
        }
      }
      if (m->ops->exclusive) {
        std::lock_guard lock(d->exclusive);
        invoke_guarded(m, member);
      } else {
        invoke_guarded(m, member);
      }
      break;
    }
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
    for (int k = 0; k < dims; ++k) c += (k ? "," : "") + std::to_string(idx.v[k]);
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
      std::uint64_t id = static_cast<std::uint32_t>(idx.v[0]) | (std::uint64_t{static_cast<std::uint32_t>(idx.v[1])} << 32);
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
