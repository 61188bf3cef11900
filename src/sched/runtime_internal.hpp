#pragma once
// The steps of a PE's life that the threaded runner (runtime.cpp) and the
// deterministic driver (deterministic.cpp) share.
#include <barrier>
#include <memory>
#include <string>
#include <vector>

#include <roam/machine/detail/membership.hpp>
#include <roam/machine/detail/transport.hpp>

#include <roam/sched/detail/runtime_state.hpp>
#include <roam/sched/detail/startup.hpp>
#include <roam/sched/runtime.hpp>

namespace roam::detail {

/// What layers registered (layer_hooks.cpp).
std::vector<startup_check>& startup_checks();
/// The program's command line as roam::run got it (runtime.cpp).
extern std::vector<std::string> g_command_line;

/// Every layer's per-PE setup, on the calling thread, for `pe` (tls_pe set).
void run_pe_setups(pe_state& pe);
/// Queues main as PE 0's first message (node 0 only).
void post_main(runtime_state& rt, unique_function<void(const roam::args&)>& main, roam::args& program_args);
/// Once no PE runs messages: reports, suspended tasks destroyed, threads
/// unwound, stop hooks (objects destroyed). tls_pe is `pe`.
void finish_pe_objects(pe_state& pe);
/// Once every PE has finished its objects: queued items dropped, futures and pool returns released.
void finish_pe_queues(pe_state& pe);
/// The run hooks (startup.hpp): started (false: one failed, reported), finished.
bool run_started_hooks(runtime_state& rt);
void run_finished_hooks(runtime_state& rt);
/// Start-up, every node at once: measures this process's wall-clock offset
/// from node 0 (clock_offset_ns) through the transport's allgather.
std::string measure_clock_offset(transport& net);
/// The readonly window closes for good (the run ended).
void main_ended() noexcept;

/// One PE's thread from setup to teardown (`local`: its place in this
/// process); `sync` has one slot per PE of the process. It is
/// pe_thread_begin (tls_pe set, pinned, setups, every PE exists), the PE's
/// run_loop, then pe_thread_end (teardown; tls_pe cleared): library mode runs
/// the loop of a PE on the program's thread in pieces between them.
void pe_thread_body(runtime_state& rt, std::uint32_t local, std::barrier<>& sync);
void pe_thread_begin(runtime_state& rt, std::uint32_t local, std::barrier<>& sync, bool name_thread);
void pe_thread_end(runtime_state& rt, std::uint32_t local, std::barrier<>& sync);
/// Makes `rt` the process's runtime; false (reported) if one is installed.
bool install_runtime(runtime_state& rt);
/// Start-up exchange between the processes: refuses inconsistent jobs,
/// records the hosts and the job key. Empty, or what is wrong.
std::string check_peers(membership_transport& net, std::uint32_t ppn);
/// What the transport calls back into `rt` with.
transport_handlers handlers_for(runtime_state& rt);
/// +ftheartbeat / +fttimeout as the transports' environment.
void apply_ft_options(const runtime_options& opts);
/// The physical transport `kind`, bootstrapped, seen through the membership;
/// nullptr and `error` when it cannot start.
std::unique_ptr<membership_transport> make_job_transport(const std::string& kind, std::string& error);

/// After a failure, with no runtime in the process (progress thread): the
/// survivors agree, exchange and install the newest complete in-memory
/// checkpoint (src/sched/recovery.cpp). False (reported) when the job
/// cannot go on.
class membership_transport;
bool recover_job(membership_transport& net, std::uint32_t ppn);

/// +deterministic: runs every PE of `rt` on this thread until the program
/// exits; returns its exit code.
int run_pes_deterministic(runtime_state& rt, unique_function<void(const roam::args&)>& main, roam::args& program_args);

}  // namespace roam::detail
