#pragma once
// The virtual rank: an array element holding one migratable thread that runs
// the program's main, and everything MPI keeps per rank (communicators,
// requests, derived datatypes, queues of messages). All of it is packed with
// the element when the rank moves; the buffers it points to (posted receives)
// are in the thread's stack or heap, at the same addresses wherever it runs.
//
// Threading: the thread and the element's entry methods run on the same PE
// one at a time (the thread is a user-level thread of that PE), so nothing
// here is locked. Code on the thread reaches the element through me() after
// every block: the element may have been rebuilt elsewhere meanwhile.
#include <cstdint>
#include <deque>
#include <list>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <roam/roam.hpp>

#include "datatype.hpp"
#include "envelope.hpp"
#include "extras.hpp"
#include "rma_extras.hpp"
#include "world_collectives.hpp"

namespace roam::ampi {

struct rank;
struct collector;

/// A communicator as one rank sees it.
struct communicator {
  std::uint64_t context = 0;       // even: point-to-point; context + 1: collectives
  std::vector<int> members;        // world ranks by rank in the communicator (empty: world)
  int my_rank = 0;
  int size = 0;
  int errhandler = 1;              // MPI_ERRORS_ARE_FATAL
  std::uint32_t children = 0;      // communicators made from it (the next context)
  std::uint32_t collectives = 0;   // collectives started on it (each one's tags)
  std::string name;
  int topology = 0;                        // MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH or 0 (none)
  std::vector<int> dims, periods;          // a Cartesian topology's (zero dimensions allowed)
  std::vector<int> graph_index, graph_edges;  // a graph topology's (MPI_Graph_create's arrays)
  // A distributed graph's (MPI_DIST_GRAPH): this rank's in- and
  // out-neighbours in the order neighbourhood collectives use them, and
  // their weights when the graph has them (dist_weighted).
  std::vector<int> dist_sources, dist_destinations, dist_source_weights, dist_dest_weights;
  bool dist_weighted = false;
  std::map<int, std::uint64_t> attributes;  // keyval -> the program's value (a pointer-sized word)
  // An intercommunicator (intercomm.cpp): point-to-point ranks name the
  // remote group; `local` is a hidden communicator of the local group (the
  // collectives MPI_Intercomm_merge needs).
  bool inter = false;
  std::vector<int> remote;  // the remote group's world ranks
  int local = 0;
  // MPI_Comm_create_group's calls from it per (group, tag): only the group's
  // members call, so the count per group is what they agree on.
  std::map<std::uint64_t, std::uint32_t> group_children;

  /// The world rank of rank `r` as a destination or source.
  int world_of(int r) const {
    if (inter) return remote[static_cast<std::size_t>(r)];
    return members.empty() ? r : members[static_cast<std::size_t>(r)];
  }
  /// How many ranks a destination or source may name.
  int peer_size() const { return inter ? static_cast<int>(remote.size()) : size; }
  void pup(pup_er& p) {
    p | context | members | my_rank | size | errhandler | children | collectives | name | dims | periods | attributes |
        inter | remote | local | group_children | topology | graph_index | graph_edges | dist_sources |
        dist_destinations | dist_source_weights | dist_dest_weights | dist_weighted;
  }
};

/// A request (MPI_Request is its slot number + 1).
struct request_record {
  // generalized: MPI_Grequest_start's (its callbacks in rank::extras, grequest.cpp); rma: MPI_Rput... (rma.cpp)
  enum class kind : std::uint8_t { none, send, recv, probe_only, collective, generalized, rma };
  kind what = kind::none;
  bool active = false;      // started (persistent requests are inactive between starts)
  bool complete = false;
  bool persistent = false;
  bool cancelled = false;
  bool synchronous = false;  // Ssend: completes when the receiver matched it
  bool raw = false;          // internal receive that keeps the message's bytes (collectives)
  bool posted = false;       // in the posted-receive queue
  bool freed = false;        // MPI_Request_free'd while pending: dropped once complete
  bool awaiting_push = false;  // matched a lent message it could not read: its bytes are on their way (pushed)
  std::uint64_t buf = 0;     // the user's buffer (an address in the thread's memory)
  int count = 0;
  int datatype = 0;
  int peer = 0;              // dest or source (rank in comm, or MPI_ANY_SOURCE)
  int tag = 0;
  int comm = 0;              // handle
  std::uint64_t context = 0;
  // the outcome
  int status_source = 0, status_tag = 0, status_error = 0;
  long long bytes = 0;
  buffer<std::byte> kept;  // raw receives: the message's bytes

  void pup(pup_er& p) {
    p | what | active | complete | persistent | cancelled | synchronous | raw | posted | buf | count | datatype | peer |
        tag | comm | context | status_source | status_tag | status_error | bytes | kept | freed | awaiting_push;
  }
};

/// A message that arrived before its receive was posted (or that a probe
/// looked at). A lent message carries no bytes: its sender, in the same
/// process or on the same host and blocked until the receiver acknowledges,
/// lends the address of its contiguous buffer, and the receiver copies from
/// it once (p2p.cpp, "Lent messages").
struct loan {
  std::uint64_t address = 0;  // the sender's bytes (0: no loan)
  std::uint64_t process = 0;  // the process the address belongs to (process_token())
  std::uint64_t domain = 0;   // its memory_domain(): where its PID means it
  std::int64_t pid = 0;
  std::int64_t bytes = 0;
  void pup(pup_er& p) { p | address | process | domain | pid | bytes; }
};

struct arrived {
  envelope env;
  buffer<std::byte> data;
  loan lent;  // lent.address == 0: the bytes are `data`
  std::int64_t size() const noexcept { return lent.address ? lent.bytes : static_cast<std::int64_t>(data.size()); }
  void pup(pup_er& p) { p | env | data | lent; }
};

/// A user-defined reduction.
struct user_op {
  std::uint64_t fn = 0;  // MPI_User_function* (code addresses are the same in every process of the job)
  bool commutative = true;
  void pup(pup_er& p) { p | fn | commutative; }
};

/// A non-blocking collective: its arguments, run by a thread of its own
/// (nonblocking.cpp) with the collective number taken when it started.
struct coll_job {
  int kind = 0;
  int request = 0;
  std::uint32_t base = 0;
  int comm = 0, root = 0, op = 0;
  std::uint64_t sendbuf = 0, recvbuf = 0;  // the program's buffers and arrays, as addresses
  int sendcount = 0, recvcount = 0, sendtype = 0, recvtype = 0;
  std::uint64_t sendcounts = 0, sdispls = 0, recvcounts = 0, rdispls = 0, sendtypes = 0, recvtypes = 0;
  bool waiting = false;  // its thread is blocked in rank::block()
  bool done = false;
  void pup(pup_er& p) {
    p | kind | request | base | comm | root | op | sendbuf | recvbuf | sendcount | recvcount | sendtype | recvtype |
        sendcounts | sdispls | recvcounts | rdispls | sendtypes | recvtypes | waiting | done;
  }
};

/// The thread that runs a non-blocking collective (not movable: a member
/// of the rank's list).
struct coll_thread {
  int job = 0;
  migratable_thread thread;
};

/// A one-sided window as one rank sees it (rma.cpp).
struct window {
  std::uint64_t context = 0;  // the same in every member: names the window in messages
  int comm = 0;               // a duplicate of the creating communicator (its own collectives)
  std::uint64_t base = 0;     // this rank's memory (its thread's: it moves with the rank)
  std::int64_t size = 0;
  int disp_unit = 1;
  bool allocated = false;     // MPI_Win_allocate'd (freed with the window)
  std::vector<std::uint32_t> sent;  // operations sent to each rank since the last fence
  std::vector<std::uint8_t> locked; // ranks this rank holds a lock on (their operations are not fenced)
  std::uint32_t applied = 0;        // operations of others applied here since the last fence
  std::uint32_t replies_due = 0;    // MPI_Get replies not arrived yet
  // passive target: this rank's lock (0 free, >0 shared holders, -1 exclusive) and who waits
  int lock_state = 0;
  std::deque<std::pair<int, int>> lock_waiters;  // (world rank, lock type)
  int grants = 0, unlock_acks = 0, flush_acks = 0;  // what this rank, as origin, received
  std::map<int, std::uint64_t> attributes;  // user keyvals (MPI_Win_create_keyval) -> the program's value
  std::string name;
  // PSCW (rma.cpp): posts and completes received, by sender's world rank,
  // not yet consumed by MPI_Win_start / MPI_Win_wait; this rank's access
  // group (MPI_Win_start's, as ranks of the window) and exposure group
  // (MPI_Win_post's, as world ranks).
  std::map<int, int> posts_from, completes_from;
  std::vector<int> access_group, exposure_group;
  bool accessing = false;
  window_extras extra;  // flavor, dynamic regions, shared segments, hints (rma_extras.hpp)
  void pup(pup_er& p) {
    p | context | comm | base | size | disp_unit | allocated | sent | locked | applied | replies_due | lock_state |
        lock_waiters | grants | unlock_acks | flush_acks | attributes | name | posts_from | completes_from |
        access_group | exposure_group | accessing | extra;
  }
};

/// An attribute key (MPI_Comm_create_keyval).
struct keyval_record {
  std::uint64_t copy_fn = 0, delete_fn = 0;  // MPI_Comm_copy/delete_attr_function* (0, 1: the predefined ones)
  std::uint64_t extra_state = 0;
  void pup(pup_er& p) { p | copy_fn | delete_fn | extra_state; }
};

struct info_object {
  std::vector<std::pair<std::string, std::string>> entries;
  void pup(pup_er& p) { p | entries; }
};

struct rank : element<rank> {
  static constexpr bool pup_on_migration = true;

  rank() = default;
  explicit rank(migrating) {}
  rank(const rank&) = delete;
  rank& operator=(const rank&) = delete;
  ~rank();

  // ---- entry methods ----
  void start(chare_proxy<collector> done, group_proxy<world_hub> hubs, int world_size, std::vector<std::string> argv, std::uint64_t stack_bytes);
  void deliver(envelope env, buffer<std::byte> data);
  void acknowledge(int request_handle);  // a synchronous send was matched
  // Lent messages (p2p.cpp): the sender's address instead of its bytes; a
  // receiver that cannot read it pulls the bytes, which the sender pushes.
  void deliver_lent(envelope env, loan lent);
  void pull(int send_request, int to_world, int recv_request, bool reads_refused);
  void pushed(int recv_request, buffer<std::byte> data);
  // MPI_Reduce's result at the root when every rank takes part (world_collectives.cpp).
  void world_result(world_part result);
  void rma(rma_header h, type_info target_type, buffer<std::byte> data);  // one-sided (rma.cpp)
  // A message of a library on the ranks (extension.hpp), run without the thread.
  void extension_message(std::int32_t kind, std::int32_t from_world, std::vector<std::byte> header,
                         buffer<std::byte> data);
  void go(int pe);                       // AMPI_Migrate_to_pe
  void before_migration();               // a move, not a checkpoint (user_pup.cpp)
  void after_migration();
  void wake_after_move();
  void resume_from_sync();
  void checkpointed(bool ok);            // AMPI_Migrate's checkpoint is done
  void pup(pup_er& p);

  // ---- on the thread ----
  /// Blocks the thread until something completes here (any request, a
  /// message): callers loop on their own condition.
  static void block();
  /// Wakes the thread if it waits in block().
  void notify();

  // ---- state ----
  migratable_thread thread;
  chare_proxy<collector> collector_;
  std::vector<std::string> argv_;
  std::uint64_t stack_bytes_ = 0;
  bool initialized = false, finalized = false;
  bool waiting = false;       // blocked in block()
  bool moving = false;        // blocked in AMPI_Migrate_to_pe
  bool parked = false;        // blocked in AMPI_Migrate for a checkpoint
  bool checkpoint_ok = false;
  bool migrated_flag = false;  // AMPI_Migrated
  std::uint64_t image = 0;     // the rank's copy of the program (privatize.hpp), 0: none
  bool image_here = false;     // this element registered the copy's unwind tables here
  std::uint64_t attached_buffer = 0;  // MPI_Buffer_attach's (sends are eager: kept only to give back)
  int attached_size = 0;

  std::map<int, communicator> comms;
  int next_comm = 3;
  std::map<int, std::vector<int>> groups;  // world ranks; MPI_GROUP_EMPTY is 1
  int next_group = 2;
  // AMPI_Register_pup's (function, data) pairs, and their packed output
  // between the two sides of a move (user_pup.cpp).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> user_pups;
  std::vector<std::byte> user_pup_blob;
  bool user_pup_blob_ready = false;  // made for the pup in progress
  void pack_user_state(bool leaving);
  void unpack_user_state();
  // AMPI_Register_about_to_migrate / just_migrated's functions (0: none),
  // and whether the rank arrived by a move its thread has not yet seen
  // (user_pup.cpp: after_moves, on the thread).
  std::uint64_t about_to_migrate_fn = 0, just_migrated_fn = 0;
  bool arrived_by_move = false;
  std::map<int, type_info> types;
  std::set<int> freed_types;  // MPI_Type_free'd while a request or collective in progress used them
  std::set<int> held_types;   // MPI_Type_free'd, kept while a type built from them lives
  void sweep_freed_types();   // drops (or holds) those no operation uses any more
  void drop_type(int t);      // a freed type nothing uses: erased, or held while a part of another
  bool type_is_a_part(int t) const;
  int next_type = first_derived_type;
  // Handles of types gone, given out again (last gone, first reused) as
  // MPICH and Open MPI do: some programs build a struct from a stale handle
  // that such reuse happens to make valid again.
  std::vector<int> reusable_types;
  int new_type_handle() {
    if (reusable_types.empty()) return next_type++;
    const int h = reusable_types.back();
    reusable_types.pop_back();
    return h;
  }
  std::map<int, std::string> type_names;  // MPI_Type_set_name's
  std::map<int, user_op> ops;
  int next_op = 100;
  std::map<int, info_object> infos;
  int next_info = 10;
  std::map<int, keyval_record> keyvals;
  int next_keyval = 100;
  rank_extras extras;  // grequests, user error handlers and codes, datatype attributes, hints (extras.hpp)
  std::map<int, window> windows;
  int next_window = 1;
  std::unordered_map<int, std::uint32_t> rma_sent_to, rma_expected_from;  // one-sided messages' order
  std::multimap<std::pair<int, std::uint32_t>, std::tuple<rma_header, type_info, buffer<std::byte>>> rma_early;
  void apply_rma(rma_header h, type_info& target_type, buffer<std::byte>& data);
  std::map<int, coll_job> jobs;   // non-blocking collectives in progress
  int next_job = 1;
  std::list<coll_thread> coll_threads;

  std::vector<request_record> requests;
  std::vector<int> free_requests;

  // Collectives of every rank on the runtime's reductions
  // (world_collectives.cpp): the PEs' hubs, the number of such collectives
  // so far (each one's slot in the hubs), MPI_Reduce results not taken yet
  // at a root, and the callbacks, made at first use where the rank is (not
  // packed).
  group_proxy<world_hub> hub;
  std::uint64_t world_collectives = 0;
  std::deque<world_part> world_results;
  callback<world_part> world_to_hubs;
  std::unordered_map<int, callback<world_part>> world_to_root;

  std::deque<arrived> unexpected;
  std::deque<int> posted;  // receive requests in post order
  std::map<int, arrived> messages;  // MPI_Mprobe's matched messages (MPI_Message handles)
  int next_message = 1;

  // MPI's order between two ranks: each message carries its sender's count
  // of messages to that receiver; a message that overtook another waits.
  std::unordered_map<int, std::uint32_t> sent_to;
  std::unordered_map<int, std::uint32_t> expected_from;
  std::multimap<std::pair<int, std::uint32_t>, arrived> early;

  // ---- helpers (p2p.cpp) ----
  int new_request();
  void release_request(int handle);
  request_record& req(int handle) { return requests[static_cast<std::size_t>(handle - 1)]; }
  void arrive(arrived&& m);  // in MPI's order per sender: accepted now or kept in `early`
  void accept(arrived&& m);  // in order: match or queue
  void drain_early(int from_world);  // the messages that waited for their predecessors
  /// A send from a rank on this PE, in order and matching a posted receive:
  /// copied from the sender's buffer straight into the receive's. False
  /// (nothing done) otherwise.
  bool deliver_direct(const envelope& env, const type_info& st, const void* buf, std::int64_t count);
  bool try_match_posted(arrived& m);
  void complete_receive(request_record& r, const arrived& m);
};

/// Counts the ranks that finished (and ends the program when all have), and
/// takes the checkpoints AMPI_Migrate asks for once every rank waits in it.
struct collector : chare<collector> {
  explicit collector(int ranks) : ranks_(ranks) {}
  explicit collector(migrating) {}
  void set_ranks(array_proxy<rank> ranks) { all_ = ranks; }
  void finished(int code) {
    if (code > worst_) worst_ = code;
    if (++seen_ == ranks_) roam::exit(worst_);
  }
  /// A rank waits in AMPI_Migrate for a checkpoint ("" for memory).
  void parked(std::string dir);
  /// The checkpoint is written (or restored after a restart or recovery).
  void saved(checkpoint_result result);
  void pup(pup_er& p) { p | ranks_ | seen_ | worst_ | all_ | parked_ | dir_; }

 private:
  int ranks_ = 0, seen_ = 0, worst_ = 0;
  array_proxy<rank> all_;
  int parked_ = 0;
  std::string dir_;
};

/// The calling rank (on its thread, or the rank whose about-to-migrate
/// function runs).
rank& me();
/// While a rank's about-to-migrate function runs on its PE (off its
/// thread): the rank, which me() gives.
extern constinit thread_local rank* t_leaving_rank;
/// On the rank's thread, after a call that may have moved it: runs its
/// AMPI_Register_just_migrated function if it arrived by a move (outside
/// any process_heap_scope: the function is the program's code).
void after_moves();
/// The rank's array (every rank's element).
array_proxy<rank> ranks();

}  // namespace roam::ampi
