#pragma once
// What the MPI functions share: the PMPI aliases, errors, lookups, and the
// byte-level sends and receives the collectives are built on.
#include <cstdint>
#include <string>
#include <vector>

#include <mpi.h>

#include "rank.hpp"

/// MPI_<name> is a weak alias of PMPI_<name> (link names AMPI_<name> and
/// PAMPI_<name>: mpi.h maps them; the profiling interface: a
/// tool that defines MPI_<name> wraps it and calls PMPI_<name>).
#define ROAM_AMPI_PMPI(name) \
  extern "C" decltype(PMPI_##name) MPI_##name __attribute__((weak, alias("PAMPI_" #name)));

namespace roam::ampi {

/// Reports an MPI error raised in `function` on `comm`: under
/// MPI_ERRORS_RETURN returns `code`; under MPI_ERRORS_ARE_FATAL prints the
/// error (rank, PE, function, what) and ends the program. Use as
/// `return fail(comm, MPI_ERR_RANK, "MPI_Send", "...")`.
int fail(int comm, int code, const char* function, const std::string& what);

/// The communicator `handle` of the calling rank, or null.
communicator* find_comm(rank& r, int handle) noexcept;
/// The datatype `handle` (predefined or the rank's), or null.
const type_info* find_type(rank& r, int handle) noexcept;

/// Checks the arguments every send or receive has; returns MPI_SUCCESS or
/// the error already reported.
int check_buffer_args(rank& r, int comm, int count, int datatype, const char* function);

/// Waits for a request to complete (the thread blocks; the rank may move).
void wait_for(int handle);
/// Fills a status from a completed request.
void fill_status(const request_record& q, MPI_Status* status) noexcept;

// ---- byte-level point-to-point on a communicator's collective context ----
/// Each collective call takes the next number of its communicator (the
/// members call collectives in the same order, so they agree without a
/// message) and tags its messages with it: collectives in progress at once
/// (non-blocking ones beside blocking ones) never take each other's
/// messages. A collective entered inside another (MPI_Allgather inside
/// MPI_Comm_split, MPI_Gatherv inside MPI_Allgatherv) keeps the outer one's
/// number; the number is the calling thread's (a non-blocking collective
/// runs on a thread of its own).
class coll_scope {
 public:
  explicit coll_scope(int comm);
  ~coll_scope();
  coll_scope(const coll_scope&) = delete;
  coll_scope& operator=(const coll_scope&) = delete;
};
/// Runs the calling thread's collectives under tag base `base` (a
/// non-blocking collective's thread, with the number taken when it was
/// started).
void adopt_coll_base(std::uint32_t base);
/// The next collective number of `comm`, as a tag base.
std::uint32_t next_coll_base(int comm);
/// Sends `data` to rank `dest` of communicator `comm` (`kind` < 32: which
/// message of the collective).
void coll_send(int comm, int dest, int kind, buffer<std::byte> data);
/// Receives the next message of rank `source` of this `kind` (blocking).
buffer<std::byte> coll_recv(int comm, int source, int kind);

/// The envelope of the next message from `r` to rank `dest` of `c`.
envelope make_envelope(rank& r, const communicator& c, std::uint64_t context, int dest, int tag,
                       int synchronous_request);
/// Starts a send of packed bytes on `context` (the request completes at once
/// unless `synchronous_request` is set, when the receiver acknowledges).
void send_packed(rank& r, const communicator& c, std::uint64_t context, int dest, int tag, buffer<std::byte> data,
                 int synchronous_request);
/// Posts a receive request (matching queued messages first).
void post_receive(rank& r, int handle);
/// Collectives on an intercommunicator (intercomm_coll.cpp), called by the
/// MPI functions with the collective's number taken.
int inter_barrier(int comm);
int inter_bcast(void* buffer, int count, int datatype, int root, int comm);
int inter_gatherv(const void* sendbuf, int sendcount, int sendtype, void* recvbuf, const int recvcounts[],
                  const int displs[], int recvtype, int root, int comm);
int inter_scatterv(const void* sendbuf, const int sendcounts[], const int displs[], int sendtype, void* recvbuf,
                   int recvcount, int recvtype, int root, int comm);
int inter_allgatherv(const void* sendbuf, int sendcount, int sendtype, void* recvbuf, const int recvcounts[],
                     const int displs[], int recvtype, int comm);
int inter_alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const int sendtypes[],
                    void* recvbuf, const int recvcounts[], const int rdispls[], const int recvtypes[], int comm);
int inter_reduce(const void* sendbuf, void* recvbuf, int count, int datatype, int op, int root, int comm);
int inter_allreduce(const void* sendbuf, void* recvbuf, int count, int datatype, int op, int comm);
int inter_reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], int datatype, int op, int comm);
/// This process's identity in lent messages (p2p.cpp): the addresses a
/// sender lends are valid only where the token is the same.
std::uint64_t process_token();
/// The process (node) a PE belongs to: every process runs the same number
/// of consecutive PEs (runtime.cpp).
std::uint32_t process_of_pe(std::uint32_t pe);
/// Cross-process reads on one host (loans.cpp): this process's
/// memory domain (boot and PID namespace; 0 when unknown), and a read of
/// `bytes` at `address` in process `pid` of `domain` into `into`; false when
/// it cannot be done (another domain, refused, the process gone).
std::uint64_t memory_domain();
bool cross_process_reads_refused();
/// Whether a large send may lend to another process of this host: false
/// once one of them said it cannot read this process (p2p.cpp).
bool may_lend_across_processes();
bool read_process_memory(std::int64_t pid, std::uint64_t domain, std::uint64_t address, void* into, std::int64_t bytes);
/// How a lent message reached its receive, counted per process and printed
/// at the end under +ampi_loans (loans.cpp).
enum class loan_served { in_process, read_across, pulled };
void count_loan(loan_served how);
void report_loans();

/// Attributes with user keys (topology.cpp): a delete function's call, and
/// the copies MPI_Comm_dup makes.
int delete_attribute(int comm, int keyval, std::uint64_t value);
int copy_attributes(int comm, int newcomm);
/// A window attribute's delete function's call (compat.cpp).
int delete_window_attribute(int win, int keyval, std::uint64_t value);

/// The non-blocking collective the calling thread runs (0: the rank's own
/// thread; nonblocking.cpp).
int running_job();
/// Drops a finished non-blocking collective (its request was completed).
void forget_job(int job);
/// Starts a non-blocking collective whose blocking algorithm is `body`
/// (run on a thread of its own with the collective number taken now; the
/// request completes with its result): for collectives outside
/// nonblocking.cpp (neighbors.cpp).
int start_collective(coll_job job, int (*body)(const coll_job&), MPI_Request* request, const char* function);

/// This rank's world rank.
int world_rank();
/// MPI_ERR_RMA_SHARED (reported) when the calling rank is a member of a
/// shared window (rma_windows.cpp) and would leave its process for PE `pe`
/// (-1: wherever the balancer puts it); MPI_SUCCESS otherwise.
int refuse_leaving_shared_windows(int pe, const char* function);

/// A new communicator's context: the same in every member, different from
/// every other communicator's (derived from the parent's and its count of
/// children), always even.
std::uint64_t child_context(communicator& parent, std::int64_t salt);
/// The hash contexts are made of (splitmix64), and a hash made a context
/// (even, never world's or self's): for contexts agreed some other way
/// (intercommunicators, MPI_Comm_create_group).
std::uint64_t context_mix(std::uint64_t z);
std::uint64_t as_context(std::uint64_t z);
/// The world ranks of a communicator's (local) group, by rank.
std::vector<int> members_of(const communicator& c);
/// Adds a communicator record to the calling rank: its handle.
int add_comm(communicator c);

/// Generalized requests (grequest.cpp): what the request functions of
/// p2p.cpp do with a request of kind `generalized` (its query, free and
/// cancel callbacks run there).
int finish_generalized(MPI_Request* handle, MPI_Status* status);  // a wait or test found it complete
int generalized_status(MPI_Request request, int* flag, MPI_Status* status);  // MPI_Request_get_status
int free_generalized(MPI_Request* request);                                    // MPI_Request_free
int cancel_generalized(MPI_Request request);                                   // MPI_Cancel

/// User error handlers (errhandlers.cpp): whether `handler` is one of the
/// rank's, and its call for an error `code` raised on `comm` (a window's
/// handler gets the window whose communicator `comm` is); returns `code`.
bool user_errhandler(int handler);
int call_errhandler(int comm, int handler, int code);
/// The class of an added error code, its string, and the last added code
/// or class (MPI_LASTUSEDCODE): false / MPI_ERR_LASTCODE when none.
bool added_error_class(int code, int* error_class);
bool added_error_string(int code, std::string* text);
int last_used_error_code();

/// Datatype attributes (type_attrs.cpp): the copies MPI_Type_dup makes
/// (on failure the new type is freed and set to MPI_DATATYPE_NULL), and the
/// delete callbacks MPI_Type_free runs.
int copy_type_attributes(int oldtype, int* newtype);
int delete_type_attributes(int type);

}  // namespace roam::ampi
