#pragma once
// Starting one node's process and signalling it. Each child leads its own
// process group, so signalling the group also reaches anything it started
// (ssh's helpers, a shell wrapper's children): no orphans. A child also dies
// with roamrun (PR_SET_PDEATHSIG), even if roamrun is killed with SIGKILL.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "child_command.hpp"
#include "tcp/socket_io.hpp"

namespace roam::detail::roamrun {

struct child_process {
  std::uint32_t node = 0;
  pid_t pid = -1;
  roam::detail::tcp::unique_fd out;  ///< read end of its stdout (non-blocking)
  roam::detail::tcp::unique_fd err;  ///< read end of its stderr (non-blocking)
  bool running = true;
  int wait_status = 0;               ///< from waitpid, once !running
};

/// Forks and execs `cmd`. The child gets the default signal mask and
/// dispositions back (roamrun blocks the signals it reads from a signalfd).
std::optional<child_process> spawn_child(std::uint32_t node, const child_command& cmd, std::string& error);

/// Sends `sig` to the child's process group.
void signal_child(const child_process& c, int sig) noexcept;

/// Whether `program` can be executed as execvp would find it; "" if so, else why.
std::string check_executable(const std::string& program);

}  // namespace roam::detail::roamrun
