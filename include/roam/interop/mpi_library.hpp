#pragma once
/// \file
/// Library mode: roam inside an MPI program, on the processes of a
/// communicator the program chooses, called from MPI code as a library.
///
/// ```cpp
/// MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
/// MPI_Comm half;  // roam on the even ranks, plain MPI on the odd ones
/// MPI_Comm_split(MPI_COMM_WORLD, rank % 2 == 0 ? 0 : MPI_UNDEFINED, rank, &half);
/// if (half != MPI_COMM_NULL) {
///   roam::library_init(half, argc, argv);           // +ppn 2 etc. taken from argv
///   double r = roam::library_call([&]() -> roam::task<double> {
///     co_return co_await my_library_step();           // runs on PE 0, roam everywhere
///   });                                               // every rank of `half` gets r
///   MPI_Allreduce(...);                               // MPI between calls: any communicator
///   roam::library_exit();
/// }
/// MPI_Finalize();
/// ```
///
/// - library_init, library_call and library_exit are collective over the
///   communicator: every rank of it calls each, in the same order.
/// - The calling thread lends itself to roam only inside these calls: it is
///   the thread that makes roam's MPI calls then (MPI_THREAD_FUNNELED is
///   enough when it is the thread that initialised MPI). Between calls roam
///   makes no MPI call at all, and the program may use MPI as it likes, on
///   any communicator, including `comm` (roam works on duplicates of it).
/// - While a call runs, no other thread of the program may call MPI unless
///   MPI was initialised with MPI_THREAD_MULTIPLE.
/// - With +ppn 1 (the default) the calling thread is roam's PE inside the
///   calls and nothing of roam runs between them; with +ppn K > 1 the PEs
///   are threads that live from library_init to library_exit, run what is
///   still queued between calls and then sleep. Objects, arrays and groups
///   made in one call stay for the next either way.
/// - The call's function runs on PE 0 as roam::run's main would; it may
///   capture the caller's variables by reference (the caller waits), but
///   they are only this process's (rank 0 of `comm`): other processes reach
///   data through roam (a group's entry method reads its own process's).
/// - roam::exit inside library mode ends roam: the call throws, and only
///   library_exit may follow. Failure detection is off unless +fttimeout
///   asks for it: a rank's MPI phase looks like silence.
#ifdef ROAM_HAVE_MPI
#include <mpi.h>

#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <roam/msg/detail/entry.hpp>
#include <roam/msg/future.hpp>
#include <roam/msg/pup.hpp>
#include <roam/sched/detail/unique_function.hpp>
#include <roam/sched/task.hpp>

namespace roam {

/// What library_init, library_call and library_exit throw when they cannot
/// do what was asked (the message says why and names the MPI rank).
class library_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Starts roam on the processes of `comm` (intra-communicator, MPI already
/// initialised) and returns; `+` options are taken out of argv (argc is
/// updated). Collective over `comm`. Once per process.
void library_init(MPI_Comm comm, int& argc, char** argv);

/// Runs `fn()` on PE 0 (returning `T` or `roam::task<T>`) and returns its
/// result on every rank of the communicator once it finished (T is sent
/// with pup). Collective. Throws library_error if `fn` threw (its message)
/// or roam stopped during the call.
template <class F>
auto library_call(F fn);

/// Stops roam's PEs and ends its communication in order. Collective. The
/// program may go on with MPI (and must call MPI_Finalize itself).
void library_exit();

/// Between library_init and library_exit.
bool library_running() noexcept;

namespace detail {
/// Checks a call may start here (throws library_error otherwise); true on
/// the process that runs the function (node 0).
bool library_call_begin();
/// From the calling thread: runs `start` on PE 0 (this process is node 0).
void library_call_start(unique_function<void()> start);
/// On PE 0 when the function finished: ends the call in every process,
/// with the packed result or (failed) the message.
void library_call_finish(bool failed, std::vector<std::byte> packed);
/// Pumps until the call ended here; the packed result (throws library_error
/// for a failed or stopped call).
std::vector<std::byte> library_call_wait();

template <class F>
task<> run_library_call(F& fn) {
  using R = std::invoke_result_t<F&>;
  using T = call_result_t<R>;
  std::vector<std::byte> result;
  if constexpr (is_task_v<R>) {
    if constexpr (std::is_void_v<T>) co_await fn();
    else result = roam::pack(co_await fn());
  } else {
    if constexpr (std::is_void_v<T>) fn();
    else result = roam::pack(fn());
  }
  library_call_finish(false, std::move(result));
  co_return;
}
}  // namespace detail

template <class F>
auto library_call(F fn) {
  using R = std::invoke_result_t<F&>;
  using T = detail::call_result_t<R>;
  if (detail::library_call_begin()) {
    detail::library_call_start([&fn] {
      detail::spawn(detail::run_library_call(fn), [](std::exception_ptr e) {
        if (e) detail::library_call_finish(true, roam::pack(detail::exception_handle{e}));  // packs its text
      });
    });
  }
  std::vector<std::byte> packed = detail::library_call_wait();
  if constexpr (!std::is_void_v<T>) return roam::unpack<T>(packed);
}

}  // namespace roam

#endif  // ROAM_HAVE_MPI
