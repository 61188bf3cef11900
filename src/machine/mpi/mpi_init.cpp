// Creating the mpi transport: MPI initialisation on the progress thread, the
// thread-level check, and the transport's private communicators.
#include <algorithm>
#include <cstdlib>

#include <roam/machine/detail/mpi_base_comm.hpp>

#include "mpi/mpi_error.hpp"
#include "mpi/mpi_progress_owner.hpp"
#include "mpi/mpi_transport.hpp"

namespace roam::detail {

namespace {

MPI_Comm g_base_comm = MPI_COMM_WORLD;

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "an unknown thread level";
  }
}

// A duplicate of the base communicator (MPI_COMM_WORLD, or library mode's)
// that reports errors to us instead of ending the job, so a failing call can
// name the peer (on_peer_failure).
bool private_comm(const char* name, MPI_Comm& comm, std::string& error) {
  int rc = MPI_Comm_dup(g_base_comm, &comm);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  if (rc != MPI_SUCCESS) {
    error = "mpi transport: creating its communicator failed: " + mpi_error_text(rc);
    return false;
  }
  MPI_Comm_set_name(comm, name);
  return true;
}

}  // namespace

void set_mpi_base_comm(MPI_Comm comm) noexcept { g_base_comm = comm; }

std::unique_ptr<transport> make_mpi_transport(std::string& error) {
  mpi_limits limits;
  if (!read_mpi_limits([](const char* var) -> const char* { return std::getenv(var); }, limits, error)) return nullptr;

  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) {
    error = "mpi transport: MPI was already finalized in this process";
    return nullptr;
  }
  int initialized = 0;
  MPI_Initialized(&initialized);
  int provided = MPI_THREAD_SINGLE;
  bool owns_mpi = false;
  if (!initialized) {
    // Only this (progress) thread will ever call MPI: FUNNELED is all we need,
    // and the cheapest level an MPI library offers.
    int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    if (rc != MPI_SUCCESS) {
      error = "mpi transport: MPI_Init_thread failed: " + mpi_error_text(rc);
      return nullptr;
    }
    owns_mpi = true;
  } else {
    // The program initialised MPI itself: keep it, but it must allow our
    // thread to make the calls.
    MPI_Query_thread(&provided);
    int is_main = 0;
    MPI_Is_thread_main(&is_main);
    if (!is_main && provided < MPI_THREAD_SERIALIZED) {
      error = std::string("mpi transport: MPI was initialised by another thread with ") + thread_level_name(provided) +
              "; roam's communication thread may call MPI only with MPI_THREAD_SERIALIZED or higher";
      return nullptr;
    }
  }
  if (provided < MPI_THREAD_FUNNELED) {
    error = std::string("mpi transport: the MPI library provides only ") + thread_level_name(provided) +
            ", roam needs MPI_THREAD_FUNNELED (its PEs are threads; one of them makes every MPI call). "
            "Use an MPI built with thread support";
    if (owns_mpi) MPI_Finalize();
    return nullptr;
  }

  mpi_comms comms;
  if (!private_comm("roam frames", comms.frames, error) || !private_comm("roam bulk", comms.bulk, error) ||
      !private_comm("roam control", comms.control, error)) {
    if (owns_mpi) MPI_Finalize();
    return nullptr;
  }
  auto t = std::make_unique<mpi_transport>(comms, owns_mpi, limits, error);
  if (!error.empty()) return nullptr;  // MPI is in an unknown state: leave it to mpirun
  return t;
}

mpi_transport::mpi_transport(mpi_comms comms, bool owns_mpi, mpi_limits limits, std::string& error)
    : comms_(comms), owns_mpi_(owns_mpi), limits_(limits) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comms_.frames, &rank);
  MPI_Comm_size(comms_.frames, &size);
  my_node_ = static_cast<std::uint32_t>(rank);
  num_nodes_ = static_cast<std::uint32_t>(size);
  sent_to_.assign(num_nodes_, 0);
  received_from_.assign(num_nodes_, 0);
  failed_.assign(num_nodes_, false);
  dropped_.assign(num_nodes_, false);
  heard_.assign(num_nodes_, 0);
  sent_recently_.assign(num_nodes_, 0);
  const auto now = clock::now();
  last_heard_.assign(num_nodes_, now);
  last_sent_.assign(num_nodes_, now);
  last_timer_check_ = now;
  // A quarter interval: heartbeats leave within 1.25 intervals of the last
  // frame, a silent peer is found within timeout + a quarter interval.
  timer_tick_ = std::clamp(limits_.heartbeat_interval / 4, std::chrono::milliseconds(1), std::chrono::milliseconds(250));
  recv_buffer(recv_buffer_initial);
  if (int rc = ring_.open(comms_.frames, limits_.recv_slots, limits_.small_frame); rc != MPI_SUCCESS)
    error = "mpi transport: posting its receives failed: " + mpi_error_text(rc);
  // The factory runs on the progress thread: remember it for send()'s direct path.
  set_progress_owner(this);
}

mpi_transport::~mpi_transport() {
  // Without finish() the process is ending abnormally: MPI_Finalize could
  // wait for peers that will never come, so we leave MPI as it is and let
  // mpirun report the early exit.
  if (is_progress_owner(this)) set_progress_owner(nullptr);
}

void mpi_transport::set_handlers(transport_handlers h) { handlers_ = h; }

}  // namespace roam::detail
