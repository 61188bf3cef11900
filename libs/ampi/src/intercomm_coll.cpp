// Collectives on intercommunicators (MPI-3.1 §5.2.2): data goes from one
// group to the other. A rooted operation names the root with MPI_ROOT in
// the root itself, MPI_PROC_NULL in the rest of its group and the root's
// rank in the remote group on the other side. Reductions and gathers of
// all to all are direct exchanges between the two groups (every rank to
// every remote rank, in remote rank order); broadcasts and reductions to a
// root go through the other group's rank 0 and its local communicator.
// MPI_Reduce_scatter(_block): each group's data reduced to its rank 0,
// exchanged between the two rank 0s and scattered in the other group.
// Scans are not defined on intercommunicators.
#include <algorithm>
#include <cstring>
#include <vector>

#include "api.hpp"
#include "ops.hpp"

namespace roam::ampi {
namespace {

enum inter_tag : int { it_barrier = 20, it_bcast, it_gather, it_scatter, it_allgather, it_alltoall, it_reduce, it_allreduce, it_reduce_scatter };

using bytes = buffer<std::byte>;

// The communicator's local group (a hidden intracommunicator) and sizes.
struct sides {
  int local = 0, my = 0, remote_size = 0;
};
sides sides_of(MPI_Comm comm) {
  const communicator& c = me().comms.at(comm);
  return {c.local, c.my_rank, c.peer_size()};
}

int check_inter_root(MPI_Comm comm, int root, const char* function) {
  const sides s = sides_of(comm);
  if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < s.remote_size)) return MPI_SUCCESS;
  return fail(comm, MPI_ERR_ROOT, function,
              "root " + std::to_string(root) + " is not MPI_ROOT, MPI_PROC_NULL or a rank of the remote group of size " +
                  std::to_string(s.remote_size));
}

const type_info* type_or_fail(MPI_Comm comm, MPI_Datatype dt, const char* function, int* err) {
  const type_info* t = find_type(me(), dt);
  *err = t ? MPI_SUCCESS : fail(comm, MPI_ERR_TYPE, function, "invalid datatype " + std::to_string(dt));
  return t;
}

}  // namespace

int inter_barrier(MPI_Comm comm) {
  const sides s = sides_of(comm);
  if (int e = PMPI_Barrier(s.local)) return e;
  if (s.my == 0) {  // the leaders meet, then tell their groups
    coll_send(comm, 0, it_barrier, bytes());
    coll_recv(comm, 0, it_barrier);
  }
  return PMPI_Bcast(nullptr, 0, MPI_BYTE, 0, s.local);
}

int inter_bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  if (int e = check_inter_root(comm, root, "MPI_Bcast")) return e;
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  int err = 0;
  const type_info* t = type_or_fail(comm, datatype, "MPI_Bcast", &err);
  if (!t) return err;
  if (root == MPI_ROOT) {
    coll_send(comm, 0, it_bcast, packed(buffer, count, *t));
    return MPI_SUCCESS;
  }
  const sides s = sides_of(comm);
  if (s.my == 0) {
    const type_info copy = *t;
    bytes b = coll_recv(comm, root, it_bcast);
    unpack(copy, b.data(), static_cast<std::int64_t>(b.size()), buffer, count);
  }
  return PMPI_Bcast(buffer, count, datatype, 0, s.local);
}

int inter_gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (int e = check_inter_root(comm, root, "MPI_Gatherv")) return e;
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  int err = 0;
  if (root != MPI_ROOT) {
    const type_info* st = type_or_fail(comm, sendtype, "MPI_Gatherv", &err);
    if (!st) return err;
    coll_send(comm, root, it_gather, packed(sendbuf, sendcount, *st));
    return MPI_SUCCESS;
  }
  const type_info* rtp = type_or_fail(comm, recvtype, "MPI_Gatherv", &err);
  if (!rtp) return err;
  const type_info rt = *rtp;
  const int m = sides_of(comm).remote_size;
  for (int i = 0; i < m; ++i) {
    bytes b = coll_recv(comm, i, it_gather);
    unpack(rt, b.data(), static_cast<std::int64_t>(b.size()), static_cast<std::byte*>(recvbuf) + displs[i] * rt.extent(),
           recvcounts[i]);
  }
  return MPI_SUCCESS;
}

int inter_scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                   void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (int e = check_inter_root(comm, root, "MPI_Scatterv")) return e;
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  int err = 0;
  if (root == MPI_ROOT) {
    const type_info* st = type_or_fail(comm, sendtype, "MPI_Scatterv", &err);
    if (!st) return err;
    const int m = sides_of(comm).remote_size;
    for (int i = 0; i < m; ++i)
      coll_send(comm, i, it_scatter,
                packed(static_cast<const std::byte*>(sendbuf) + displs[i] * st->extent(), sendcounts[i], *st));
    return MPI_SUCCESS;
  }
  const type_info* rtp = type_or_fail(comm, recvtype, "MPI_Scatterv", &err);
  if (!rtp) return err;
  const type_info rt = *rtp;
  bytes b = coll_recv(comm, root, it_scatter);
  unpack(rt, b.data(), static_cast<std::int64_t>(b.size()), recvbuf, recvcount);
  return MPI_SUCCESS;
}

int inter_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                     const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  int err = 0;
  const type_info* st = type_or_fail(comm, sendtype, "MPI_Allgatherv", &err);
  if (!st) return err;
  const type_info* rtp = type_or_fail(comm, recvtype, "MPI_Allgatherv", &err);
  if (!rtp) return err;
  const type_info rt = *rtp;
  const int m = sides_of(comm).remote_size;
  const bytes mine = packed(sendbuf, sendcount, *st);
  for (int i = 0; i < m; ++i) coll_send(comm, i, it_allgather, mine);
  for (int i = 0; i < m; ++i) {
    bytes b = coll_recv(comm, i, it_allgather);
    unpack(rt, b.data(), static_cast<std::int64_t>(b.size()), static_cast<std::byte*>(recvbuf) + displs[i] * rt.extent(),
           recvcounts[i]);
  }
  return MPI_SUCCESS;
}

int inter_alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                    void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                    MPI_Comm comm) {
  if (sendbuf == MPI_IN_PLACE)
    return fail(comm, MPI_ERR_BUFFER, "MPI_Alltoallw", "MPI_IN_PLACE is not allowed on an intercommunicator");
  const int m = sides_of(comm).remote_size;
  for (int i = 0; i < m; ++i) {
    const type_info* st = find_type(me(), sendtypes[i]);
    if (st == nullptr) return fail(comm, MPI_ERR_TYPE, "MPI_Alltoallw", "invalid send datatype");
    coll_send(comm, i, it_alltoall, packed(static_cast<const std::byte*>(sendbuf) + sdispls[i], sendcounts[i], *st));
  }
  for (int i = 0; i < m; ++i) {
    bytes b = coll_recv(comm, i, it_alltoall);
    const type_info* rt = find_type(me(), recvtypes[i]);
    if (rt == nullptr) return fail(comm, MPI_ERR_TYPE, "MPI_Alltoallw", "invalid receive datatype");
    unpack(*rt, b.data(), static_cast<std::int64_t>(b.size()), static_cast<std::byte*>(recvbuf) + rdispls[i],
           recvcounts[i]);
  }
  return MPI_SUCCESS;
}

int inter_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                 MPI_Comm comm) {
  if (int e = check_inter_root(comm, root, "MPI_Reduce")) return e;
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  int err = 0;
  const type_info* tp = type_or_fail(comm, datatype, "MPI_Reduce", &err);
  if (!tp) return err;
  const type_info t = *tp;
  if (root == MPI_ROOT) {
    bytes b = coll_recv(comm, 0, it_reduce);
    unpack(t, b.data(), static_cast<std::int64_t>(b.size()), recvbuf, count);
    return MPI_SUCCESS;
  }
  // The sending group reduces to its rank 0, which passes it on.
  const sides s = sides_of(comm);
  std::vector<std::byte> result(static_cast<std::size_t>(count > 0 ? (count - 1) * t.extent() + t.true_ub - t.lb : 0) + 1);
  void* at = result.data() - t.lb;
  if (int e = PMPI_Reduce(sendbuf, at, count, datatype, op, 0, s.local)) return e;
  if (s.my == 0) coll_send(comm, root, it_reduce, packed(at, count, t));
  return MPI_SUCCESS;
}

// The reduction of the remote group's data, scattered here by the local
// recvcounts (both groups' counts must add up to the same total).
int inter_reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm) {
  if (sendbuf == MPI_IN_PLACE)
    return fail(comm, MPI_ERR_BUFFER, "MPI_Reduce_scatter", "MPI_IN_PLACE is not allowed on an intercommunicator");
  int err = 0;
  const type_info* tp = type_or_fail(comm, datatype, "MPI_Reduce_scatter", &err);
  if (!tp) return err;
  const type_info t = *tp;
  const sides s = sides_of(comm);
  const int local_size = me().comms.at(s.local).size;
  std::vector<int> displs(static_cast<std::size_t>(local_size));
  int total = 0;
  for (int i = 0; i < local_size; ++i) displs[static_cast<std::size_t>(i)] = total, total += recvcounts[i];
  // This group's reduction goes to the other group's rank 0 ...
  const std::int64_t span = total > 0 ? (total - 1) * t.extent() + t.true_ub - t.lb : 0;
  std::vector<std::byte> result(static_cast<std::size_t>(span) + 1);
  void* at = result.data() - t.lb;
  if (int e = PMPI_Reduce(sendbuf, at, total, datatype, op, 0, s.local)) return e;
  if (s.my == 0) coll_send(comm, 0, it_reduce_scatter, packed(at, total, t));
  // ... and the other group's comes to this one's rank 0, which scatters it.
  if (s.my == 0) {
    bytes theirs = coll_recv(comm, 0, it_reduce_scatter);
    if (static_cast<std::int64_t>(theirs.size()) != total * t.size)
      return fail(comm, MPI_ERR_COUNT, "MPI_Reduce_scatter",
                  "the remote group's counts add up to " + std::to_string(theirs.size() / std::max<std::int64_t>(t.size, 1)) +
                      " elements, this group's to " + std::to_string(total));
    unpack(t, theirs.data(), static_cast<std::int64_t>(theirs.size()), at, total);
  }
  return PMPI_Scatterv(at, recvcounts, displs.data(), datatype, recvbuf, recvcounts[s.my], datatype, 0, s.local);
}

int inter_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  if (sendbuf == MPI_IN_PLACE)
    return fail(comm, MPI_ERR_BUFFER, "MPI_Allreduce", "MPI_IN_PLACE is not allowed on an intercommunicator");
  int err = 0;
  const type_info* tp = type_or_fail(comm, datatype, "MPI_Allreduce", &err);
  if (!tp) return err;
  const type_info t = *tp;
  const int m = sides_of(comm).remote_size;
  const bytes mine = packed(sendbuf, count, t);
  for (int i = 0; i < m; ++i) coll_send(comm, i, it_allreduce, mine);
  // The remote group's values combined in its rank order.
  bytes acc = coll_recv(comm, 0, it_allreduce);
  for (int i = 1; i < m; ++i) {
    bytes next = coll_recv(comm, i, it_allreduce);
    if (int e = apply_op(me(), op, datatype, t, acc.data(), next.mutable_data(), count))
      return fail(comm, e, "MPI_Allreduce", "the operation does not apply to this datatype");
    acc = std::move(next);
  }
  unpack(t, acc.data(), static_cast<std::int64_t>(acc.size()), recvbuf, count);
  return MPI_SUCCESS;
}

}  // namespace roam::ampi
