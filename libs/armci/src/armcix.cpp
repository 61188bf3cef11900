// ARMCI-MPI's extensions (armcix.h): group split and dup, mutex sets with
// handles and try-locks, progress.
#include <cstdlib>
#include <string>

#include <armcix.h>

#include "state.hpp"

using namespace roam::armci;

struct armcix_mutex_hdl_s {
  int set;        // the same in every member (mutex_sets' key)
  int count;
  ARMCI_Group group;
};

namespace {

int absolute(armcix_mutex_hdl_t hdl, int proc, const char* function) {
  if (hdl == nullptr) fatal(function, "the mutex handle is null");
  if (proc < 0 || proc >= hdl->group.size)
    fatal(function, "process " + std::to_string(proc) + " is not in the mutexes' group of " +
                        std::to_string(hdl->group.size));
  return hdl->group.grp_to_abs[proc];
}

}  // namespace

extern "C" {

int ARMCIX_Group_split(ARMCI_Group* parent, int color, int key, ARMCI_Group* out) {
  if (parent == nullptr || out == nullptr) fatal("ARMCIX_Group_split", "a null group");
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_split(parent->comm, color, key, &comm);
  if (comm == MPI_COMM_NULL) {
    *out = ARMCI_Group{MPI_COMM_NULL, -1, 0, nullptr};
    return 0;
  }
  describe_group(comm, out);
  return 0;
}

int ARMCIX_Group_dup(ARMCI_Group* parent, ARMCI_Group* out) {
  if (parent == nullptr || out == nullptr) fatal("ARMCIX_Group_dup", "a null group");
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(parent->comm, &comm);
  describe_group(comm, out);
  return 0;
}

armcix_mutex_hdl_t ARMCIX_Create_mutexes_hdl(int count, ARMCI_Group* group) {
  if (group == nullptr) fatal("ARMCIX_Create_mutexes_hdl", "the group is null");
  if (count < 0) fatal("ARMCIX_Create_mutexes_hdl", "a negative count (" + std::to_string(count) + ")");
  auto* hdl = static_cast<armcix_mutex_hdl_t>(std::malloc(sizeof(armcix_mutex_hdl_s)));
  hdl->count = count;
  ARMCIX_Group_dup(group, &hdl->group);
  int set = 0;
  {
    const roam::process_heap_scope runtime_heap;
    set = my_state().next_mutex_set;
  }
  // The members agree on the set's number: the greatest of their next ones.
  MPI_Allreduce(MPI_IN_PLACE, &set, 1, MPI_INT, MPI_MAX, hdl->group.comm);
  hdl->set = set;
  {
    const roam::process_heap_scope runtime_heap;
    state& s = my_state();
    s.next_mutex_set = set + 1;
    s.mutex_sets[set].assign(static_cast<std::size_t>(count), mutex_record{});
  }
  MPI_Barrier(hdl->group.comm);  // no request reaches a member before its mutexes exist
  return hdl;
}

int ARMCIX_Destroy_mutexes_hdl(armcix_mutex_hdl_t hdl) {
  if (hdl == nullptr) fatal("ARMCIX_Destroy_mutexes_hdl", "the mutex handle is null");
  MPI_Barrier(hdl->group.comm);
  {
    const roam::process_heap_scope runtime_heap;
    state& s = my_state();
    auto it = s.mutex_sets.find(hdl->set);
    if (it != s.mutex_sets.end()) {
      for (std::size_t i = 0; i < it->second.size(); ++i)
        if (it->second[i].holder >= 0)
          fatal("ARMCIX_Destroy_mutexes_hdl", "mutex " + std::to_string(i) + " is held by rank " +
                                                  std::to_string(it->second[i].holder));
      s.mutex_sets.erase(it);
    }
  }
  ARMCI_Group_free(&hdl->group);
  std::free(hdl);
  return 0;
}

void ARMCIX_Lock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc) {
  const int target = absolute(hdl, proc, "ARMCIX_Lock_hdl");
  const roam::process_heap_scope runtime_heap;
  lock(hdl->set, mutex, target);
}

int ARMCIX_Trylock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc) {
  const int target = absolute(hdl, proc, "ARMCIX_Trylock_hdl");
  const roam::process_heap_scope runtime_heap;
  return trylock(hdl->set, mutex, target) ? 0 : 1;  // 0: acquired
}

void ARMCIX_Unlock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc) {
  const int target = absolute(hdl, proc, "ARMCIX_Unlock_hdl");
  const roam::process_heap_scope runtime_heap;
  unlock(hdl->set, mutex, target);
}

// Operations progress without their targets' threads: nothing to do.
void ARMCIX_Progress(void) {}

}  // extern "C"
