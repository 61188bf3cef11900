// Dynamic processes (MPI-3.1 chapter 10). Adaptive MPI's ranks are the
// elements of one array made at start (+vp N), as in Charm++'s AMPI: no rank
// is ever added, so a program has no parent, and spawning, ports, the name
// service and MPI_Comm_join raise their standard error classes (under
// MPI_ERRORS_RETURN the program sees them and can do without).
#include "api.hpp"

using namespace roam::ampi;

namespace {

// Raises `code` on `comm` (MPI_COMM_WORLD when it is not a communicator).
int unsupported(MPI_Comm comm, int code, const char* function) {
  const MPI_Comm on = find_comm(me(), comm) != nullptr ? comm : MPI_COMM_WORLD;
  return fail(on, code, function,
              std::string(function) + " is not supported by roam's Adaptive MPI: ranks are fixed at start");
}

void no_intercomm(MPI_Comm* intercomm) {
  if (intercomm != nullptr) *intercomm = MPI_COMM_NULL;
}

void spawn_errcodes(int* errcodes, int n) {
  if (errcodes == MPI_ERRCODES_IGNORE) return;
  for (int i = 0; i < n; ++i) errcodes[i] = MPI_ERR_SPAWN;
}

}  // namespace

extern "C" int PMPI_Comm_get_parent(MPI_Comm* parent) {
  *parent = MPI_COMM_NULL;  // no rank was spawned
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Comm_get_parent)

extern "C" int PMPI_Comm_spawn(const char*, char*[], int maxprocs, MPI_Info, int, MPI_Comm comm, MPI_Comm* intercomm,
                               int array_of_errcodes[]) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  no_intercomm(intercomm);
  spawn_errcodes(array_of_errcodes, maxprocs);
  return unsupported(comm, MPI_ERR_SPAWN, "MPI_Comm_spawn");
}
ROAM_AMPI_PMPI(Comm_spawn)

extern "C" int PMPI_Comm_spawn_multiple(int count, char*[], char**[], const int array_of_maxprocs[], const MPI_Info[],
                                        int, MPI_Comm comm, MPI_Comm* intercomm, int array_of_errcodes[]) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  no_intercomm(intercomm);
  int total = 0;
  for (int i = 0; array_of_maxprocs != nullptr && i < count; ++i) total += array_of_maxprocs[i];
  spawn_errcodes(array_of_errcodes, total);
  return unsupported(comm, MPI_ERR_SPAWN, "MPI_Comm_spawn_multiple");
}
ROAM_AMPI_PMPI(Comm_spawn_multiple)

extern "C" int PMPI_Open_port(MPI_Info, char* port_name) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (port_name != nullptr) port_name[0] = '\0';
  return unsupported(MPI_COMM_WORLD, MPI_ERR_PORT, "MPI_Open_port");
}
ROAM_AMPI_PMPI(Open_port)

extern "C" int PMPI_Close_port(const char*) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return unsupported(MPI_COMM_WORLD, MPI_ERR_PORT, "MPI_Close_port");
}
ROAM_AMPI_PMPI(Close_port)

extern "C" int PMPI_Comm_accept(const char*, MPI_Info, int, MPI_Comm comm, MPI_Comm* newcomm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  no_intercomm(newcomm);
  return unsupported(comm, MPI_ERR_PORT, "MPI_Comm_accept");
}
ROAM_AMPI_PMPI(Comm_accept)

extern "C" int PMPI_Comm_connect(const char*, MPI_Info, int, MPI_Comm comm, MPI_Comm* newcomm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  no_intercomm(newcomm);
  return unsupported(comm, MPI_ERR_PORT, "MPI_Comm_connect");
}
ROAM_AMPI_PMPI(Comm_connect)

extern "C" int PMPI_Publish_name(const char*, MPI_Info, const char*) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return unsupported(MPI_COMM_WORLD, MPI_ERR_SERVICE, "MPI_Publish_name");
}
ROAM_AMPI_PMPI(Publish_name)

extern "C" int PMPI_Unpublish_name(const char*, MPI_Info, const char*) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return unsupported(MPI_COMM_WORLD, MPI_ERR_SERVICE, "MPI_Unpublish_name");
}
ROAM_AMPI_PMPI(Unpublish_name)

extern "C" int PMPI_Lookup_name(const char*, MPI_Info, char* port_name) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (port_name != nullptr) port_name[0] = '\0';
  return unsupported(MPI_COMM_WORLD, MPI_ERR_NAME, "MPI_Lookup_name");
}
ROAM_AMPI_PMPI(Lookup_name)

extern "C" int PMPI_Comm_join(int, MPI_Comm* intercomm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  no_intercomm(intercomm);
  return unsupported(MPI_COMM_WORLD, MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Comm_join");
}
ROAM_AMPI_PMPI(Comm_join)

// MPI_Comm_free once the rank's communication on the communicator is done
// (MPI: MPI_Comm_disconnect waits for it): its pending requests are waited
// for (their handles stay the program's, to complete or free).
extern "C" int PMPI_Comm_disconnect(MPI_Comm* comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  if (comm == nullptr || find_comm(me(), *comm) == nullptr)
    return fail(MPI_COMM_WORLD, MPI_ERR_COMM, "MPI_Comm_disconnect", "invalid communicator");
  for (std::size_t h = 1; h <= me().requests.size(); ++h) {
    const request_record& q = me().req(static_cast<int>(h));
    const bool pending = q.what != request_record::kind::none && q.what != request_record::kind::generalized &&
                         q.comm == *comm && q.active && !q.complete;
    if (pending) wait_for(static_cast<int>(h));  // the thread blocks: the rank is re-read after
  }
  return PMPI_Comm_free(comm);
}
ROAM_AMPI_PMPI(Comm_disconnect)
