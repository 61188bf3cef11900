#pragma once
// Library mode's engine: roam started inside another program, whose thread
// drives roam's transport only while it is inside roam (the public face,
// with MPI: include/roam/interop/mpi_library.hpp).
//
// The PEs are threads of their own that live from library_start to
// library_stop; between calls they run whatever is queued and sleep. The
// calling thread is the transport's progress thread, but only inside
// library_start, library_pump and library_stop: between them the program
// may use MPI freely, and roam's frames wait in MPI (every frame this
// process queued has been posted before library_pump returns, so no peer
// waits on it).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace roam::detail {

/// Starts roam on the transport `kind` (its processes are the job),
/// bootstrapping with the peers; the `+` options are taken out of argv.
/// Empty, or why it could not (nothing is left running then).
std::string library_start(const std::string& kind, int& argc, char** argv);

/// How a call ended in this process.
struct library_call_outcome {
  enum class kind { done, failed, stopped } how = kind::done;
  std::vector<std::byte> bytes;  ///< done: the result; failed: the message
};

/// Pumps the transport on the calling thread until a PE of this process
/// called library_end_call (or roam stopped: roam::exit, a fatal error),
/// then until this process's sends are all posted.
library_call_outcome library_pump();

/// From a PE of this process: the current call is over here, with `outcome`.
void library_end_call(library_call_outcome outcome) noexcept;

/// Stops the PEs (every process calls it: no process tells another), pumps
/// until they are gone, ends the transport in order (collective) and
/// uninstalls the runtime.
void library_stop();

/// Whether library_start succeeded and library_stop has not run yet.
bool library_running() noexcept;
/// Whether library_start ever succeeded in this process.
bool library_started_once() noexcept;
/// Whether roam stopped (roam::exit, a fatal error) while in library mode.
bool library_stopped() noexcept;

/// The first PE of every node of the running library (node order), and
/// this process's node.
std::vector<std::uint32_t> library_node_leaders();
std::uint32_t library_my_node() noexcept;

}  // namespace roam::detail
