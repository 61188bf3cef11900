// Hosts of the job's processes and the buddy ring (include/roam/machine/detail/hosts.hpp).
#include <roam/machine/detail/hosts.hpp>

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <string_view>

namespace roam::detail {

namespace {
std::vector<std::uint64_t> g_node_hosts;
job_instance g_job;

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}
}  // namespace

std::uint64_t this_host_id() {
  if (const char* h = std::getenv("ROAM_HOST"); h && *h) return fnv1a(h);
  char name[HOST_NAME_MAX + 1] = {};
  ::gethostname(name, sizeof name - 1);
  return fnv1a(name);
}

const std::vector<std::uint64_t>& node_hosts() noexcept { return g_node_hosts; }
void set_node_hosts(std::vector<std::uint64_t> hosts) { g_node_hosts = std::move(hosts); }
const job_instance& this_job() noexcept { return g_job; }
void set_this_job(job_instance job) noexcept { g_job = job; }

std::vector<std::uint32_t> buddy_ring(std::span<const std::uint64_t> hosts) {
  const auto n = static_cast<std::uint32_t>(hosts.size());
  // The nodes of each host, hosts in order of first appearance.
  std::vector<std::uint64_t> order;
  std::vector<std::vector<std::uint32_t>> by_host;
  for (std::uint32_t node = 0; node < n; ++node) {
    std::size_t h = 0;
    while (h < order.size() && order[h] != hosts[node]) ++h;
    if (h == order.size()) {
      order.push_back(hosts[node]);
      by_host.emplace_back();
    }
    by_host[h].push_back(node);
  }
  std::vector<std::uint32_t> sequence;
  sequence.reserve(n);
  for (std::size_t round = 0; sequence.size() < n; ++round)
    for (const auto& nodes : by_host)
      if (round < nodes.size()) sequence.push_back(nodes[round]);
  std::vector<std::uint32_t> buddy(n);
  for (std::uint32_t i = 0; i < n; ++i) buddy[sequence[i]] = sequence[(i + 1) % n];
  return buddy;
}

}  // namespace roam::detail
