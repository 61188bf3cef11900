// Neighbourhood collectives (MPI-3.1 section 7.6): each rank sends a block to
// each out-neighbour of its communicator's topology and receives a block
// from each in-neighbour, on the collective context (the program's
// receives never see these messages).
//
// Neighbours, in the standard's order: on a Cartesian grid, per dimension
// the source then the destination of MPI_Cart_shift(dim, 1) (both in and
// out; MPI_PROC_NULL past a non-periodic edge: nothing sent or received,
// the slot untouched); on a graph, MPI_Graph_neighbors' list (in = out); on
// a distributed graph, the sources (in) and destinations (out) as given.
//
// Matching: messages between two ranks of one collective are received in
// the order they were sent, so the k-th message from rank a to rank b fills
// the k-th slot of b's in-list that names a (repeated edges match in
// order). On a grid that is not enough: a rank can be both neighbours of a
// dimension (periodic, 1 or 2 ranks long), and what its destination sent
// "up" must land in the source slot. Each message therefore carries its
// direction as its kind: sent up (to a destination) or down (to a source).
#include <algorithm>
#include <vector>

#include "api.hpp"

using namespace roam::ampi;

namespace {

using bytes = roam::buffer<std::byte>;

// Message kinds within one neighbourhood collective.
enum neighbor_tag : int { t_edge = 1, t_up, t_down };

struct neighbor {
  int rank = MPI_PROC_NULL;  // in the communicator, or MPI_PROC_NULL
  int kind = t_edge;         // the message's kind (its direction on a grid)
};

struct neighborhood {
  std::vector<neighbor> in, out;
};

// The neighbours of the calling rank in `comm`'s topology, or the error
// reported (MPI_ERR_TOPOLOGY without one).
int neighborhood_of(MPI_Comm comm, const char* function, neighborhood* nb) {
  const communicator* c = find_comm(me(), comm);
  if (c == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_COMM, function, "invalid communicator " + std::to_string(comm));
  switch (c->topology) {
    case MPI_CART:
      for (std::size_t d = 0; d < c->dims.size(); ++d) {
        int source = MPI_PROC_NULL, dest = MPI_PROC_NULL;
        if (int e = PMPI_Cart_shift(comm, static_cast<int>(d), 1, &source, &dest)) return e;
        // What my source sent up lands in its slot; I send down to it.
        nb->in.push_back({source, t_up});
        nb->in.push_back({dest, t_down});
        nb->out.push_back({source, t_down});
        nb->out.push_back({dest, t_up});
      }
      return MPI_SUCCESS;
    case MPI_GRAPH: {
      const auto i = static_cast<std::size_t>(c->my_rank);
      const int first = i ? c->graph_index[i - 1] : 0;
      for (int k = first; k < c->graph_index[i]; ++k) {
        const int r = c->graph_edges[static_cast<std::size_t>(k)];
        nb->in.push_back({r, t_edge});
        nb->out.push_back({r, t_edge});
      }
      return MPI_SUCCESS;
    }
    case MPI_DIST_GRAPH:
      for (int r : c->dist_sources) nb->in.push_back({r, t_edge});
      for (int r : c->dist_destinations) nb->out.push_back({r, t_edge});
      return MPI_SUCCESS;
    default:
      return fail(comm, MPI_ERR_TOPOLOGY, function, "the communicator has no topology (Cartesian, graph or distributed graph)");
  }
}

// Where each neighbour's block is in a buffer: byte offset, count, datatype.
struct layout {
  std::vector<std::int64_t> offset;
  std::vector<int> count;
  std::vector<MPI_Datatype> type;

  void add(std::int64_t at, int n, MPI_Datatype t) {
    offset.push_back(at);
    count.push_back(n);
    type.push_back(t);
  }
};

// Checks every block's count and datatype.
int check_layout(MPI_Comm comm, const layout& l, const char* function) {
  for (std::size_t i = 0; i < l.count.size(); ++i)
    if (int e = check_buffer_args(me(), comm, l.count[i], l.type[i], function)) return e;
  return MPI_SUCCESS;
}

// The extent of a datatype already checked (0 for a block list that is empty).
std::int64_t extent_of(MPI_Datatype t) {
  const type_info* info = find_type(me(), t);
  return info ? info->extent() : 0;
}

// The exchange itself: every block leaves (packed, eagerly) before any is
// awaited, so no order of the ranks' calls can deadlock; then each
// in-neighbour's block is received in list order and unpacked into its slot.
int exchange(MPI_Comm comm, const neighborhood& nb, const void* sendbuf, const layout& s, void* recvbuf,
             const layout& r, const char* function) {
  if (int e = check_layout(comm, s, function)) return e;
  if (int e = check_layout(comm, r, function)) return e;
  const auto* in = static_cast<const std::byte*>(sendbuf);
  for (std::size_t i = 0; i < nb.out.size(); ++i) {
    if (nb.out[i].rank == MPI_PROC_NULL) continue;
    coll_send(comm, nb.out[i].rank, nb.out[i].kind, packed(in + s.offset[i], s.count[i], *find_type(me(), s.type[i])));
  }
  // The receive types, copied: the rank's table may be rebuilt elsewhere
  // while the thread waits.
  std::vector<type_info> types;
  types.reserve(nb.in.size());
  for (std::size_t i = 0; i < nb.in.size(); ++i) types.push_back(*find_type(me(), r.type[i]));
  auto* out = static_cast<std::byte*>(recvbuf);
  int err = MPI_SUCCESS;
  for (std::size_t i = 0; i < nb.in.size(); ++i) {
    if (nb.in[i].rank == MPI_PROC_NULL) continue;
    const bytes b = coll_recv(comm, nb.in[i].rank, nb.in[i].kind);
    const std::int64_t room = r.count[i] * types[i].size;
    if (static_cast<std::int64_t>(b.size()) > room && err == MPI_SUCCESS)  // every message is still taken
      err = fail(comm, MPI_ERR_TRUNCATE, function,
                 std::to_string(b.size()) + " bytes from neighbour " + std::to_string(nb.in[i].rank) + " for a slot of " +
                     std::to_string(room));
    unpack(types[i], b.data(), std::min<std::int64_t>(static_cast<std::int64_t>(b.size()), room), out + r.offset[i],
           r.count[i]);
  }
  return err;
}

// Blocks of `count` elements of `t`, one after another (slot i at i * count).
layout consecutive(std::size_t n, int count, MPI_Datatype t) {
  layout l;
  const std::int64_t step = count * extent_of(t);
  for (std::size_t i = 0; i < n; ++i) l.add(static_cast<std::int64_t>(i) * step, count, t);
  return l;
}

// The same block for every neighbour (what MPI_Neighbor_allgather* send).
layout repeated(std::size_t n, int count, MPI_Datatype t) {
  layout l;
  for (std::size_t i = 0; i < n; ++i) l.add(0, count, t);
  return l;
}

// Blocks at displacements counted in elements of `t`.
layout displaced(std::size_t n, const int counts[], const int displs[], MPI_Datatype t) {
  layout l;
  const std::int64_t ext = extent_of(t);
  for (std::size_t i = 0; i < n; ++i) l.add(displs[i] * ext, counts[i], t);
  return l;
}

// Blocks at displacements in bytes, each of its own datatype.
layout typed(std::size_t n, const int counts[], const MPI_Aint displs[], const MPI_Datatype types[]) {
  layout l;
  for (std::size_t i = 0; i < n; ++i) l.add(displs[i], counts[i], types[i]);
  return l;
}

// A single datatype argument, checked before its extent is used.
int check_type_arg(MPI_Comm comm, int count, MPI_Datatype t, const char* function) {
  return check_buffer_args(me(), comm, count, t, function);
}

}  // namespace

extern "C" int PMPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const coll_scope numbered(comm);  // this collective's tags
  const char* const fn = "MPI_Neighbor_allgather";
  neighborhood nb;
  if (int e = neighborhood_of(comm, fn, &nb)) return e;
  if (int e = check_type_arg(comm, recvcount, recvtype, fn)) return e;
  return exchange(comm, nb, sendbuf, repeated(nb.out.size(), sendcount, sendtype), recvbuf,
                  consecutive(nb.in.size(), recvcount, recvtype), fn);
}
ROAM_AMPI_PMPI(Neighbor_allgather)

extern "C" int PMPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                        MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const coll_scope numbered(comm);  // this collective's tags
  const char* const fn = "MPI_Neighbor_allgatherv";
  neighborhood nb;
  if (int e = neighborhood_of(comm, fn, &nb)) return e;
  if (int e = check_type_arg(comm, 0, recvtype, fn)) return e;
  return exchange(comm, nb, sendbuf, repeated(nb.out.size(), sendcount, sendtype), recvbuf,
                  displaced(nb.in.size(), recvcounts, displs, recvtype), fn);
}
ROAM_AMPI_PMPI(Neighbor_allgatherv)

extern "C" int PMPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const coll_scope numbered(comm);  // this collective's tags
  const char* const fn = "MPI_Neighbor_alltoall";
  neighborhood nb;
  if (int e = neighborhood_of(comm, fn, &nb)) return e;
  if (int e = check_type_arg(comm, sendcount, sendtype, fn)) return e;
  if (int e = check_type_arg(comm, recvcount, recvtype, fn)) return e;
  return exchange(comm, nb, sendbuf, consecutive(nb.out.size(), sendcount, sendtype), recvbuf,
                  consecutive(nb.in.size(), recvcount, recvtype), fn);
}
ROAM_AMPI_PMPI(Neighbor_alltoall)

extern "C" int PMPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                       MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const coll_scope numbered(comm);  // this collective's tags
  const char* const fn = "MPI_Neighbor_alltoallv";
  neighborhood nb;
  if (int e = neighborhood_of(comm, fn, &nb)) return e;
  if (int e = check_type_arg(comm, 0, sendtype, fn)) return e;
  if (int e = check_type_arg(comm, 0, recvtype, fn)) return e;
  return exchange(comm, nb, sendbuf, displaced(nb.out.size(), sendcounts, sdispls, sendtype), recvbuf,
                  displaced(nb.in.size(), recvcounts, rdispls, recvtype), fn);
}
ROAM_AMPI_PMPI(Neighbor_alltoallv)

extern "C" int PMPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                       const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const coll_scope numbered(comm);  // this collective's tags
  const char* const fn = "MPI_Neighbor_alltoallw";
  neighborhood nb;
  if (int e = neighborhood_of(comm, fn, &nb)) return e;
  return exchange(comm, nb, sendbuf, typed(nb.out.size(), sendcounts, sdispls, sendtypes), recvbuf,
                  typed(nb.in.size(), recvcounts, rdispls, recvtypes), fn);
}
ROAM_AMPI_PMPI(Neighbor_alltoallw)

// ---- non-blocking forms: the blocking ones on a thread of their own -------------
namespace {

// Kinds of their own (the jobs of nonblocking.cpp count from 1).
enum neighbor_job : int { j_allgather = 101, j_allgatherv, j_alltoall, j_alltoallv, j_alltoallw };

template <class T>
T* as(std::uint64_t a) {
  return reinterpret_cast<T*>(a);
}

std::uint64_t addr(const void* p) { return reinterpret_cast<std::uint64_t>(p); }

int run_neighbor_job(const coll_job& j) {
  switch (j.kind) {
    case j_allgather:
      return PMPI_Neighbor_allgather(as<const void>(j.sendbuf), j.sendcount, j.sendtype, as<void>(j.recvbuf),
                                     j.recvcount, j.recvtype, j.comm);
    case j_allgatherv:
      return PMPI_Neighbor_allgatherv(as<const void>(j.sendbuf), j.sendcount, j.sendtype, as<void>(j.recvbuf),
                                      as<const int>(j.recvcounts), as<const int>(j.rdispls), j.recvtype, j.comm);
    case j_alltoall:
      return PMPI_Neighbor_alltoall(as<const void>(j.sendbuf), j.sendcount, j.sendtype, as<void>(j.recvbuf),
                                    j.recvcount, j.recvtype, j.comm);
    case j_alltoallv:
      return PMPI_Neighbor_alltoallv(as<const void>(j.sendbuf), as<const int>(j.sendcounts), as<const int>(j.sdispls),
                                     j.sendtype, as<void>(j.recvbuf), as<const int>(j.recvcounts),
                                     as<const int>(j.rdispls), j.recvtype, j.comm);
    case j_alltoallw:
      return PMPI_Neighbor_alltoallw(as<const void>(j.sendbuf), as<const int>(j.sendcounts),
                                     as<const MPI_Aint>(j.sdispls), as<const MPI_Datatype>(j.sendtypes),
                                     as<void>(j.recvbuf), as<const int>(j.recvcounts), as<const MPI_Aint>(j.rdispls),
                                     as<const MPI_Datatype>(j.recvtypes), j.comm);
    default: return MPI_ERR_INTERN;
  }
}

// The arguments of one call: the program's buffers and arrays as addresses
// (they stay valid until the request completes, as MPI requires).
struct neighbor_args {
  const void* sendbuf = nullptr;
  int sendcount = 0;
  MPI_Datatype sendtype = 0;
  const void* sendcounts = nullptr;
  const void* sdispls = nullptr;
  const void* sendtypes = nullptr;
  void* recvbuf = nullptr;
  int recvcount = 0;
  MPI_Datatype recvtype = 0;
  const void* recvcounts = nullptr;
  const void* rdispls = nullptr;
  const void* recvtypes = nullptr;
};

// Refuses a communicator without a topology at the call (not only when the
// request completes), then starts the job.
int start_neighbor(int kind, MPI_Comm comm, const neighbor_args& a, MPI_Request* request, const char* function) {
  const communicator* c = find_comm(me(), comm);
  if (c == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_COMM, function, "invalid communicator " + std::to_string(comm));
  if (c->topology != MPI_CART && c->topology != MPI_GRAPH && c->topology != MPI_DIST_GRAPH)
    return fail(comm, MPI_ERR_TOPOLOGY, function, "the communicator has no topology (Cartesian, graph or distributed graph)");
  coll_job j;
  j.kind = kind;
  j.comm = comm;
  j.sendbuf = addr(a.sendbuf);
  j.sendcount = a.sendcount;
  j.sendtype = a.sendtype;
  j.sendcounts = addr(a.sendcounts);
  j.sdispls = addr(a.sdispls);
  j.sendtypes = addr(a.sendtypes);
  j.recvbuf = addr(a.recvbuf);
  j.recvcount = a.recvcount;
  j.recvtype = a.recvtype;
  j.recvcounts = addr(a.recvcounts);
  j.rdispls = addr(a.rdispls);
  j.recvtypes = addr(a.recvtypes);
  return start_collective(j, &run_neighbor_job, request, function);
}

}  // namespace

extern "C" int PMPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  neighbor_args a;
  a.sendbuf = sendbuf, a.sendcount = sendcount, a.sendtype = sendtype;
  a.recvbuf = recvbuf, a.recvcount = recvcount, a.recvtype = recvtype;
  return start_neighbor(j_allgather, comm, a, request, "MPI_Ineighbor_allgather");
}
ROAM_AMPI_PMPI(Ineighbor_allgather)

extern "C" int PMPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                         MPI_Comm comm, MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  neighbor_args a;
  a.sendbuf = sendbuf, a.sendcount = sendcount, a.sendtype = sendtype;
  a.recvbuf = recvbuf, a.recvcounts = recvcounts, a.rdispls = displs, a.recvtype = recvtype;
  return start_neighbor(j_allgatherv, comm, a, request, "MPI_Ineighbor_allgatherv");
}
ROAM_AMPI_PMPI(Ineighbor_allgatherv)

extern "C" int PMPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  neighbor_args a;
  a.sendbuf = sendbuf, a.sendcount = sendcount, a.sendtype = sendtype;
  a.recvbuf = recvbuf, a.recvcount = recvcount, a.recvtype = recvtype;
  return start_neighbor(j_alltoall, comm, a, request, "MPI_Ineighbor_alltoall");
}
ROAM_AMPI_PMPI(Ineighbor_alltoall)

extern "C" int PMPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                        MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                        MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  neighbor_args a;
  a.sendbuf = sendbuf, a.sendcounts = sendcounts, a.sdispls = sdispls, a.sendtype = sendtype;
  a.recvbuf = recvbuf, a.recvcounts = recvcounts, a.rdispls = rdispls, a.recvtype = recvtype;
  return start_neighbor(j_alltoallv, comm, a, request, "MPI_Ineighbor_alltoallv");
}
ROAM_AMPI_PMPI(Ineighbor_alltoallv)

extern "C" int PMPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                        const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                        const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                        MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  neighbor_args a;
  a.sendbuf = sendbuf, a.sendcounts = sendcounts, a.sdispls = sdispls, a.sendtypes = sendtypes;
  a.recvbuf = recvbuf, a.recvcounts = recvcounts, a.rdispls = rdispls, a.recvtypes = recvtypes;
  return start_neighbor(j_alltoallw, comm, a, request, "MPI_Ineighbor_alltoallw");
}
ROAM_AMPI_PMPI(Ineighbor_alltoallw)
