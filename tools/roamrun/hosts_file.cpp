#include "hosts_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace roam::detail::roamrun {

std::optional<std::vector<std::string>> read_hosts_file(const std::string& path, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = "cannot read the hosts file '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  std::vector<std::string> hosts;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string host, extra;
    if (!(words >> host)) continue;
    if (words >> extra) {
      error = "hosts file '" + path + "' line " + std::to_string(number) + ": expected one host, found '" +
              host + "' followed by '" + extra + "'";
      return std::nullopt;
    }
    hosts.push_back(host);
  }
  if (in.bad()) {
    error = "cannot read the hosts file '" + path + "'";
    return std::nullopt;
  }
  if (hosts.empty()) {
    error = "the hosts file '" + path + "' names no host";
    return std::nullopt;
  }
  return hosts;
}

}  // namespace roam::detail::roamrun
