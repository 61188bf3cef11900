#pragma once
// What roamrun executes for one node: the program itself (this host) or ssh
// with a remote shell command (--hosts), plus the environment contract of
// src/machine/tcp/tcp_config.hpp.
//
// Over ssh the secret does not go on the remote command line, where any user
// of that host could read it with ps; it is written to ssh's stdin and read by
// the remote shell into the environment before the program starts.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "options.hpp"

namespace roam::detail::roamrun {

struct job_info {
  std::uint32_t nodes = 0;        ///< processes started, spares included
  std::uint32_t spares = 0;       ///< of them, started idle (ROAM_SPARES)
  std::string launcher_address;  ///< host:port processes dial back
  std::string secret_hex;
  std::string cwd;               ///< remote nodes cd here first (a shared file system is assumed)
};

struct child_command {
  std::vector<std::string> argv;                            ///< for execvp
  std::vector<std::pair<std::string, std::string>> env;     ///< set in the child before exec
  std::string stdin_text;                                   ///< written to its stdin, then closed; "" = /dev/null
};

/// Node `node` on this host.
child_command local_command(const options& o, const job_info& job, std::uint32_t node);

/// Node `node` on `host` through `ssh` (the program and its leading options,
/// e.g. {"ssh"} or {"ssh", "-p", "2222"}). `forwarded` are ROAM_* variables of
/// roamrun's environment passed on to the remote program.
child_command ssh_command(const options& o, const job_info& job, std::uint32_t node, const std::string& host,
                          const std::vector<std::string>& ssh,
                          const std::vector<std::pair<std::string, std::string>>& forwarded);

/// `s` as one word for a POSIX shell.
std::string shell_quote(std::string_view s);

}  // namespace roam::detail::roamrun
