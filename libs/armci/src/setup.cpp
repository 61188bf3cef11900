// ARMCI's set-up, memory, mutexes, groups, topology, and the adaptive
// runtime's own calls (load balancing, checkpoints).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <armci.h>

#include "host_residence.hpp"
#include "residence.hpp"
#include "state.hpp"

using namespace roam::armci;

namespace {

MPI_Comm default_comm() {
  const roam::process_heap_scope runtime_heap;
  const int c = my_state().default_group;
  return c == 0 ? MPI_COMM_WORLD : static_cast<MPI_Comm>(c);
}

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int world_size() {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// Collective over `comm`: every member's block (in its own heap, so it moves
// with it), null where it asked for none.
int allocate(void** ptrs, armci_size_t bytes, MPI_Comm comm, const char* function) {
  if (ptrs == nullptr) fatal(function, "the pointer array is null");
  if (bytes < 0) fatal(function, "a negative size (" + std::to_string(bytes) + ")");
  void* mine = bytes > 0 ? std::malloc(static_cast<std::size_t>(bytes)) : nullptr;  // the rank's heap
  if (bytes > 0 && mine == nullptr) fatal(function, "out of memory for " + std::to_string(bytes) + " bytes");
  {
    const roam::process_heap_scope runtime_heap;
    if (mine) {
      const entry_lock blocks(residence_of(world_rank()));  // direct origins read the list
      my_state().blocks[reinterpret_cast<std::uint64_t>(mine)] = bytes;
      host_blocks_changed(world_rank(), my_state());  // and those of the host's other processes
    }
  }
  MPI_Allgather(&mine, sizeof(void*), MPI_BYTE, ptrs, sizeof(void*), MPI_BYTE, comm);
  return 0;
}

// Collective: nothing of anyone's is still on its way to the block when it goes.
int release(void* ptr, MPI_Comm comm, const char* function) {
  PARMCI_AllFence();
  MPI_Barrier(comm);
  if (ptr == nullptr) return 0;
  {
    const roam::process_heap_scope runtime_heap;
    state& s = my_state();
    const entry_lock blocks(residence_of(world_rank()));
    auto it = s.blocks.find(reinterpret_cast<std::uint64_t>(ptr));
    if (it == s.blocks.end()) fatal(function, "the address was not returned to this process by ARMCI_Malloc");
    s.blocks.erase(it);
    host_blocks_changed(world_rank(), s);
  }
  std::free(ptr);
  return 0;
}

void check_proc(int proc, const char* function) {
  if (proc < 0 || proc >= world_size())
    fatal(function, "process " + std::to_string(proc) + " does not exist (there are " + std::to_string(world_size()) + ")");
}

void drop_mutex_set(int set, const char* function) {
  state& s = my_state();
  auto it = s.mutex_sets.find(set);
  if (it == s.mutex_sets.end()) fatal(function, "no such mutexes");
  for (std::size_t i = 0; i < it->second.size(); ++i)
    if (it->second[i].holder >= 0)
      fatal(function, "mutex " + std::to_string(i) + " is held by rank " + std::to_string(it->second[i].holder));
  s.mutex_sets.erase(it);
}

void settle() {
  PARMCI_AllFence();
  PARMCI_WaitAll();
  MPI_Barrier(MPI_COMM_WORLD);  // nothing in flight to anyone
}

}  // namespace

void roam::armci::describe_group(MPI_Comm comm, ARMCI_Group* out) {
  out->comm = comm;
  MPI_Comm_rank(comm, &out->rank);
  MPI_Comm_size(comm, &out->size);
  out->grp_to_abs = static_cast<int*>(std::malloc(sizeof(int) * static_cast<std::size_t>(out->size)));
  MPI_Group g, world_group;
  MPI_Comm_group(comm, &g);
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  std::vector<int> ranks(static_cast<std::size_t>(out->size));
  for (int i = 0; i < out->size; ++i) ranks[static_cast<std::size_t>(i)] = i;
  MPI_Group_translate_ranks(g, out->size, ranks.data(), world_group, out->grp_to_abs);
  MPI_Group_free(&g);
  MPI_Group_free(&world_group);
}

extern "C" {

int PARMCI_Init(void) {
  int up = 0;
  MPI_Initialized(&up);
  if (!up) {
    MPI_Init(nullptr, nullptr);
  }
  const roam::process_heap_scope runtime_heap;
  state& s = my_state();
  if (!up) s.started_mpi = true;
  s.initialized = true;
  return 0;
}

int PARMCI_Init_args(int* argc, char*** argv) {
  int up = 0;
  MPI_Initialized(&up);
  if (!up) MPI_Init(argc, argv);
  const roam::process_heap_scope runtime_heap;
  state& s = my_state();
  if (!up) s.started_mpi = true;
  s.initialized = true;
  return 0;
}

int PARMCI_Init_thread(int) { return PARMCI_Init(); }

int PARMCI_Initialized(void) {
  int up = 0;
  MPI_Initialized(&up);
  if (!up) return 0;
  const roam::process_heap_scope runtime_heap;
  return my_state().initialized ? 1 : 0;
}

int PARMCI_Finalize(void) {
  PARMCI_AllFence();
  PARMCI_WaitAll();
  MPI_Barrier(MPI_COMM_WORLD);
  bool end_mpi = false;
  {
    const roam::process_heap_scope runtime_heap;
    state& s = my_state();
    s.initialized = false;
    end_mpi = s.started_mpi;
    if (const char* v = std::getenv("ROAM_ARMCI_STATS"); v && *v && *v != '0')
      std::fprintf(stderr, "armci: rank %d: %llu operations memory to memory in its process, %llu in another "
                   "process of the host, %llu as messages\n", world_rank(), static_cast<unsigned long long>(s.done_here),
                   static_cast<unsigned long long>(s.done_peer), static_cast<unsigned long long>(s.sent));
  }
  if (end_mpi) MPI_Finalize();
  return 0;
}

void ARMCI_Cleanup(void) {}

void ARMCI_Error(const char* msg, int code) {
  std::fprintf(stderr, "armci: rank %d (PE %u): ARMCI_Error: %s (code %d)\n", world_rank(), roam::my_pe().value(),
               msg ? msg : "", code);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code == 0 ? 1 : code);
}

int PARMCI_Malloc(void** ptrs, armci_size_t bytes) { return allocate(ptrs, bytes, default_comm(), "ARMCI_Malloc"); }
int PARMCI_Free(void* ptr) { return release(ptr, default_comm(), "ARMCI_Free"); }
int ARMCI_Malloc_group(void** ptrs, armci_size_t bytes, ARMCI_Group* group) {
  if (group == nullptr) fatal("ARMCI_Malloc_group", "the group is null");
  return allocate(ptrs, bytes, group->comm, "ARMCI_Malloc_group");
}
int ARMCI_Free_group(void* ptr, ARMCI_Group* group) {
  if (group == nullptr) fatal("ARMCI_Free_group", "the group is null");
  return release(ptr, group->comm, "ARMCI_Free_group");
}
void* PARMCI_Malloc_local(armci_size_t bytes) { return std::malloc(static_cast<std::size_t>(bytes)); }
int PARMCI_Free_local(void* ptr) {
  std::free(ptr);
  return 0;
}

void PARMCI_Barrier(void) {
  PARMCI_AllFence();
  MPI_Barrier(default_comm());
}

int PARMCI_Create_mutexes(int count) {
  if (count < 0) fatal("ARMCI_Create_mutexes", "a negative count (" + std::to_string(count) + ")");
  {
    const roam::process_heap_scope runtime_heap;
    state& s = my_state();
    if (s.mutex_sets.count(0) != 0) fatal("ARMCI_Create_mutexes", "mutexes exist already (ARMCI_Destroy_mutexes first)");
    s.mutex_sets[0].assign(static_cast<std::size_t>(count), mutex_record{});
  }
  MPI_Barrier(MPI_COMM_WORLD);  // no lock request reaches a rank before its mutexes exist
  return 0;
}

int PARMCI_Destroy_mutexes(void) {
  MPI_Barrier(MPI_COMM_WORLD);
  const roam::process_heap_scope runtime_heap;
  drop_mutex_set(0, "ARMCI_Destroy_mutexes");
  return 0;
}

void PARMCI_Lock(int mutex, int proc) {
  check_proc(proc, "ARMCI_Lock");
  const roam::process_heap_scope runtime_heap;
  lock(0, mutex, proc);
}
void PARMCI_Unlock(int mutex, int proc) {
  check_proc(proc, "ARMCI_Unlock");
  const roam::process_heap_scope runtime_heap;
  unlock(0, mutex, proc);
}

// ---- groups ----

void ARMCI_Group_create_child(int n, int* pids, ARMCI_Group* out, ARMCI_Group* parent) {
  if (out == nullptr || parent == nullptr || (n > 0 && pids == nullptr))
    fatal("ARMCI_Group_create_child", "a null argument");
  MPI_Group parent_group, group;
  MPI_Comm_group(parent->comm, &parent_group);
  MPI_Group_incl(parent_group, n, pids, &group);
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_create(parent->comm, group, &comm);
  out->comm = comm;
  out->rank = -1;
  out->size = n;
  out->grp_to_abs = nullptr;
  if (comm != MPI_COMM_NULL) {
    MPI_Comm_rank(comm, &out->rank);
    out->grp_to_abs = static_cast<int*>(std::malloc(sizeof(int) * static_cast<std::size_t>(n)));
    MPI_Group world_group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    std::vector<int> ranks(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) ranks[static_cast<std::size_t>(i)] = i;
    MPI_Group_translate_ranks(group, n, ranks.data(), world_group, out->grp_to_abs);
    MPI_Group_free(&world_group);
  }
  MPI_Group_free(&group);
  MPI_Group_free(&parent_group);
}

void ARMCI_Group_create(int n, int* pids, ARMCI_Group* out) {
  ARMCI_Group parent;
  ARMCI_Group_get_default(&parent);
  ARMCI_Group_create_child(n, pids, out, &parent);
  if (parent.grp_to_abs) std::free(parent.grp_to_abs);
}

void ARMCI_Group_free(ARMCI_Group* group) {
  if (group == nullptr) return;
  if (group->comm != MPI_COMM_NULL && group->comm != MPI_COMM_WORLD) MPI_Comm_free(&group->comm);
  std::free(group->grp_to_abs);
  group->grp_to_abs = nullptr;
  group->comm = MPI_COMM_NULL;
}

int ARMCI_Group_rank(ARMCI_Group* group, int* rank) {
  *rank = group->rank;
  return 0;
}
void ARMCI_Group_size(ARMCI_Group* group, int* size) { *size = group->size; }

void ARMCI_Group_set_default(ARMCI_Group* group) {
  const roam::process_heap_scope runtime_heap;
  my_state().default_group = group == nullptr || group->comm == MPI_COMM_WORLD ? 0 : static_cast<int>(group->comm);
}

void ARMCI_Group_get_default(ARMCI_Group* out) { describe_group(default_comm(), out); }
void ARMCI_Group_get_world(ARMCI_Group* out) { describe_group(MPI_COMM_WORLD, out); }

int ARMCI_Absolute_id(ARMCI_Group* group, int group_rank) {
  if (group == nullptr || group_rank < 0 || group_rank >= group->size || group->grp_to_abs == nullptr)
    fatal("ARMCI_Absolute_id", "rank " + std::to_string(group_rank) + " is not in the group");
  return group->grp_to_abs[group_rank];
}

// ---- topology: each process is its own domain ----
// A rank may move to another PE or process at any ARMCI_Migrate, so no two
// ranks are promised shared memory: every "node" holds one rank, and memory
// of another rank is reached through ARMCI calls only.
int armci_domain_nprocs(armci_domain_t, int) { return 1; }
int armci_domain_id(armci_domain_t, int proc) { return proc; }
int armci_domain_glob_proc_id(armci_domain_t, int id, int) { return id; }
int armci_domain_my_id(armci_domain_t) { return world_rank(); }
int armci_domain_count(armci_domain_t) { return world_size(); }
int armci_domain_same_id(armci_domain_t, int proc) { return proc == world_rank() ? 1 : 0; }
int ARMCI_Same_node(int proc) { return proc == world_rank() ? 1 : 0; }
int ARMCI_Uses_shm(void) { return 0; }
void ARMCI_Set_shm_limit(unsigned long) {}
int ARMCI_Uses_shm_grp(ARMCI_Group*) { return 0; }

// ---- the adaptive runtime's ----

int ARMCI_Migrate(void) {
  settle();
  return AMPI_Migrate(AMPI_INFO_LB_SYNC) == MPI_SUCCESS ? 0 : 1;
}

int ARMCI_Checkpoint(const char* dirname) {
  settle();
  if (dirname == nullptr || dirname[0] == '\0') return AMPI_Migrate(AMPI_INFO_CHKPT_IN_MEMORY) == MPI_SUCCESS ? 0 : 1;
  MPI_Info info;
  MPI_Info_create(&info);
  const std::string value = std::string("to_file=") + dirname;
  MPI_Info_set(info, "ampi_checkpoint", value.c_str());
  const int e = AMPI_Migrate(info);
  MPI_Info_free(&info);
  return e == MPI_SUCCESS ? 0 : 1;
}

}  // extern "C"

// The profiling interface: ARMCI_<name> is a weak alias of PARMCI_<name>
// (a tool defines ARMCI_<name> and calls PARMCI_<name>).
ROAM_ARMCI_PARMCI(Init)
ROAM_ARMCI_PARMCI(Init_args)
ROAM_ARMCI_PARMCI(Init_thread)
ROAM_ARMCI_PARMCI(Initialized)
ROAM_ARMCI_PARMCI(Finalize)
ROAM_ARMCI_PARMCI(Malloc)
ROAM_ARMCI_PARMCI(Free)
ROAM_ARMCI_PARMCI(Malloc_local)
ROAM_ARMCI_PARMCI(Free_local)
ROAM_ARMCI_PARMCI(Barrier)
ROAM_ARMCI_PARMCI(Create_mutexes)
ROAM_ARMCI_PARMCI(Destroy_mutexes)
ROAM_ARMCI_PARMCI(Lock)
ROAM_ARMCI_PARMCI(Unlock)
