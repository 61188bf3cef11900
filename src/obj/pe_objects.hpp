#pragma once
// The per-PE object table and the functions the object layer's files share
// (collections, chares, groups, nodegroups, sections, array elements). Only
// the owning PE's thread touches the table.
#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include <roam/obj/chare.hpp>
#include <roam/obj/detail/objects.hpp>
#include <roam/obj/lifecycle.hpp>
#include <roam/sched/observe.hpp>

#include "flat_map.hpp"
#include "section_regroup.hpp"

namespace roam::detail {

/// Where an element is (or went), and how recent that news is.
struct location {
  std::uint32_t pe = no_pe;  ///< no_pe: destroyed
  std::uint32_t epoch = 0;
};

template <class V>
using index_table = std::unordered_map<index_storage, V, index_hash>;

/// Location management for one array on one PE.
struct location_state {
  index_table<location> known;     ///< cache of other elements' locations; authoritative on their home
  index_table<location> departed;  ///< elements that left this PE (or were destroyed here)
  index_table<std::vector<message*>> arriving;  ///< messages for elements on their way here
  index_table<std::vector<message*>> unknown;   ///< home: messages for elements not inserted yet
};

struct local_collection {
  const collection_desc* desc = nullptr;
  bool constructed = false;
  std::vector<message*> pending;  // arrived before the collection was set up here
  struct member {
    void* obj;
    index_storage index;
    double load = 0;  ///< object walking's measured-load slot (roam/obj/walk.hpp)
  };
  flat_map_index elements;     // index -> object
  std::vector<member> order;   // local members, oldest first (broadcast order)
  std::unique_ptr<location_state> loc;  // arrays, once something moved
  // Array broadcasts are numbered by the root and delivered here in order;
  // recent ones are kept for elements that arrive having missed them.
  std::uint32_t bcast_seen = 0;
  std::uint32_t bcast_stamped = 0;  // the root: numbers given so far
  std::map<std::uint32_t, message*> bcast_early;
  std::deque<message*> bcast_history;  // numbers bcast_seen - size + 1 .. bcast_seen
  // done_inserting: insertions this PE issued and saw built; done_inserting
  // calls waiting for them; the root holds broadcasts while any is pending.
  std::uint64_t inserts_issued = 0, inserts_acked = 0;
  std::vector<std::uint64_t> done_waits;  // issued count each waiting call needs acked
  std::uint32_t bcast_holds = 0;          // the root
  std::vector<message*> bcast_held;       // the root

  location_state& locations() {
    if (!loc) loc = std::make_unique<location_state>();
    return *loc;
  }
};

struct chare_record {
  void* obj;
  chare_base* base;
  const chare_ops* ops;
  double load = 0;  ///< object walking's measured-load slot (roam/obj/walk.hpp)
};

/// An object rebuilt from a checkpoint whose restart entry starts once every PE has rebuilt its own.
struct restored_restart {
  object_identity who;
  std::uint32_t count = 0;
};

struct pe_objects {
  std::vector<std::unique_ptr<local_collection>> collections;  // by collection id
  std::vector<restored_restart> restarts_after_restore;
  std::unordered_map<std::uint64_t, chare_record> chares;
  std::unordered_map<std::uint64_t, std::vector<message*>> chare_pending;
  std::vector<std::uint64_t> chare_seq_seen;  // per creating PE: highest creation sequence built here
  // Chares that moved: where each went from here, or was last heard of
  // (newest epoch wins). Authoritative on a chare's birth PE.
  std::unordered_map<std::uint64_t, location> chare_where;
  std::uint64_t next_chare_seq = 0;
  std::uint32_t placement = 0;
  std::unique_ptr<section_pe_state> sections;  // sections this PE is the root of, reports sent (once used)

  local_collection* find(std::uint32_t id) noexcept {
    return id < collections.size() ? collections[id].get() : nullptr;
  }
  local_collection& get(std::uint32_t id) {
    if (id >= collections.size()) collections.resize(id + 1);
    auto& lc = collections[id];
    if (!lc) lc = std::make_unique<local_collection>();
    return *lc;
  }
};

inline pe_objects& objects() noexcept { return *static_cast<pe_objects*>(tls_pe->slot(layer_slot::objects)); }

/// A chare's 64-bit id, kept in index.v[0] (low half) and v[1] (high half).
inline std::uint64_t chare_id_in(const index_storage& idx) noexcept {
  return static_cast<std::uint32_t>(idx.v[0]) | (std::uint64_t{static_cast<std::uint32_t>(idx.v[1])} << 32);
}

inline void discard_message(message* m) noexcept {
  m->ops->destroy(m);
  free_message(m);
}

/// Frees every message of every list in `waiting` (shutdown) and empties it.
template <class Map>
void discard_waiting(Map& waiting) noexcept {
  for (auto& [key, list] : waiting)
    for (message* m : list) discard_message(m);
  waiting.clear();
}

/// The last threaded entry of an element ended: carries out the migration or
/// destruction it asked for meanwhile, if it is still here (element_entries.cpp).
void element_threads_done(std::uint32_t collection, const index_storage& idx, void* obj) noexcept;
/// Resumes a task that held its element (a future or timer it waited on is
/// here) as the element's entry would, then carries out its requests (element_entries.cpp).
void resume_element_task(task_roots& roots, std::coroutine_handle<> h) noexcept;

// pe_objects.cpp
/// Makes the calling PE's object table (a PE setup hook; it tears it down at stop).
void setup_objects(pe_state& pe);

// delivery.cpp
/// "array cell[1,2] entry cell::recv" (g_describe_delivery).
std::string describe_context(const delivery_context& ctx);
/// Sends a copy of a fan-out message to PE `to`.
void forward_copy(const message* m, std::uint32_t to) noexcept;
/// Runs the entry, turning an escaping exception into a fatal report that
/// names the PE, the object and the entry.
void invoke_guarded(message* m, void* obj) noexcept;
/// invoke_guarded without telling observers (what it runs when nobody subscribes).
void invoke_unobserved(message* m, void* obj) noexcept;

// lifecycle.cpp
enum class lifecycle_step : std::uint8_t { born, arrived, leaving, died };
/// Identity of a collection member (array element, group or nodegroup member).
object_identity element_identity(const collection_desc* d, const index_storage& idx) noexcept;
object_identity chare_identity(std::uint64_t chare_id) noexcept;
[[gnu::cold]] void notify_lifecycle(lifecycle_step step, const object_identity& who, void* obj,
                                    std::uint32_t peer = no_pe, bool syncs = false) noexcept;
/// Tells lifecycle observers, if any, about collection member `idx` of `d`.
inline void member_lifecycle(lifecycle_step step, const collection_desc* d, const index_storage& idx, void* obj,
                             std::uint32_t peer = no_pe) noexcept {
  if (g_lifecycle.any()) [[unlikely]] {
    const bool syncs = d->kind == collection_kind::array && d->elem && d->elem->moves &&
                       d->elem->moves->resume_from_sync != nullptr;
    notify_lifecycle(step, element_identity(d, idx), obj, peer, syncs);
  }
}
inline void chare_lifecycle(lifecycle_step step, std::uint64_t id, void* obj, std::uint32_t peer = no_pe,
                            bool syncs = false) noexcept {
  if (g_lifecycle.any()) [[unlikely]] notify_lifecycle(step, chare_identity(id), obj, peer, syncs);
}

// observation.cpp (only while an observer is subscribed)
/// Fills `id` with the identity observers see for a message's target (in place: no copy).
void identify(object_identity& id, target_kind target, std::uint32_t collection, const index_storage& idx,
              std::uint8_t dims) noexcept;
/// The same, returned.
object_identity identity_of(target_kind target, std::uint32_t collection, const index_storage& idx,
                            std::uint8_t dims) noexcept;
/// invoke_unobserved between entry_begin and entry_end.
[[gnu::cold]] void invoke_observed(message* m, void* obj) noexcept;
/// `resume(roots, h)` between entry_begin and entry_end of a task resumption of `who`.
[[gnu::cold]] void resume_observed(const object_identity& who, const void* obj, task_roots& roots,
                                   std::coroutine_handle<> h,
                                   void (*resume)(task_roots&, std::coroutine_handle<>) noexcept) noexcept;
/// An entry message is about to be delivered here.
[[gnu::cold]] void note_received(message* m) noexcept;

[[gnu::cold]] void report_delivery_failure(const message& m, const char* what) noexcept;
/// A copy of a message (a shared payload gains a reference; a packed one is copied).
message* clone_message(const message* m) noexcept;

/// The order of member indices in a section's layouts (each process sorts alike).
inline bool index_order(const index_storage& a, const index_storage& b) noexcept {
  return std::lexicographical_compare(std::begin(a.v), std::end(a.v), std::begin(b.v), std::end(b.v));
}

// element_locations.cpp
/// The element is not here and this PE knows it lives elsewhere (it left,
/// news of it came, or this PE is not its home): a section's tree that
/// places it here is stale.
bool element_known_elsewhere(local_collection& lc, const index_storage& idx) noexcept;

// sections.cpp
/// A multicast: passes it down the tree of the section's PEs, then delivers
/// it to this PE's members of the section, in index order.
void deliver_section(pe_objects& objs, message* m) noexcept;
/// Frees the multicasts still waiting for their section (shutdown).
void discard_waiting_multicasts() noexcept;

// nodegroups.cpp
/// Runs a nodegroup message on this process's member, or keeps it until the member exists.
void deliver_to_node_member(message* m) noexcept;
/// Frees the nodegroup messages still waiting for their member (shutdown).
void discard_waiting_node_messages() noexcept;

// A recovery forgets the process's descriptors: every section (sections.cpp)
// and every binding between arrays (element_moves.cpp) goes with them.
void forget_sections() noexcept;
void forget_bindings() noexcept;

// descriptors.cpp
/// This process's nodegroups (made here or rebuilt from the wire), in creation order.
std::vector<const collection_desc*> nodegroup_descriptors();
/// Destroys this process's nodegroup members (its first PE, at shutdown).
void destroy_nodegroup_members() noexcept;

// chares.cpp
/// Runs a message on the chare it names, or passes it on or keeps it (chare_moves.cpp).
void deliver_to_chare(pe_objects& objs, message* m) noexcept;
/// The last threaded entry or held task of chare `id` ended: carries out what it asked for.
void chare_threads_done(std::uint64_t id) noexcept;
/// Resumes a task that held its chare, as the chare's entry would.
void resume_chare_task(task_roots& roots, std::coroutine_handle<> h) noexcept;

// object_threads.cpp (the msg layer's g_thread_owner hooks)
/// The unfinished-thread count of the object a threaded entry runs on (null: not counted).
std::uint32_t* thread_counter(const delivery_context& ctx, void* obj) noexcept;
/// The object's last thread ended: posts what it asked for meanwhile.
void threads_idle(const delivery_context& ctx, void* obj) noexcept;

// chare_moves.cpp
/// The chare type registered under a class id (null: unknown here).
const chare_ops* chare_ops_by_class(std::uint64_t cls_id);
/// A message for chare `id`, which is not here: passes it on to where the
/// chare went, or keeps it until the chare arrives. False: this PE knows
/// nothing of it (the caller decides).
bool forward_chare_message(pe_objects& objs, message* m, std::uint64_t id) noexcept;
/// After an entry ran on a chare: carries out a migrate_to it asked for.
void carry_out_chare_move(pe_objects& objs, std::uint64_t id, const chare_record& rec) noexcept;
/// Before an entry runs on a chare: tells a sender whose message was passed
/// on where the chare is now.
void correct_chare_sender(const message& m, std::uint64_t id, const chare_record& rec) noexcept;

// task_report.cpp
/// Prints this PE's suspended tasks to stderr (g_report_waiting_tasks; a control message's function).
void print_waiting_tasks_here() noexcept;

// element_entries.cpp, element_broadcasts.cpp, element_locations.cpp
/// Destroys an element's suspended entry tasks (before the element itself).
void end_tasks(const collection_desc* d, void* obj) noexcept;
/// Delivers a message addressed to one element: runs it if the element is
/// here, else forwards or buffers it (location management).
void deliver_to_element(local_collection& lc, message* m) noexcept;
/// The same once the element was found here (`obj`): runs the entry (or
/// absorbs a section marker) and frees the message.
void deliver_to_element_here(local_collection& lc, message* m, void* obj) noexcept;
/// The element is not on this PE: passes the message on, or keeps it until the element comes.
void route_missing(local_collection& lc, message* m) noexcept;
/// Delivers an array broadcast on this PE, in the root's numbering.
void deliver_array_broadcast(local_collection& lc, message* m) noexcept;
/// The root: keeps a new array broadcast while a done_inserting waits for its insertions.
bool hold_array_broadcast(local_collection& lc, message* m) noexcept;
/// Releases what location management holds at shutdown (reports messages that never found their element).
void teardown_locations(local_collection& lc) noexcept;

}  // namespace roam::detail
