#pragma once
// The --hosts file: one host name (or address) per line; blank lines and text
// after '#' are ignored. Node i runs on host i mod (number of hosts).
#include <optional>
#include <string>
#include <vector>

namespace roam::detail::roamrun {

/// The hosts in `path`; nullopt and `error` (naming the file and line) when
/// it cannot be read, names no host, or a line has more than one word.
std::optional<std::vector<std::string>> read_hosts_file(const std::string& path, std::string& error);

}  // namespace roam::detail::roamrun
