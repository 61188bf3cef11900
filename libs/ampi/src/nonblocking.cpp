// Non-blocking collectives. Each runs the blocking algorithm on a migratable
// thread of its own, held by the rank's element (so it moves with the rank),
// with the collective number taken when the program started it: it
// progresses whenever the PE runs it (a message it waits for arrives), while
// the rank's own thread goes on, and never takes another collective's
// messages. Its request completes when the thread ends.
#include "api.hpp"

using namespace roam::ampi;

namespace {

enum job_kind : int {
  j_barrier = 1, j_bcast, j_reduce, j_allreduce, j_reduce_scatter_block, j_reduce_scatter, j_scan, j_exscan,
  j_gather, j_gatherv, j_scatter, j_scatterv, j_allgather, j_allgatherv, j_alltoall, j_alltoallv, j_alltoallw
};

roam::thread_private<int> g_job;  // which job the calling thread runs (0: the rank's own thread)

template <class T>
T* as(std::uint64_t a) {
  return reinterpret_cast<T*>(a);
}

int run(const coll_job& j) {
  switch (j.kind) {
    case j_barrier: return PMPI_Barrier(j.comm);
    case j_bcast: return PMPI_Bcast(as<void>(j.recvbuf), j.recvcount, j.recvtype, j.root, j.comm);
    case j_reduce:
      return PMPI_Reduce(as<const void>(j.sendbuf), as<void>(j.recvbuf), j.recvcount, j.recvtype, j.op, j.root, j.comm);
    case j_allreduce:
      return PMPI_Allreduce(as<const void>(j.sendbuf), as<void>(j.recvbuf), j.recvcount, j.recvtype, j.op, j.comm);
    case j_reduce_scatter_block:
      return PMPI_Reduce_scatter_block(as<const void>(j.sendbuf), as<void>(j.recvbuf), j.recvcount, j.recvtype, j.op,
                                       j.comm);
    case j_reduce_scatter:
      return PMPI_Reduce_scatter(as<const void>(j.sendbuf), as<void>(j.recvbuf), as<const int>(j.recvcounts),
                                 j.recvtype, j.op, j.comm);
    case j_scan: return PMPI_Scan(as<const void>(j.sendbuf), as<void>(j.recvbuf), j.recvcount, j.recvtype, j.op, j.comm);
    case j_exscan:
      return PMPI_Exscan(as<const void>(j.sendbuf), as<void>(j.recvbuf), j.recvcount, j.recvtype, j.op, j.comm);
    case j_gather:
      return PMPI_Gather(as<const void>(j.sendbuf), j.sendcount, j.sendtype, as<void>(j.recvbuf), j.recvcount,
                         j.recvtype, j.root, j.comm);
    case j_gatherv:
      return PMPI_Gatherv(as<const void>(j.sendbuf), j.sendcount, j.sendtype, as<void>(j.recvbuf),
                          as<const int>(j.recvcounts), as<const int>(j.rdispls), j.recvtype, j.root, j.comm);
    case j_scatter:
      return PMPI_Scatter(as<const void>(j.sendbuf), j.sendcount, j.sendtype, as<void>(j.recvbuf), j.recvcount,
                          j.recvtype, j.root, j.comm);
    case j_scatterv:
      return PMPI_Scatterv(as<const void>(j.sendbuf), as<const int>(j.sendcounts), as<const int>(j.sdispls),
                           j.sendtype, as<void>(j.recvbuf), j.recvcount, j.recvtype, j.root, j.comm);
    case j_allgather:
      return PMPI_Allgather(as<const void>(j.sendbuf), j.sendcount, j.sendtype, as<void>(j.recvbuf), j.recvcount,
                            j.recvtype, j.comm);
    case j_allgatherv:
      return PMPI_Allgatherv(as<const void>(j.sendbuf), j.sendcount, j.sendtype, as<void>(j.recvbuf),
                             as<const int>(j.recvcounts), as<const int>(j.rdispls), j.recvtype, j.comm);
    case j_alltoall:
      return PMPI_Alltoall(as<const void>(j.sendbuf), j.sendcount, j.sendtype, as<void>(j.recvbuf), j.recvcount,
                           j.recvtype, j.comm);
    case j_alltoallv:
      return PMPI_Alltoallv(as<const void>(j.sendbuf), as<const int>(j.sendcounts), as<const int>(j.sdispls),
                            j.sendtype, as<void>(j.recvbuf), as<const int>(j.recvcounts), as<const int>(j.rdispls),
                            j.recvtype, j.comm);
    case j_alltoallw:
      return PMPI_Alltoallw(as<const void>(j.sendbuf), as<const int>(j.sendcounts), as<const int>(j.sdispls),
                            as<const MPI_Datatype>(j.sendtypes), as<void>(j.recvbuf), as<const int>(j.recvcounts),
                            as<const int>(j.rdispls), as<const MPI_Datatype>(j.recvtypes), j.comm);
    default: return MPI_ERR_INTERN;
  }
}

// The job's thread: the collective (`body`), then its request completes.
// `body` is code of the library: at the same address in every process, so
// the thread may move.
void job_thread(int id, int (*body)(const coll_job&)) {
  *g_job = id;
  coll_job job;
  {
    const roam::process_heap_scope runtime_heap;
    job = me().jobs.at(id);
  }
  adopt_coll_base(job.base);
  const int result = body(job);
  const roam::process_heap_scope runtime_heap;
  rank& r = me();
  coll_job& j = r.jobs.at(id);
  j.done = true;
  request_record& q = r.req(j.request);
  q.complete = true;
  q.status_error = result;
  if (q.freed) {  // MPI_Request_free'd: nobody will wait for it
    r.release_request(j.request);
    r.jobs.erase(id);
  }
  r.notify();
}

int start(coll_job job, MPI_Request* request, const char* function) {
  return start_collective(std::move(job), run, request, function);
}

std::uint64_t addr(const void* p) { return reinterpret_cast<std::uint64_t>(p); }

}  // namespace

namespace roam::ampi {
int running_job() { return *g_job; }
void forget_job(int job) {
  rank& r = me();
  r.jobs.erase(job);
  if (!r.freed_types.empty()) r.sweep_freed_types();
}
}  // namespace roam::ampi

extern "C" int PMPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  coll_job j;
  j.kind = j_barrier;
  j.comm = comm;
  return start(j, request, "MPI_Ibarrier");
}
ROAM_AMPI_PMPI(Ibarrier)

extern "C" int PMPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                           MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  coll_job j;
  j.kind = j_bcast;
  j.comm = comm;
  j.recvbuf = addr(buffer);
  j.recvcount = count;
  j.recvtype = datatype;
  j.root = root;
  return start(j, request, "MPI_Ibcast");
}
ROAM_AMPI_PMPI(Ibcast)

namespace {
int reduction(int kind, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
              MPI_Comm comm, const int* recvcounts, MPI_Request* request, const char* function) {
  coll_job j;
  j.kind = kind;
  j.comm = comm;
  j.sendbuf = addr(sendbuf);
  j.recvbuf = addr(recvbuf);
  j.recvcount = count;
  j.recvtype = datatype;
  j.op = op;
  j.root = root;
  j.recvcounts = addr(recvcounts);
  return start(j, request, function);
}

int exchange(int kind, const void* sendbuf, int sendcount, MPI_Datatype sendtype, const int* sendcounts,
             const int* sdispls, const MPI_Datatype* sendtypes, void* recvbuf, int recvcount, MPI_Datatype recvtype,
             const int* recvcounts, const int* rdispls, const MPI_Datatype* recvtypes, int root, MPI_Comm comm,
             MPI_Request* request, const char* function) {
  coll_job j;
  j.kind = kind;
  j.comm = comm;
  j.root = root;
  j.sendbuf = addr(sendbuf);
  j.sendcount = sendcount;
  j.sendtype = sendtype;
  j.sendcounts = addr(sendcounts);
  j.sdispls = addr(sdispls);
  j.sendtypes = addr(sendtypes);
  j.recvbuf = addr(recvbuf);
  j.recvcount = recvcount;
  j.recvtype = recvtype;
  j.recvcounts = addr(recvcounts);
  j.rdispls = addr(rdispls);
  j.recvtypes = addr(recvtypes);
  return start(j, request, function);
}
}  // namespace

extern "C" int PMPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                            MPI_Comm comm, MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return reduction(j_reduce, sendbuf, recvbuf, count, datatype, op, root, comm, nullptr, request, "MPI_Ireduce");
}
ROAM_AMPI_PMPI(Ireduce)

extern "C" int PMPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm, MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return reduction(j_allreduce, sendbuf, recvbuf, count, datatype, op, 0, comm, nullptr, request, "MPI_Iallreduce");
}
ROAM_AMPI_PMPI(Iallreduce)

extern "C" int PMPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                                          MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return reduction(j_reduce_scatter_block, sendbuf, recvbuf, recvcount, datatype, op, 0, comm, nullptr, request,
                   "MPI_Ireduce_scatter_block");
}
ROAM_AMPI_PMPI(Ireduce_scatter_block)

extern "C" int PMPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                                    MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return reduction(j_reduce_scatter, sendbuf, recvbuf, 0, datatype, op, 0, comm, recvcounts, request,
                   "MPI_Ireduce_scatter");
}
ROAM_AMPI_PMPI(Ireduce_scatter)

extern "C" int PMPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm, MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return reduction(j_scan, sendbuf, recvbuf, count, datatype, op, 0, comm, nullptr, request, "MPI_Iscan");
}
ROAM_AMPI_PMPI(Iscan)

extern "C" int PMPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm, MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return reduction(j_exscan, sendbuf, recvbuf, count, datatype, op, 0, comm, nullptr, request, "MPI_Iexscan");
}
ROAM_AMPI_PMPI(Iexscan)

extern "C" int PMPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return exchange(j_gather, sendbuf, sendcount, sendtype, nullptr, nullptr, nullptr, recvbuf, recvcount, recvtype,
                  nullptr, nullptr, nullptr, root, comm, request, "MPI_Igather");
}
ROAM_AMPI_PMPI(Igather)

extern "C" int PMPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                             MPI_Comm comm, MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return exchange(j_gatherv, sendbuf, sendcount, sendtype, nullptr, nullptr, nullptr, recvbuf, 0, recvtype,
                  recvcounts, displs, nullptr, root, comm, request, "MPI_Igatherv");
}
ROAM_AMPI_PMPI(Igatherv)

extern "C" int PMPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return exchange(j_scatter, sendbuf, sendcount, sendtype, nullptr, nullptr, nullptr, recvbuf, recvcount, recvtype,
                  nullptr, nullptr, nullptr, root, comm, request, "MPI_Iscatter");
}
ROAM_AMPI_PMPI(Iscatter)

extern "C" int PMPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                              void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                              MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return exchange(j_scatterv, sendbuf, 0, sendtype, sendcounts, displs, nullptr, recvbuf, recvcount, recvtype, nullptr,
                  nullptr, nullptr, root, comm, request, "MPI_Iscatterv");
}
ROAM_AMPI_PMPI(Iscatterv)

extern "C" int PMPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                               int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return exchange(j_allgather, sendbuf, sendcount, sendtype, nullptr, nullptr, nullptr, recvbuf, recvcount, recvtype,
                  nullptr, nullptr, nullptr, 0, comm, request, "MPI_Iallgather");
}
ROAM_AMPI_PMPI(Iallgather)

extern "C" int PMPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return exchange(j_allgatherv, sendbuf, sendcount, sendtype, nullptr, nullptr, nullptr, recvbuf, 0, recvtype,
                  recvcounts, displs, nullptr, 0, comm, request, "MPI_Iallgatherv");
}
ROAM_AMPI_PMPI(Iallgatherv)

extern "C" int PMPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return exchange(j_alltoall, sendbuf, sendcount, sendtype, nullptr, nullptr, nullptr, recvbuf, recvcount, recvtype,
                  nullptr, nullptr, nullptr, 0, comm, request, "MPI_Ialltoall");
}
ROAM_AMPI_PMPI(Ialltoall)

extern "C" int PMPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                               void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return exchange(j_alltoallv, sendbuf, 0, sendtype, sendcounts, sdispls, nullptr, recvbuf, 0, recvtype, recvcounts,
                  rdispls, nullptr, 0, comm, request, "MPI_Ialltoallv");
}
ROAM_AMPI_PMPI(Ialltoallv)

extern "C" int PMPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                               const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                               const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                               MPI_Request* request) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  return exchange(j_alltoallw, sendbuf, 0, 0, sendcounts, sdispls, sendtypes, recvbuf, 0, 0, recvcounts, rdispls,
                  recvtypes, 0, comm, request, "MPI_Ialltoallw");
}
ROAM_AMPI_PMPI(Ialltoallw)

// ---- starting a non-blocking collective ------------------------------------------
// Its request, its number, its thread running the blocking algorithm `body`
// (the neighbourhood collectives of neighbors.cpp start theirs here too).
namespace roam::ampi {
int start_collective(coll_job job, int (*body)(const coll_job&), MPI_Request* request, const char* function) {
  rank& r = me();
  if (find_comm(r, job.comm) == nullptr)
    return fail(MPI_COMM_WORLD, MPI_ERR_COMM, function, "invalid communicator " + std::to_string(job.comm));
  r.coll_threads.remove_if([](const coll_thread& h) { return h.thread.finished(); });  // finished jobs' threads go now
  const int id = r.next_job++;
  const int h = r.new_request();
  request_record& q = r.req(h);
  q.what = request_record::kind::collective;
  q.active = true;
  q.comm = job.comm;
  q.peer = id;
  job.request = h;
  job.base = next_coll_base(job.comm);
  r.jobs[id] = job;
  coll_thread& t = r.coll_threads.emplace_back();
  t.job = id;
  t.thread.start(&r, [id, body] { job_thread(id, body); }, roam::thread_options{.stack_bytes = 256u << 10});
  *request = h;
  return MPI_SUCCESS;
}
}  // namespace roam::ampi
