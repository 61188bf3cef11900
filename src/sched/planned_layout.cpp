// roam::planned_layout: the PEs roam::run will start, computed as run_main
// and the transports' bootstrap compute them, without starting anything.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <roam/machine/detail/topology.hpp>
#include <roam/machine/detail/transport.hpp>
#include <roam/sched/runtime.hpp>

#include "options.hpp"

namespace roam {

std::optional<startup_layout> planned_layout(int argc, char** argv, std::string& error) {
  // parse_runtime_options removes what it reads: it gets a copy of argv.
  std::vector<char*> copy(argv, argv + argc);
  copy.push_back(nullptr);
  int n = argc;
  detail::parse_result parsed = detail::parse_runtime_options(n, copy.data());
  if (!parsed.error.empty()) {
    error = parsed.error;
    return std::nullopt;
  }
  const detail::runtime_options& o = parsed.options;
  startup_layout l;
  const std::string kind = detail::detect_transport();
  if (kind.empty()) {  // one process (run_main)
    l.pes_per_node = o.pes ? o.pes : o.ppn ? o.ppn : static_cast<std::uint32_t>(detail::available_cores());
    l.num_pes = l.pes_per_node;
    return l;
  }
  std::uint32_t processes = 0, rank = 0;
  if (!detail::job_size_from_environment(kind, processes, rank, error)) return std::nullopt;
  // Spares (roamrun --spares N) are the last processes of the job.
  std::uint32_t spares = 0;
  if (const char* v = std::getenv("ROAM_SPARES"); v && *v) spares = static_cast<std::uint32_t>(std::strtoul(v, nullptr, 10));
  if (spares >= processes) {
    error = "ROAM_SPARES=" + std::to_string(spares) + " leaves no process of the " + std::to_string(processes) +
            " to run PEs";
    return std::nullopt;
  }
  l.pes_per_node = o.ppn ? o.ppn : 1;
  l.num_nodes = processes - spares;
  l.node = rank;
  l.num_pes = l.num_nodes * l.pes_per_node;
  return l;
}

}  // namespace roam
