#pragma once
// What ARMCI keeps per rank (in the rank's element, packed with it), and the
// messages between ranks' elements (ops.cpp).
//
// Protocol: every operation to another rank is one message to that rank's
// element, applied there by its PE without the rank's thread, in the order
// the origin sent them (each carries the origin's count of messages to that
// target; one that overtook another waits). Operations that return something
// (get, read-modify-write, a fence, a lock) carry a ticket that the target's
// reply names; the origin's thread waits until its tickets are answered. A
// put or accumulate is complete at the origin once sent (its bytes travel in
// the message); ARMCI_Fence makes it complete at the target: the fence is
// applied after everything sent before it. To a rank on the origin's own PE
// with nothing of the origin's in flight to it, operations are applied at
// once by the origin's thread (the two threads never run at the same time).
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include <armci.h>
#include <roam/roam.hpp>

#include "extension.hpp"  // libs/ampi/src: per-rank state and messages
#include "layout.hpp"

namespace roam::armci {

/// One operation as it travels.
struct op_header {
  enum kind_t : std::uint8_t { put, acc, get, rmw, fence, lock, unlock, trylock, reply };
  std::uint8_t kind = put;
  std::uint32_t seq = 0;        // the origin's count of messages to the target
  std::int32_t ticket = 0;      // what the reply names (0: no reply)
  std::int32_t type = 0;        // ARMCI_ACC_* (acc) or ARMCI_Rmw's op (rmw); the mutex (lock/unlock)
  std::int64_t value = 0;       // rmw's operand; the mutex set (lock/unlock)
  std::array<std::byte, 16> scale{};
  layout where;                 // at the target
  void pup(pup_er& p) { p | kind | seq | ticket | type | value | scale | where; }
};

/// An answer the origin waits for: where its bytes go, and the handle it counts for.
struct ticket_record {
  layout into;       // empty: no bytes expected
  int handle = 0;    // armci_hdl_t id (0: none)
  int target = 0;
  void pup(pup_er& p) { p | into | handle | target; }
};

struct mutex_record {
  int holder = -1;            // world rank (-1: free)
  std::deque<std::pair<int, int>> waiters;  // (world rank, its ticket)
  void pup(pup_er& p) { p | holder | waiters; }
};

struct early_op {
  std::vector<std::byte> header;
  buffer<std::byte> data;
  void pup(pup_er& p) { p | header | data; }
};

struct state : ampi::rank_extension {
  bool initialized = false;
  bool started_mpi = false;  // ARMCI_Init_args called MPI_Init (ARMCI_Finalize ends it)
  int world_size = 0;        // ARMCI processes (0: not known yet)
  // ---- as origin ----
  std::unordered_map<int, std::uint32_t> sent_to;  // messages to each target
  std::map<int, std::uint32_t> unfenced;           // operations sent since the target's last fence
  std::map<int, ticket_record> tickets;            // answers due
  int next_ticket = 1;
  std::map<int, int> handles;                      // handle id -> answers due
  int next_handle = 1;
  // ---- as target ----
  std::unordered_map<int, std::uint32_t> expected_from;
  std::multimap<std::pair<int, std::uint32_t>, early_op> early;
  std::map<std::uint64_t, std::int64_t> blocks;  // this rank's ARMCI_Malloc'd memory: base -> bytes
  // Mutex sets: 0 is ARMCI_Create_mutexes's, others ARMCIX_Create_mutexes_hdl's.
  std::map<int, std::vector<mutex_record>> mutex_sets;
  int next_mutex_set = 1;
  // ---- groups ----
  int default_group = 0;  // communicator of the default group (0: world)
  // ---- how this rank's operations went (ROAM_ARMCI_STATS=1 prints them) ----
  std::uint64_t done_here = 0;   // memory to memory in this process
  std::uint64_t done_peer = 0;   // memory to memory in another process of the host
  std::uint64_t sent = 0;        // as messages to the target's element
  // Not packed: the host's table and this arrival's tag in it (host_residence.hpp).
  void* host_table = nullptr;
  std::uint64_t host_tag = 0;

  void pup(pup_er& p) override {
    p | initialized | started_mpi | world_size | sent_to | unfenced | tickets | next_ticket | handles | next_handle |
        expected_from | early | blocks | mutex_sets | next_mutex_set | default_group | done_here | done_peer | sent;
  }
};

/// The calling rank's state (on its thread) or a rank's.
state& my_state();
state& state_of(ampi::rank& r);

/// What the API functions (api.cpp) do with one operation.
struct operation {
  op_header::kind_t kind;
  int target;
  layout local;     // at the origin: the source (put, acc) or destination (get, rmw)
  layout remote;    // at the target
  int type = 0;
  std::int64_t value = 0;
  const void* scale = nullptr;
  int handle = 0;   // 0: blocking
};

/// A contiguous put, get or accumulate done at once when the target is on
/// this PE and nothing of ours is on its way to it; false: not done.
bool direct_contiguous(op_header::kind_t kind, void* local, void* remote, std::int64_t bytes, int target, int type,
                       const void* scale);
/// Starts `op` (applies it at once when it may); returns its ticket (0: done).
int start(const operation& op);
/// Waits for a ticket's answer.
void wait_ticket(int ticket);
/// Waits until no answer is due from `target` (-1: from anyone).
void wait_target(int target);
/// Waits for a handle's answers.
void wait_handle(int handle);
/// Makes everything sent to `target` (-1: to everyone) complete there.
void fence(int target);
/// Mutex `mutex` of set `set` at world rank `target`: blocks until
/// granted; tries (true: granted); releases.
void lock(int set, int mutex, int target);
bool trylock(int set, int mutex, int target);
void unlock(int set, int mutex, int target);

/// Fills `out` for the members of `comm` (grp_to_abs in the caller's heap).
void describe_group(MPI_Comm comm, ARMCI_Group* out);

/// Reports a wrong argument (rank, PE, function) and ends the job (on the
/// rank's thread, which never returns from it).
[[noreturn]] void fatal(const char* function, const std::string& what);
/// Blocks the calling rank's thread for good (the job is ending).
[[noreturn]] void stop_here();

}  // namespace roam::armci

/// ARMCI_<name> as a weak alias of PARMCI_<name> (the profiling interface).
#define ROAM_ARMCI_PARMCI(name) \
  extern "C" decltype(PARMCI_##name) ARMCI_##name __attribute__((weak, alias("PARMCI_" #name)));
