#pragma once
// Collections and the send path shared by every proxy kind. A collection
// (array, group, nodegroup) has a process-wide immutable descriptor created
// before its proxy is returned (src/obj/descriptors.cpp); each PE keeps its
// own table of the members it hosts (src/obj/pe_objects.cpp). Singleton chares
// have no descriptor: they are addressed by (PE, 64-bit id).
//
// Across processes a descriptor travels as a `collection_wire` (in creation
// messages and in every packed proxy) and is rebuilt on arrival: classes and
// maps are found by the stable hashes of their names, which every process of
// one binary registers at start-up. Ids are unique program-wide without
// coordination: process n of N numbers its k-th collection k * N + n + 1.
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <atomic>
#include <tuple>
#include <utility>
#include <vector>

#include <roam/msg/buffer.hpp>
#include <roam/msg/detail/control.hpp>
#include <roam/msg/detail/entry.hpp>
#include <roam/msg/detail/wire.hpp>
#include <roam/obj/detail/element_base.hpp>
#include <roam/obj/detail/migratable.hpp>
#include <roam/obj/send_options.hpp>
#include <roam/sched/observe.hpp>

namespace roam {
class chare_base;
}

namespace roam::detail {

/// How to destroy an object of a user class without knowing its type.
struct class_ops {
  std::string_view name;
  void (*destroy)(void*) noexcept;
  std::uint64_t id;  ///< stable hash of the name: the same in every process
  /// The state through T's pup, and back into an existing T (null: T has no
  /// pup). What object walking packs any object with (roam/obj/walk.hpp).
  bytes (*pack)(void* obj) = nullptr;
  void (*unpack_into)(void* obj, std::span<const std::byte> state) = nullptr;
  /// The same state's size, and the state packed into memory of exactly that
  /// size (a checkpoint packs into buffers it reuses).
  std::size_t (*state_size)(void* obj) = nullptr;
  void (*pack_to)(void* obj, std::span<std::byte> out) = nullptr;
  /// A T to unpack a saved state into: T(roam::migrating{}) or T() (null:
  /// neither exists). Runs under a construction context. What a checkpoint
  /// rebuilds group and nodegroup members with.
  void* (*make_blank)() = nullptr;
};
template <class T>
bytes pack_object_state(void* obj) {
  T& t = *static_cast<T*>(obj);
  bytes out = bytes::uninitialized(packed_size(t));
  pack_into(out.mutable_span(), t);
  return out;
}
template <class T>
void unpack_object_state(void* obj, std::span<const std::byte> state) {
  unpack_into(state, *static_cast<T*>(obj));
}
template <class T>
std::size_t object_state_size(void* obj) {
  return packed_size(*static_cast<T*>(obj));
}
template <class T>
void pack_object_state_to(void* obj, std::span<std::byte> out) {
  pack_into(out, *static_cast<T*>(obj));
}
template <class T>
constexpr class_ops make_class_ops() {
  class_ops ops{type_name<T>(), [](void* p) noexcept { delete static_cast<T*>(p); }, stable_hash(type_name<T>())};
  if constexpr (serializable<T>) {
    ops.pack = &pack_object_state<T>;
    ops.unpack_into = &unpack_object_state<T>;
    ops.state_size = &object_state_size<T>;
    ops.pack_to = &pack_object_state_to<T>;
  }
  if constexpr (std::is_constructible_v<T, migrating>) ops.make_blank = []() -> void* { return new T(migrating{}); };
  else if constexpr (std::is_default_constructible_v<T>) ops.make_blank = []() -> void* { return new T(); };
  return ops;
}
template <class T>
inline constexpr class_ops class_ops_for = make_class_ops<T>();
/// Registers a class so that descriptors naming it can be rebuilt from the wire.
bool register_class(const class_ops* cls);
/// Odr-used by every create_* of T, so every process registers T at start-up.
template <class T>
inline const bool class_registered = register_class(&class_ops_for<T>);

enum class collection_kind : std::uint8_t { array, group, nodegroup };

/// Index -> home PE for a dense array with extents `shape` of `dims` dimensions.
using map_fn = std::uint32_t (*)(const index_storage& idx, const index_storage& shape, std::uint8_t dims,
                                 std::uint32_t pes);

/// Registers a map under its name (block, round_robin and every custom_map<&fn> do).
bool register_map(std::string_view name, map_fn fn);

/// What the runtime does with an array element of a type it does not know:
/// find its base, print its index, build one on demand, and move it.
struct element_ops {
  std::uint64_t cls_id = 0;
  element_base* (*base)(void* obj) noexcept = nullptr;
  std::string (*format_index)(const index_storage&) = nullptr;
  /// Demand creation: a default-built T (null: T has no default constructor).
  void* (*make_default)() = nullptr;
  const move_ops* moves = nullptr;
  std::string_view class_name;  ///< for reports
};
/// Registers an element type so descriptors naming it can be rebuilt from the wire.
bool register_element_ops(const element_ops* ops);

/// Immutable after creation, except the nodegroup member, which is set once when it is built.
struct collection_desc {
  std::uint32_t id = 0;
  collection_kind kind = collection_kind::array;
  const class_ops* cls = nullptr;
  std::uint8_t dims = 0;
  index_storage shape;
  std::uint64_t volume = 0;
  map_fn map = nullptr;
  std::string map_name;
  std::atomic<void*> node_member{nullptr};  ///< nodegroup: this process's member
  mutable double node_load = 0;              ///< nodegroup: its measured-load slot (roam/obj/walk.hpp)
  mutable std::mutex exclusive;    ///< nodegroup: held while an exclusive entry runs
  // Arrays:
  bool sparse = false;           ///< created empty: elements exist once inserted
  bool user_index = false;       ///< indexed by a user type (24 bytes compared whole), no extents
  bool demand_creation = false;  ///< a message for a missing element creates it at its home
  std::uint32_t bound_to = 0;    ///< the array this one is bound to (its elements move together), 0: none
  const element_ops* elem = nullptr;
  /// Set once an element of it has moved, been inserted or destroyed in this
  /// process (or news of that arrived): senders then consult location caches.
  mutable std::atomic<bool> dynamic{false};
};

/// A collection descriptor as it travels between processes.
struct collection_wire {
  std::uint32_t id = 0;
  std::uint8_t kind = 0;
  std::uint8_t dims = 0;
  std::uint64_t cls = 0;
  std::uint64_t map = 0;
  std::uint64_t volume = 0;
  index_storage shape;
  std::uint8_t array_flags = 0;  ///< bit 0 sparse, 1 user index, 2 demand creation
  std::uint32_t bound_to = 0;
  void pup(pup_er& p) {
    p | id | kind | dims | cls | map | volume;
    for (auto& v : shape.v) p | v;
    p | array_flags | bound_to;
  }
};
collection_wire to_wire(const collection_desc* d);
/// The descriptor `w` describes: this process's copy, made now if it has none.
/// Throws pup_error when the class or map is unknown here (a different binary).
const collection_desc* ensure_collection(const collection_wire& w);
/// Pups a descriptor pointer as its wire form (what every proxy's pup does).
template <class P>
void pup_collection(P& p, const collection_desc*& d) {
  collection_wire w;
  if (!p.is_unpacking() && d) w = to_wire(d);
  p | w;
  if (p.is_unpacking()) d = w.id ? ensure_collection(w) : nullptr;
}

/// An array section: a fixed subset of an array's elements. Process-wide and
/// immutable once its proxy exists. Its PEs (those hosting members) form the
/// spanning tree that multicasts and section reductions travel.
struct section_desc {
  std::uint32_t id = 0;
  const collection_desc* array = nullptr;
  std::vector<std::uint32_t> pes;                         ///< PEs hosting members, ascending
  std::vector<std::vector<index_storage>> keys_by_rank;  ///< member indices per PE (by tree rank); a group's: the PE
  std::uint64_t size = 0;
  /// Rank in `pes` of the multicast tree's root: the PE that made the
  /// section when it hosts members (an object multicasting to neighbours
  /// near it starts on its own PE), else the lowest. One root per section
  /// keeps every member seeing the multicasts in one order.
  std::uint32_t root = 0;
  std::vector<std::uint32_t> tree_pes;  ///< `pes` turned so that the root comes first: the tree's members by tree rank
};
/// Builds and registers a section of `array` from member indices (a group's:
/// the PE in v[0]; duplicates ignored), and tells every other process about it.
const section_desc* new_section(const collection_desc* array, std::vector<index_storage> keys);
const section_desc* find_section(std::uint32_t id) noexcept;
/// Pups a section pointer with everything needed to rebuild it in another process.
void pup_section(pup_er& p, const section_desc*& d);

/// The id of this process's `seq`-th object of some kind (collection, section,
/// completion detector), unique in the whole program: k * N + n + 1 for process n of N.
std::uint32_t program_wide_id(std::uint32_t seq);

/// Records which arrays are bound together (their elements migrate together).
void register_binding(const collection_desc* d);
/// The arrays bound with `d` (including d), known in this process.
std::vector<const collection_desc*> bound_group(const collection_desc* d);

/// Registers a new collection and returns its descriptor (lives until the process ends).
collection_desc* new_collection(collection_kind kind, const class_ops* cls);
/// The descriptor with this id, or nullptr (proxies read from messages).
const collection_desc* find_collection(std::uint32_t id) noexcept;

/// Row-major linear index inside `shape`.
inline std::uint64_t linearize(const index_storage& i, const index_storage& shape, std::uint8_t dims) noexcept {
  std::uint64_t l = 0;
  for (int k = 0; k < dims; ++k) l = l * static_cast<std::uint64_t>(shape.v[k]) + static_cast<std::uint64_t>(i.v[k]);
  return l;
}
/// The index at row-major position `l` inside `shape` (the inverse of linearize).
inline index_storage delinearize(std::uint64_t l, const index_storage& shape, std::uint8_t dims) noexcept {
  index_storage i;
  for (int k = dims - 1; k >= 0; --k) {
    i.v[k] = static_cast<std::int32_t>(l % static_cast<std::uint64_t>(shape.v[k]));
    l /= static_cast<std::uint64_t>(shape.v[k]);
  }
  return i;
}
inline bool inside(const index_storage& i, const index_storage& shape, std::uint8_t dims) noexcept {
  for (int k = 0; k < dims; ++k)
    if (i.v[k] < 0 || i.v[k] >= shape.v[k]) return false;
  return true;
}

/// What base-class constructors read to learn who they are (set around `new T(...)`).
struct construction_context {
  const collection_desc* desc = nullptr;
  index_storage index;
  std::uint64_t chare_id = 0;
  std::uint32_t pe = 0;
};
inline constinit thread_local const construction_context* tls_constructing = nullptr;
/// The current construction context; aborts with a clear message outside runtime-driven construction.
const construction_context& current_construction(const char* base);

/// Runs a message addressed to an object (the `run` of every entry message).
void deliver(work_item* w, work_action a) noexcept;

/// Where every broadcast enters the PE tree.
inline constexpr std::uint32_t broadcast_root = 0;

/// Text for errors: "array cell[1,2] entry cell::recv".
std::string describe_target(target_kind t, const collection_desc* desc, const index_storage& idx, std::uint8_t dims,
                            std::string_view entry);
/// Reports a bad send (index or PE out of range) and stops the program; the message is not sent.
void report_bad_send(const std::string& what) noexcept;

/// Builds a message holding the moved-in arguments (or a call payload with its promise).
template <class T, auto M, bool Call, class... A>
message* build_entry_message(const send_options& o, A&&... a) {
  using impl = entry_impl<T, M>;
  (void)impl::registered;  // odr-use: registers the entry id at start-up
  using payload = std::conditional_t<Call, typename impl::call_payload, typename impl::args_tuple>;
  static_assert(alignof(payload) <= 16, "roam: entry arguments with alignment above 16 are not supported");
  message* m = allocate_message(sizeof(payload));
  if constexpr (Call) ::new (m->payload_ptr()) payload{typename impl::args_tuple(std::forward<A>(a)...), {}};
  else ::new (m->payload_ptr()) payload(std::forward<A>(a)...);
  m->ops = &impl::ops;
  m->run = &deliver;
  m->priority = o.priority;
  m->flags = o.lifo ? work_lifo : 0u;
  m->payload_bytes = sizeof(payload);  // for observers: the size held in memory until it is packed
  m->payload = payload_kind::inline_args;
  m->is_call = Call;
  return m;
}

/// Observers: an entry message leaves for PE `dst` (or node, `to_node`).
[[gnu::cold]] void note_sent(message* m, std::uint32_t dst, bool to_node) noexcept;

/// Hands a built message to PE `dst` (through the wire format under +serialize).
inline void send_message(message* m, std::uint32_t dst) {
  pe_state& me = this_pe("roam send");
  if (observed()) [[unlikely]]
    note_sent(m, dst, false);
  m->dst_pe = dst;
  m->src_pe = me.id();
  if (me.runtime().opts.serialize) [[unlikely]] m = roundtrip_through_wire(m);
  post(dst, m);
}

/// Every node, for send_node_message.
inline constexpr std::uint32_t all_nodes = ~0u;
/// Sends a nodegroup message to node `node` (or to every node): the node's
/// queue, which any of its PEs may run.
void send_node_message(message* m, std::uint32_t node);
/// Builds this process's member of nodegroup `desc` and delivers what waited for it.
void install_node_member(const collection_desc* desc, void* member);

/// Sends `call` and returns the future of its result.
template <class T, auto M, class Address, class... A>
auto call_entry(const send_options& o, Address address, A&&... a) {
  using V = typename entry_impl<T, M>::V;
  auto [f, p] = make_future<V>();
  message* m = build_entry_message<T, M, true>(o, std::forward<A>(a)...);
  static_cast<typename entry_impl<T, M>::call_payload*>(m->payload_ptr())->reply = p;
  address(m);
  return f;
}

/// A fan-out (broadcast, multicast): one message to `root`, which forwards it
/// down its tree (every PE forwards, then delivers to its local members). A
/// broadcast goes through `broadcast_root`, which gives every member the same
/// order of broadcasts, whoever sent them. The arguments are shared, not
/// copied, by every PE's message; each member gets its own copy of by-value
/// parameters.
template <class T, auto M, class Address, class... A>
void fan_out_entry(std::uint32_t root, const send_options& o, Address address, A&&... a);


template <class T, auto M, class Address, class... A>
void fan_out_entry(std::uint32_t root, const send_options& o, Address address, A&&... a) {
  using impl = entry_impl<T, M>;
  (void)impl::registered;
  static_assert(std::is_copy_constructible_v<typename impl::args_tuple>,
                "roam: a broadcast gives every member its own copy of the arguments; they must be copyable");
  // The shared payload comes from the pool too; the last delivery frees it, on any PE.
  auto* shared = ::new (allocate_item(sizeof(typename impl::shared))) typename impl::shared(1, std::forward<A>(a)...);
  message* m = allocate_message(sizeof(void*));
  ::new (m->payload_ptr()) typename impl::shared*(shared);
  m->ops = &impl::ops;
  m->run = &deliver;
  m->priority = o.priority;
  m->flags = o.lifo ? work_lifo : 0u;
  m->payload_bytes = sizeof(typename impl::shared);
  m->payload = payload_kind::shared_args;
  address(m);
  send_message(m, root);
}

/// The collection record of `id` on the calling PE, or nullptr if not constructed here yet.
void* local_group_member(std::uint32_t collection) noexcept;

/// Who contributes to a reduction: its collection, its key (linear index, or PE
/// for a group member), and its own count of contributions so far, which is
/// what numbers its reductions (per contributor, so it survives migration).
struct contributor {
  const collection_desc* desc = nullptr;
  std::uint64_t key = 0;
  std::uint32_t* next_reduction = nullptr;  ///< the member's own counter (arrays, groups)
  std::atomic<std::uint32_t>* shared_next = nullptr;  ///< nodegroups: any PE of the node may contribute
  element_base* element = nullptr;  ///< array elements: their section counters travel with them
  std::uint32_t take_number() const noexcept {
    return next_reduction ? (*next_reduction)++ : shared_next->fetch_add(1, std::memory_order_relaxed);
  }
};

// ---- location management and migration (obj/elements.cpp) ----

/// The home PE of an element: where its location is always known.
std::uint32_t home_of(const collection_desc* desc, const index_storage& idx) noexcept;
/// Where the calling PE should send a message for an element: here if it is
/// here, else the cached location, else its home.
std::uint32_t locate_element(const collection_desc* desc, const index_storage& idx) noexcept;
/// The element if it lives on the calling PE now, else nullptr.
void* local_element(const collection_desc* desc, const index_storage& idx) noexcept;
/// Moves the element, which must be on the calling PE, to `pe` (the load
/// balancer's call). False, with nothing done, if it is not here.
bool migrate_local_element(const collection_desc* desc, const index_storage& idx, std::uint32_t pe);
/// Number of elements of the array on the calling PE now.
std::uint32_t local_element_count(const collection_desc* desc) noexcept;

/// How the collectives layer follows the population of an array on each PE
/// (reductions count the elements that must contribute). Set at start-up.
struct element_hooks {
  /// An element with this next reduction number is now on this PE (built or arrived).
  void (*here)(const collection_desc*, std::uint32_t next_reduction) = nullptr;
  /// One left this PE (migrated away).
  void (*gone)(const collection_desc*, std::uint32_t next_reduction) = nullptr;
  /// One is being inserted (on this PE or another) by an element whose next
  /// reduction is `parent_next` (or `no_parent`): returns the new one's first
  /// reduction (the parent's next, else this PE's current) and counts the
  /// birth there, unless this PE has already passed that reduction up. Then
  /// only the root may count it, before the element exists: the hook returns
  /// the PE that must see the insertion first in `count_on` (else no_pe).
  std::uint32_t (*born)(const collection_desc*, std::uint32_t parent_next, std::uint32_t& count_on) = nullptr;
  /// The root counts a birth for reduction `first` (an insertion on its way
  /// from a PE that had passed `first` up).
  void (*born_at_root)(const collection_desc*, std::uint32_t first) = nullptr;
  /// One was destroyed here.
  void (*died)(const collection_desc*, std::uint32_t next_reduction) = nullptr;
  /// The array's initial members on this PE are built.
  void (*constructed)(const collection_desc*) = nullptr;
};
inline element_hooks g_element_hooks;

/// The array element whose entry method runs on this thread (null outside one).
inline constinit thread_local element_base* tls_running_element = nullptr;
/// Where a new element starts: the numbers of the first reduction it joins and
/// of the last broadcast it counts as seen. Inserted from inside an element of
/// the same array, it takes over from that element (it joins the reductions and
/// broadcasts that element has not reached yet).
struct element_start {
  std::uint32_t reductions = 0;
  std::uint32_t broadcasts = 0;
  std::uint32_t issuer = 0;  ///< the PE that called insert: told when the element is built
  /// The PE that must count the birth before the insertion goes on to the
  /// element's home (the reductions' root), or no_pe: see element_hooks::born.
  std::uint32_t count_birth_on = no_pe;
  void pup(pup_er& p) { p | reductions | broadcasts | issuer | count_birth_on; }
};
/// `parent_next` of an insertion that does not come from an element of the array.
inline constexpr std::uint32_t no_parent = ~0u;
/// The root counts the birth of an insertion relayed through it (element_start::count_birth_on).
void count_birth_at_root(const collection_desc* desc, std::uint32_t first);
/// The calling PE issues an insertion into `desc` (done_inserting waits for
/// it) from inside element `parent` (or null): where the new element starts.
/// Its birth is counted here and now, so no reduction can complete without it.
element_start note_insert_issued(const collection_desc* desc, element_base* parent);
/// An insertion issued by the calling PE is built (or failed).
void insert_acked(collection_wire collection);

/// Builds an element from typed arguments; runs under a construction context.
using make_fn = void* (*)(const void* args, const construction_context&);
/// Insertion, step 1, on the element's home: records where it will live and
/// returns its epoch, or ~0u if it exists already (reported).
std::uint32_t register_insertion(const collection_desc* desc, const index_storage& idx, std::uint32_t pe);
/// Insertion, step 2, on the chosen PE: builds it and delivers what waited for it.
void install_inserted(const collection_desc* desc, const index_storage& idx, std::uint32_t epoch, element_start start,
                      make_fn make, const void* args);
/// Initial population finished (sparse arrays): see array_proxy::done_inserting.
void mark_done_inserting(const collection_desc* desc);

/// A `make_fn` for members built from a tuple of constructor arguments
/// (`Args`, copied: every member of the collection gets its own).
template <class T, class Args>
void* make_from_args(const void* args, const construction_context&) {
  const Args& a = *static_cast<const Args*>(args);
  return std::apply([](const auto&... x) { return static_cast<void*>(new T(x...)); }, a);
}

/// Runs on every PE (or one) to construct the local members of a collection.
void construct_local_members(const collection_desc* desc, void* (*make)(const void* args, const construction_context&),
                             const void* args);
/// What the runtime does to move a singleton chare of a type it does not know.
struct chare_ops {
  std::uint64_t cls_id = 0;
  const class_ops* cls = nullptr;
  chare_base* (*base)(void* obj) noexcept = nullptr;
  const move_ops* moves = nullptr;
};
/// Registers a chare type so that a chare of it can arrive from another process.
bool register_chare_ops(const chare_ops* ops);

/// Registers a constructed singleton chare on the calling PE and delivers what waited for it.
void register_chare(std::uint64_t id, void* obj, chare_base* base, const chare_ops* ops);
/// Where this PE would send a message for chare `id` born on `home`: `home`,
/// or where the chare was last heard of once chares have started moving.
std::uint32_t chare_location(std::uint64_t id, std::uint32_t home) noexcept;
/// The home of a chare born on `birth_pe` in this run: `birth_pe` itself, or,
/// after a restart on fewer PEs, birth_pe modulo the PE count.
std::uint32_t restored_chare_home(std::uint32_t birth_pe) noexcept;
/// Set once any chare of this process has moved: until then a chare is
/// always where its proxy says, and sending needs no lookup.
inline std::atomic<bool> g_chares_moved{false};
/// A fresh chare id allocated by the calling PE, and a placement for "anywhere".
std::uint64_t new_chare_id() noexcept;
std::uint32_t place_chare() noexcept;
/// Asks PE `pe` to destroy chare `id` (after messages already queued for it).
void destroy_chare(std::uint32_t pe, std::uint64_t id);

}  // namespace roam::detail
