// Process-wide collection descriptors: found by id through a lock-free
// two-level table, made here or rebuilt from their wire form (classes, maps and
// element types found by the stable hashes of their names).
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <roam/msg/detail/stable_registry.hpp>
#include <roam/obj/detail/objects.hpp>

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

// Classes, element types and maps by the stable hash of their names.
stable_registry<const class_ops*>& classes() {
  static stable_registry<const class_ops*> r("class");
  return r;
}
stable_registry<const element_ops*>& element_types() {
  static stable_registry<const element_ops*> r("element type");
  return r;
}
stable_registry<map_fn>& maps() {
  static stable_registry<map_fn> r("map");
  return r;
}

}  // namespace

namespace {
// A restarted program numbers its new objects above every id its checkpoint
// holds (restore_id_floor); the highest id given so far is what a checkpoint saves.
std::atomic<std::uint32_t> g_id_floor{0};
std::atomic<std::uint32_t> g_id_highest{0};
}  // namespace

std::uint32_t program_wide_id(std::uint32_t seq) {
  runtime_state* rt = g_runtime.load();
  std::uint32_t nodes = rt ? rt->num_nodes : 1, node = rt ? rt->my_node : 0;
  std::uint64_t id = g_id_floor.load(std::memory_order_relaxed) + std::uint64_t{seq} * nodes + node + 1;
  if (id > 0x7fffffffu) {
    report_fatal("too many collections, sections or completion detectors in one program");
    std::abort();
  }
  auto v = static_cast<std::uint32_t>(id);
  std::uint32_t seen = g_id_highest.load(std::memory_order_relaxed);
  while (seen < v && !g_id_highest.compare_exchange_weak(seen, v, std::memory_order_relaxed)) {
  }
  return v;
}

std::uint32_t highest_program_wide_id() noexcept { return g_id_highest.load(std::memory_order_relaxed); }

void restore_id_floor(std::uint32_t highest) noexcept {
  g_id_floor.store(highest, std::memory_order_relaxed);
  std::uint32_t seen = g_id_highest.load(std::memory_order_relaxed);
  while (seen < highest && !g_id_highest.compare_exchange_weak(seen, highest, std::memory_order_relaxed)) {
  }
}

void forget_process_objects() noexcept {
  {
    auto& t = descriptors();
    std::lock_guard lock(t.mutex);
    for (auto& chunk : t.chunks)
      if (std::atomic<collection_desc*>* slots = chunk.load())
        for (std::size_t i = 0; i < chunk_size; ++i) slots[i].store(nullptr);
    t.owned.clear();
  }
  forget_sections();
  forget_bindings();
  discard_waiting_node_messages();
}

std::vector<collection_wire> known_collections() {
  auto& t = descriptors();
  std::lock_guard lock(t.mutex);
  std::vector<collection_wire> out;
  for (auto& d : t.owned) out.push_back(to_wire(d.get()));
  return out;
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

bool register_class(const class_ops* cls) { return classes().add(cls->id, cls, cls->name); }

bool register_element_ops(const element_ops* ops) { return element_types().add(ops->cls_id, ops, ops->class_name); }

bool register_map(std::string_view name, map_fn fn) { return maps().add(stable_hash(name), fn, name); }

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
  d->cls = classes().find(w.cls);
  if (!d->cls)
    throw pup_error("collection " + std::to_string(w.id) + " names a class this process does not know (same binary everywhere?)");
  if (w.map && !maps().find(w.map, d->map, d->map_name))
    throw pup_error("array " + std::string(d->cls->name) + " names a map this process does not know");
  if (d->kind == collection_kind::array) {
    d->elem = element_types().find(w.cls);
    if (!d->elem)
      throw pup_error("array " + std::string(d->cls->name) + " names an element type this process does not know");
  }
  auto& t = descriptors();
  std::lock_guard lock(t.mutex);
  if (const collection_desc* raced = find_collection(w.id)) return raced;  // another PE was first
  collection_desc* made = publish(t, std::move(d));
  register_binding(made);
  return made;
}

const collection_desc* find_collection(std::uint32_t id) noexcept {
  std::size_t c = id >> chunk_bits;
  if (c >= chunk_count) return nullptr;
  auto* chunk = descriptors().chunks[c].load(std::memory_order_acquire);
  return chunk ? chunk[id & (chunk_size - 1)].load(std::memory_order_acquire) : nullptr;
}

std::vector<const collection_desc*> nodegroup_descriptors() {
  auto& t = descriptors();
  std::lock_guard lock(t.mutex);
  std::vector<const collection_desc*> out;
  for (auto& d : t.owned)
    if (d->kind == collection_kind::nodegroup) out.push_back(d.get());
  return out;
}

void destroy_nodegroup_members() noexcept {
  auto& t = descriptors();
  std::lock_guard lock(t.mutex);
  for (auto& d : t.owned) {
    if (d->kind != collection_kind::nodegroup) continue;
    if (void* member = d->node_member.exchange(nullptr)) d->cls->destroy(member);
  }
}

}  // namespace roam::detail
