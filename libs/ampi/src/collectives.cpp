// Blocking collectives on a communicator's collective context (its own
// point-to-point space, so they never match the program's receives):
// binomial trees for broadcast and reduction, dissemination for the barrier,
// direct exchanges for gathers, scatters and all-to-alls. Operations on a
// communicator are ordered between any two ranks, so one tag per kind is
// enough.
#include <algorithm>
#include <cstring>
#include <vector>

#include "api.hpp"
#include "ops.hpp"

using namespace roam::ampi;

namespace {

enum coll_tag : int { t_barrier = 1, t_bcast, t_reduce, t_gather, t_scatter, t_alltoall, t_scan, t_exscan };

using bytes = roam::buffer<std::byte>;

// Checks the communicator, returns it or reports.
const communicator* comm_of(MPI_Comm comm, const char* function, int* err) {
  rank& r = me();
  const communicator* c = find_comm(r, comm);
  *err = c ? MPI_SUCCESS : fail(MPI_COMM_WORLD, MPI_ERR_COMM, function, "invalid communicator " + std::to_string(comm));
  return c;
}

int check_root(const communicator& c, MPI_Comm comm, int root, const char* function) {
  if (root < 0 || root >= c.size)
    return fail(comm, MPI_ERR_ROOT, function,
                "root " + std::to_string(root) + " is not a rank of a communicator of size " + std::to_string(c.size));
  return MPI_SUCCESS;
}

int check_type(MPI_Comm comm, int count, MPI_Datatype dt, const char* function) {
  return check_buffer_args(me(), comm, count, dt, function);
}

// Binomial broadcast of `data` (significant at root) to every rank.
void bcast_bytes(MPI_Comm comm, int root, bytes& data) {
  const communicator& c = me().comms.at(comm);
  const int n = c.size, rel = (c.my_rank - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if (rel & mask) {
      data = coll_recv(comm, (rel - mask + root) % n, t_bcast);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (rel + mask < n) coll_send(comm, (rel + mask + root) % n, t_bcast, data);
}

// Binomial reduction of packed `data` (count elements of t) to `root`, in
// rank order (so non-commutative operations are right): the result at root.
int reduce_bytes(MPI_Comm comm, int root, bytes& data, int count, MPI_Datatype dt, const type_info& t, MPI_Op op) {
  int n = 0, my = 0;
  {
    const communicator& c = me().comms.at(comm);
    n = c.size;
    my = c.my_rank;
  }
  const bool rotate = op_commutative(me(), op);
  const int base = rotate ? root : 0;
  const int rel = (my - base + n) % n;
  int err = MPI_SUCCESS;
  for (int mask = 1; mask < n; mask <<= 1) {
    if (rel & mask) {
      coll_send(comm, (rel - mask + base) % n, t_reduce, data);
      break;
    }
    if (rel + mask < n) {
      bytes higher = coll_recv(comm, (rel + mask + base) % n, t_reduce);
      // data holds the lower ranks' part: higher = data op higher
      // (mutable_data copies first if the sender still shares the bytes).
      if (int e = apply_op(me(), op, dt, t, data.data(), higher.mutable_data(), count)) err = e;
      data = std::move(higher);
    }
  }
  if (!rotate && root != 0) {  // in rank order to 0, then to the root
    if (my == 0) coll_send(comm, root, t_reduce, data);
    if (my == root) data = coll_recv(comm, 0, t_reduce);
  }
  return err;
}

// A datatype that stays valid while the thread blocks (the rank's table may
// be rebuilt elsewhere meanwhile): a predefined one is static, a derived one
// is copied.
class type_info_copy {
 public:
  explicit type_info_copy(int datatype) : t_(find_type(me(), datatype)) {
    if (!t_->predefined) {
      copy_ = *t_;
      t_ = &copy_;
    }
  }
  type_info_copy(const type_info_copy&) = delete;
  type_info_copy& operator=(const type_info_copy&) = delete;
  operator const type_info&() const noexcept { return *t_; }
  const type_info* operator->() const noexcept { return t_; }

 private:
  const type_info* t_;
  type_info copy_;
};

const void* send_source(const void* sendbuf, const void* recvbuf) { return sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf; }

}  // namespace

extern "C" int PMPI_Barrier(MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const coll_scope numbered(comm);  // this collective's tags
  int err = 0;
  const communicator* c = comm_of(comm, "MPI_Barrier", &err);
  if (!c) return err;
  if (c->inter) return inter_barrier(comm);
  if (on_world_path(*c)) {
    world_barrier();
    return MPI_SUCCESS;
  }
  const int n = c->size, my = c->my_rank;
  for (int k = 1; k < n; k <<= 1) {
    coll_send(comm, (my + k) % n, t_barrier, bytes());
    coll_recv(comm, (my - k + n) % n, t_barrier);
  }
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Barrier)

extern "C" int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const coll_scope numbered(comm);  // this collective's tags
  int err = 0;
  const communicator* c = comm_of(comm, "MPI_Bcast", &err);
  if (!c) return err;
  if (c->inter) return inter_bcast(buffer, count, datatype, root, comm);
  if (int e = check_root(*c, comm, root, "MPI_Bcast")) return e;
  if (int e = check_type(comm, count, datatype, "MPI_Bcast")) return e;
  const bool is_root = c->my_rank == root;
  bytes data;
  if (is_root) data = packed(buffer, count, *find_type(me(), datatype));
  bcast_bytes(comm, root, data);
  if (!is_root) unpack(*find_type(me(), datatype), data.data(), static_cast<std::int64_t>(data.size()), buffer, count);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Bcast)

extern "C" int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                           MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const coll_scope numbered(comm);  // this collective's tags
  int err = 0;
  const communicator* c = comm_of(comm, "MPI_Reduce", &err);
  if (!c) return err;
  if (c->inter) return inter_reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
  if (int e = check_root(*c, comm, root, "MPI_Reduce")) return e;
  if (int e = check_type(comm, count, datatype, "MPI_Reduce")) return e;
  if (!op_known(me(), op)) return fail(comm, MPI_ERR_OP, "MPI_Reduce", "invalid operation " + std::to_string(op));
  const bool is_root = c->my_rank == root;
  const type_info_copy t(datatype);
  if (on_world_path(*c) && world_reducible(op, t)) {
    if (int e = world_reduce(send_source(sendbuf, recvbuf), recvbuf, count, op, t, c->world_of(root)))
      return fail(comm, e, "MPI_Reduce", "the operation does not apply to this datatype");
    return MPI_SUCCESS;
  }
  bytes data = packed(send_source(sendbuf, recvbuf), count, t);
  if (int e = predefined_op_applies(op, t, data.data(), count))
    return fail(comm, e, "MPI_Reduce", "the operation does not apply to this datatype");
  if (int e = reduce_bytes(comm, root, data, count, datatype, t, op))
    return fail(comm, e, "MPI_Reduce", "the operation does not apply to this datatype");
  if (is_root) unpack(t, data.data(), static_cast<std::int64_t>(data.size()), recvbuf, count);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Reduce)

extern "C" int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  int err = 0;
  const communicator* c = comm_of(comm, "MPI_Allreduce", &err);
  if (!c) return err;
  if (int e = check_type(comm, count, datatype, "MPI_Allreduce")) return e;
  if (!op_known(me(), op)) return fail(comm, MPI_ERR_OP, "MPI_Allreduce", "invalid operation " + std::to_string(op));
  const type_info_copy t(datatype);
  if (on_world_path(*c) && world_reducible(op, t)) {  // every rank takes it: no collective number
    if (int e = world_allreduce(send_source(sendbuf, recvbuf), recvbuf, count, op, t))
      return fail(comm, e, "MPI_Allreduce", "the operation does not apply to this datatype");
    return MPI_SUCCESS;
  }
  bytes data = packed(send_source(sendbuf, recvbuf), count, t);
  if (int e = predefined_op_applies(op, t, data.data(), count))
    return fail(comm, e, "MPI_Allreduce", "the operation does not apply to this datatype");
  const coll_scope numbered(comm);  // this collective's tags
  if (c->inter) return inter_allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  if (int e = reduce_bytes(comm, 0, data, count, datatype, t, op))
    return fail(comm, e, "MPI_Allreduce", "the operation does not apply to this datatype");
  bcast_bytes(comm, 0, data);
  unpack(t, data.data(), static_cast<std::int64_t>(data.size()), recvbuf, count);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Allreduce)

extern "C" int PMPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype, MPI_Op op) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  const type_info* tp = find_type(r, datatype);
  if (tp == nullptr) return fail(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Reduce_local", "invalid datatype");
  const type_info t = *tp;
  bytes a = packed(inbuf, count, t), b = packed(inoutbuf, count, t);
  if (int e = apply_op(r, op, datatype, t, a.data(), b.mutable_data(), count))
    return fail(MPI_COMM_WORLD, e, "MPI_Reduce_local", "the operation does not apply to this datatype");
  unpack(t, b.data(), static_cast<std::int64_t>(b.size()), inoutbuf, count);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Reduce_local)

extern "C" int PMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const coll_scope numbered(comm);  // this collective's tags
  int err = 0;
  const communicator* c = comm_of(comm, "MPI_Gatherv", &err);
  if (!c) return err;
  if (c->inter) return inter_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  if (int e = check_root(*c, comm, root, "MPI_Gatherv")) return e;
  const int n = c->size, my = c->my_rank;
  if (my != root) {
    if (int e = check_type(comm, sendcount, sendtype, "MPI_Gatherv")) return e;
    coll_send(comm, root, t_gather, packed(sendbuf, sendcount, *find_type(me(), sendtype)));
    return MPI_SUCCESS;
  }
  if (int e = check_type(comm, 0, recvtype, "MPI_Gatherv")) return e;
  const type_info rt = *find_type(me(), recvtype);
  auto* out = static_cast<std::byte*>(recvbuf);
  if (sendbuf != MPI_IN_PLACE) {
    if (int e = check_type(comm, sendcount, sendtype, "MPI_Gatherv")) return e;
    bytes mine = packed(sendbuf, sendcount, *find_type(me(), sendtype));
    unpack(rt, mine.data(), static_cast<std::int64_t>(mine.size()), out + displs[my] * rt.extent(), recvcounts[my]);
  }
  for (int i = 0; i < n; ++i) {
    if (i == my) continue;
    bytes b = coll_recv(comm, i, t_gather);
    unpack(rt, b.data(), static_cast<std::int64_t>(b.size()), out + displs[i] * rt.extent(), recvcounts[i]);
  }
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Gatherv)

extern "C" int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const coll_scope numbered(comm);  // this collective's tags
  int err = 0;
  const communicator* c = comm_of(comm, "MPI_Gather", &err);
  if (!c) return err;
  std::vector<int> counts(static_cast<std::size_t>(c->peer_size()), recvcount), displs(counts.size());
  for (std::size_t i = 0; i < displs.size(); ++i) displs[i] = static_cast<int>(i) * recvcount;
  return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, counts.data(), displs.data(), recvtype, root, comm);
}
ROAM_AMPI_PMPI(Gather)

extern "C" int PMPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const coll_scope numbered(comm);  // this collective's tags
  int err = 0;
  const communicator* c = comm_of(comm, "MPI_Scatterv", &err);
  if (!c) return err;
  if (c->inter) return inter_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
  if (int e = check_root(*c, comm, root, "MPI_Scatterv")) return e;
  const int n = c->size, my = c->my_rank;
  if (my != root) {
    if (int e = check_type(comm, recvcount, recvtype, "MPI_Scatterv")) return e;
    bytes b = coll_recv(comm, root, t_scatter);
    unpack(*find_type(me(), recvtype), b.data(), static_cast<std::int64_t>(b.size()), recvbuf, recvcount);
    return MPI_SUCCESS;
  }
  if (int e = check_type(comm, 0, sendtype, "MPI_Scatterv")) return e;
  const type_info st = *find_type(me(), sendtype);
  const auto* in = static_cast<const std::byte*>(sendbuf);
  for (int i = 0; i < n; ++i) {
    if (i == my) continue;
    coll_send(comm, i, t_scatter, packed(in + displs[i] * st.extent(), sendcounts[i], st));
  }
  if (recvbuf != MPI_IN_PLACE) {
    if (int e = check_type(comm, recvcount, recvtype, "MPI_Scatterv")) return e;
    bytes mine = packed(in + displs[my] * st.extent(), sendcounts[my], st);
    unpack(*find_type(me(), recvtype), mine.data(), static_cast<std::int64_t>(mine.size()), recvbuf, recvcount);
  }
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Scatterv)

extern "C" int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const coll_scope numbered(comm);  // this collective's tags
  int err = 0;
  const communicator* c = comm_of(comm, "MPI_Scatter", &err);
  if (!c) return err;
  std::vector<int> counts(static_cast<std::size_t>(c->peer_size()), sendcount), displs(counts.size());
  for (std::size_t i = 0; i < displs.size(); ++i) displs[i] = static_cast<int>(i) * sendcount;
  return PMPI_Scatterv(sendbuf, counts.data(), displs.data(), sendtype, recvbuf, recvcount, recvtype, root, comm);
}
ROAM_AMPI_PMPI(Scatter)

extern "C" int PMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                               const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const coll_scope numbered(comm);  // this collective's tags
  int err = 0;
  const communicator* c = comm_of(comm, "MPI_Allgatherv", &err);
  if (!c) return err;
  if (c->inter) return inter_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  const int n = c->size, my = c->my_rank;
  if (int e = check_type(comm, 0, recvtype, "MPI_Allgatherv")) return e;
  const type_info rt = *find_type(me(), recvtype);
  // In place, rank 0 gathers from recvbuf as it stands; others send their block.
  const void* mine = sendbuf;
  int mine_count = sendcount;
  MPI_Datatype mine_type = sendtype;
  if (sendbuf == MPI_IN_PLACE && my != 0) {
    mine = static_cast<const std::byte*>(recvbuf) + displs[my] * rt.extent();
    mine_count = recvcounts[my];
    mine_type = recvtype;
  }
  if (int e = PMPI_Gatherv(mine, mine_count, mine_type, recvbuf, recvcounts, displs, recvtype, 0, comm)) return e;
  // Then rank 0 broadcasts every block, packed back to back.
  std::int64_t total = 0;
  for (int i = 0; i < n; ++i) total += recvcounts[i];
  bytes all;
  auto* out = static_cast<std::byte*>(recvbuf);
  if (my == 0) {
    all = bytes::uninitialized(static_cast<std::size_t>(total * rt.size));
    std::byte* w = all.mutable_data();
    for (int i = 0; i < n; ++i) {
      pack(rt, out + displs[i] * rt.extent(), recvcounts[i], w);
      w += recvcounts[i] * rt.size;
    }
  }
  bcast_bytes(comm, 0, all);
  if (my != 0) {
    const std::byte* rd = all.data();
    for (int i = 0; i < n; ++i) {
      unpack(rt, rd, recvcounts[i] * rt.size, out + displs[i] * rt.extent(), recvcounts[i]);
      rd += recvcounts[i] * rt.size;
    }
  }
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Allgatherv)

extern "C" int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                              MPI_Datatype recvtype, MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const coll_scope numbered(comm);  // this collective's tags
  int err = 0;
  const communicator* c = comm_of(comm, "MPI_Allgather", &err);
  if (!c) return err;
  std::vector<int> counts(static_cast<std::size_t>(c->peer_size()), recvcount), displs(counts.size());
  for (std::size_t i = 0; i < displs.size(); ++i) displs[i] = static_cast<int>(i) * recvcount;
  return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, counts.data(), displs.data(), recvtype, comm);
}
ROAM_AMPI_PMPI(Allgather)

extern "C" int PMPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                              const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const coll_scope numbered(comm);  // this collective's tags
  int err = 0;
  const communicator* c = comm_of(comm, "MPI_Alltoallw", &err);
  if (!c) return err;
  if (c->inter) return inter_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
  const int n = c->size, my = c->my_rank;
  auto* out = static_cast<std::byte*>(recvbuf);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const auto* in = static_cast<const std::byte*>(in_place ? recvbuf : sendbuf);
  const int* scounts = in_place ? recvcounts : sendcounts;
  const int* sd = in_place ? rdispls : sdispls;
  const MPI_Datatype* stypes = in_place ? recvtypes : sendtypes;
  // Everything leaves (packed) before anything is written, so in place works.
  bytes mine;
  for (int k = 1; k <= n; ++k) {
    const int i = (my + k) % n;  // start with the next rank: spreads the load
    const type_info* st = find_type(me(), stypes[i]);
    if (st == nullptr) return fail(comm, MPI_ERR_TYPE, "MPI_Alltoallw", "invalid send datatype");
    bytes b = packed(in + sd[i], scounts[i], *st);
    if (i == my) mine = std::move(b);
    else coll_send(comm, i, t_alltoall, std::move(b));
  }
  for (int k = 0; k < n; ++k) {
    const int i = (my - k + n) % n;
    bytes b = i == my ? mine : coll_recv(comm, i, t_alltoall);
    const type_info* rt = find_type(me(), recvtypes[i]);
    if (rt == nullptr) return fail(comm, MPI_ERR_TYPE, "MPI_Alltoallw", "invalid receive datatype");
    unpack(*rt, b.data(), static_cast<std::int64_t>(b.size()), out + rdispls[i], recvcounts[i]);
  }
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Alltoallw)

extern "C" int PMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                              void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                              MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const coll_scope numbered(comm);  // this collective's tags
  int err = 0;
  const communicator* c = comm_of(comm, "MPI_Alltoallv", &err);
  if (!c) return err;
  if (int e = check_type(comm, 0, recvtype, "MPI_Alltoallv")) return e;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (!in_place)
    if (int e = check_type(comm, 0, sendtype, "MPI_Alltoallv")) return e;
  const auto n = static_cast<std::size_t>(c->peer_size());
  const std::int64_t sext = in_place ? 0 : find_type(me(), sendtype)->extent();
  const std::int64_t rext = find_type(me(), recvtype)->extent();
  std::vector<int> sd(n), rd(n);
  std::vector<MPI_Datatype> st(n, sendtype), rt(n, recvtype);
  for (std::size_t i = 0; i < n; ++i) {
    sd[i] = in_place ? 0 : static_cast<int>(sdispls[i] * sext);
    rd[i] = static_cast<int>(rdispls[i] * rext);
  }
  return PMPI_Alltoallw(sendbuf, sendcounts, sd.data(), st.data(), recvbuf, recvcounts, rd.data(), rt.data(), comm);
}
ROAM_AMPI_PMPI(Alltoallv)

extern "C" int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                             MPI_Datatype recvtype, MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const coll_scope numbered(comm);  // this collective's tags
  int err = 0;
  const communicator* c = comm_of(comm, "MPI_Alltoall", &err);
  if (!c) return err;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const auto n = static_cast<std::size_t>(c->peer_size());
  std::vector<int> sc(n, in_place ? recvcount : sendcount), rc(n, recvcount), sd(n), rd(n);
  for (std::size_t i = 0; i < n; ++i) sd[i] = rd[i] = static_cast<int>(i) * recvcount;
  if (!in_place)
    for (std::size_t i = 0; i < n; ++i) sd[i] = static_cast<int>(i) * sendcount;
  return PMPI_Alltoallv(sendbuf, sc.data(), sd.data(), sendtype, recvbuf, rc.data(), rd.data(), recvtype, comm);
}
ROAM_AMPI_PMPI(Alltoall)

extern "C" int PMPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                                   MPI_Op op, MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const coll_scope numbered(comm);  // this collective's tags
  int err = 0;
  const communicator* c = comm_of(comm, "MPI_Reduce_scatter", &err);
  if (!c) return err;
  if (!op_known(me(), op)) return fail(comm, MPI_ERR_OP, "MPI_Reduce_scatter", "invalid operation");
  if (c->inter) return inter_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);  // intercomm_coll.cpp
  if (int e = check_type(comm, 0, datatype, "MPI_Reduce_scatter")) return e;
  const int n = c->size, my = c->my_rank;
  const type_info t = *find_type(me(), datatype);
  std::vector<int> displs(static_cast<std::size_t>(n));
  int total = 0;
  for (int i = 0; i < n; ++i) displs[static_cast<std::size_t>(i)] = total, total += recvcounts[i];
  // In place, the whole input is in recvbuf.
  bytes data = packed(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, total, t);
  if (int e = reduce_bytes(comm, 0, data, total, datatype, t, op))
    return fail(comm, e, "MPI_Reduce_scatter", "the operation does not apply to this datatype");
  if (my == 0) {
    for (int i = 1; i < n; ++i)
      coll_send(comm, i, t_scatter,
                bytes(std::span<const std::byte>(data.data() + displs[static_cast<std::size_t>(i)] * t.size,
                                                 static_cast<std::size_t>(recvcounts[i] * t.size))));
    unpack(t, data.data(), recvcounts[0] * t.size, recvbuf, recvcounts[0]);
  } else {
    bytes b = coll_recv(comm, 0, t_scatter);
    unpack(t, b.data(), static_cast<std::int64_t>(b.size()), recvbuf, recvcounts[my]);
  }
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Reduce_scatter)

extern "C" int PMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                                         MPI_Op op, MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const coll_scope numbered(comm);  // this collective's tags
  int err = 0;
  const communicator* c = comm_of(comm, "MPI_Reduce_scatter_block", &err);
  if (!c) return err;
  // On an intercommunicator, one count per rank of the local group.
  const int local_size = c->inter ? me().comms.at(c->local).size : c->size;
  std::vector<int> counts(static_cast<std::size_t>(local_size), recvcount);
  return PMPI_Reduce_scatter(sendbuf, recvbuf, counts.data(), datatype, op, comm);
}
ROAM_AMPI_PMPI(Reduce_scatter_block)

namespace {
// Scan (inclusive) and exscan: a chain in rank order.
int scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
         bool inclusive, const char* function) {
  int err = 0;
  const communicator* c = comm_of(comm, function, &err);
  if (!c) return err;
  if (c->inter) return fail(comm, MPI_ERR_COMM, function, "scans are not defined on an intercommunicator");
  if (int e = check_type(comm, count, datatype, function)) return e;
  if (!op_known(me(), op)) return fail(comm, MPI_ERR_OP, function, "invalid operation");
  const int n = c->size, my = c->my_rank;
  const type_info t = *find_type(me(), datatype);
  bytes mine = packed(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, t);
  bytes upto = mine;  // the result through my rank
  if (my > 0) {
    bytes before = coll_recv(comm, my - 1, inclusive ? t_scan : t_exscan);  // ranks 0..my-1
    upto = mine;
    if (int e = apply_op(me(), op, datatype, t, before.data(), upto.mutable_data(), count))
      return fail(comm, e, function, "the operation does not apply to this datatype");
    if (inclusive) unpack(t, upto.data(), static_cast<std::int64_t>(upto.size()), recvbuf, count);
    else unpack(t, before.data(), static_cast<std::int64_t>(before.size()), recvbuf, count);
  } else if (inclusive) {
    unpack(t, mine.data(), static_cast<std::int64_t>(mine.size()), recvbuf, count);
  }
  if (my + 1 < n) coll_send(comm, my + 1, inclusive ? t_scan : t_exscan, upto);
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const coll_scope numbered(comm);  // this collective's tags
  return scan(sendbuf, recvbuf, count, datatype, op, comm, true, "MPI_Scan");
}
ROAM_AMPI_PMPI(Scan)

extern "C" int PMPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                           MPI_Comm comm) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const coll_scope numbered(comm);  // this collective's tags
  return scan(sendbuf, recvbuf, count, datatype, op, comm, false, "MPI_Exscan");
}
ROAM_AMPI_PMPI(Exscan)

extern "C" int PMPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  const int h = r.next_op++;
  r.ops[h] = user_op{reinterpret_cast<std::uint64_t>(user_fn), commute != 0};
  *op = h;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Op_create)

extern "C" int PMPI_Op_free(MPI_Op* op) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  if (r.ops.erase(*op) == 0) return fail(MPI_COMM_WORLD, MPI_ERR_OP, "MPI_Op_free", "not a user-defined operation");
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Op_free)

extern "C" int PMPI_Op_commutative(MPI_Op op, int* commute) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  rank& r = me();
  if (!op_known(r, op)) return fail(MPI_COMM_WORLD, MPI_ERR_OP, "MPI_Op_commutative", "invalid operation");
  *commute = op_commutative(r, op);
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Op_commutative)
