// roam::library_init / library_call / library_exit over MPI
// (include/roam/interop/mpi_library.hpp): the checks an MPI program's
// mistakes deserve, then the scheduler's library engine
// (include/roam/sched/detail/library_mode.hpp) on the program's communicator.
#ifdef ROAM_HAVE_MPI
#include <roam/interop/mpi_library.hpp>

#include <roam/machine/detail/mpi_base_comm.hpp>
#include <roam/msg/pe_call.hpp>
#include <roam/sched/detail/library_mode.hpp>
#include <roam/sched/detail/post.hpp>
#include <roam/sched/detail/pe_state.hpp>

namespace roam {

namespace {

std::string rank_prefix(const char* what) {
  int rank = -1, initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::string s = std::string("roam::") + what;
  if (rank >= 0) s += " (MPI rank " + std::to_string(rank) + " of MPI_COMM_WORLD)";
  return s + ": ";
}

[[noreturn]] void fail(const char* what, const std::string& why) { throw library_error(rank_prefix(what) + why); }

bool g_in_call = false;  // the calling thread is inside library_call

// Every process's first PE: the call is over (how: 0 done, 1 failed).
void library_call_ended(std::uint8_t how, std::vector<std::byte> bytes) {
  detail::library_call_outcome out;
  out.how = how == 0 ? detail::library_call_outcome::kind::done : detail::library_call_outcome::kind::failed;
  out.bytes = std::move(bytes);
  detail::library_end_call(std::move(out));
}

}  // namespace

void library_init(MPI_Comm comm, int& argc, char** argv) {
  const char* what = "library_init";
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized)
    fail(what, "MPI is not initialised: call MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) first");
  if (finalized) fail(what, "MPI was already finalized");
  if (detail::library_running()) fail(what, "called twice: roam already runs in library mode in this process");
  if (detail::library_started_once())
    fail(what, "roam ran in library mode in this process already and ended (library_exit); it starts only once");
  if (comm == MPI_COMM_NULL)
    fail(what, "this process is not in the communicator (MPI_COMM_NULL): only the ranks of the communicator call "
               "library_init, the others go on with MPI alone");
  int inter = 0;
  if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) fail(what, "the communicator is not a valid communicator");
  if (inter) fail(what, "the communicator is an inter-communicator; roam needs an intra-communicator");
  int provided = MPI_THREAD_SINGLE, is_main = 0;
  MPI_Query_thread(&provided);
  MPI_Is_thread_main(&is_main);
  if (provided < MPI_THREAD_FUNNELED)
    fail(what, "MPI was initialised with MPI_THREAD_SINGLE; roam's PEs are threads, so initialise MPI with "
               "MPI_Init_thread(..., MPI_THREAD_FUNNELED, ...) (or higher)");
  if (!is_main && provided < MPI_THREAD_SERIALIZED)
    fail(what, "called from a thread other than the one that initialised MPI with MPI_THREAD_FUNNELED; call it "
               "from that thread or initialise MPI with MPI_THREAD_SERIALIZED");
  if (detail::tls_pe != nullptr) fail(what, "called from a roam PE");
  detail::set_mpi_base_comm(comm);
  std::string error = detail::library_start("mpi", argc, argv);
  detail::set_mpi_base_comm(MPI_COMM_WORLD);
  if (!error.empty()) fail(what, error);
}

void library_exit() {
  const char* what = "library_exit";
  if (!detail::library_running())
    fail(what, detail::library_started_once() ? "called twice: roam already ended in this process"
                                              : "roam is not running in library mode here (library_init first)");
  if (g_in_call || detail::tls_pe != nullptr) fail(what, "called from inside a library_call");
  detail::library_stop();
}

bool library_running() noexcept { return detail::library_running(); }

namespace detail {

bool library_call_begin() {
  const char* what = "library_call";
  if (!library_running())
    fail(what, library_started_once() ? "roam already ended in this process (library_exit)"
                                      : "roam is not running in library mode here (library_init first)");
  if (tls_pe != nullptr || g_in_call) fail(what, "called from inside roam (a PE or another library_call)");
  if (library_stopped()) fail(what, "roam stopped (roam::exit or a fatal error); only library_exit may follow");
  g_in_call = true;
  return library_my_node() == 0;
}

void library_call_start(unique_function<void()> start) { post_closure(0, std::move(start)); }

void library_call_finish(bool failed, std::vector<std::byte> bytes) {
  // Other processes first: this process's own end may let its thread go
  // on at once, and the others must already be on their way out.
  const std::vector<std::uint32_t> leaders = library_node_leaders();
  for (std::size_t n = leaders.size(); n-- > 1;)
    call_on_pe<&library_call_ended>(leaders[n], static_cast<std::uint8_t>(failed ? 1 : 0), bytes);
  library_call_ended(static_cast<std::uint8_t>(failed ? 1 : 0), std::move(bytes));  // this process: node 0
}

std::vector<std::byte> library_call_wait() {
  struct leave {
    ~leave() { g_in_call = false; }
  } leave_call;
  library_call_outcome out = library_pump();
  switch (out.how) {
    case library_call_outcome::kind::done: return std::move(out.bytes);
    case library_call_outcome::kind::failed:
      // An exception_handle packs as its exception's text.
      fail("library_call", "the call's function failed on PE 0: " + roam::unpack<std::string>(out.bytes));
    case library_call_outcome::kind::stopped: break;
  }
  fail("library_call", "roam stopped during the call (roam::exit or a fatal error, reported above); only "
                       "library_exit may follow");
}

}  // namespace detail
}  // namespace roam

#endif  // ROAM_HAVE_MPI
