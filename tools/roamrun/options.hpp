#pragma once
// roamrun's command line: `roamrun -n NODES [+ppn K] [--hosts FILE] [options]
// PROGRAM [ARGS...]`. Everything from PROGRAM on is the program's; +ppn is
// roamrun's to see but the runtime's to parse, so it is passed on too.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace roam::detail::roamrun {

struct options {
  std::uint32_t nodes = 0;
  std::string hosts_file;                   ///< "" = every node on this host
  bool prefix = true;                       ///< "[node N] " before lines of nodes 1..n-1
  bool prefix_node0 = false;                ///< also before node 0's lines
  std::chrono::milliseconds grace{3000};    ///< after a node fails, how long the others get to notice and exit
  bool verbose = false;
  /// --ft: a failed node does not end the job; the survivors recover
  /// (roam::checkpoint_in_memory) and the exit status is the program's.
  bool ft = false;
  std::uint32_t spares = 0;                 ///< --spares N: processes started idle to replace failed ones (implies --ft)
  std::string program;
  std::vector<std::string> program_args;    ///< +ppn (if given) first, then the program's own arguments
};

struct parsed_options {
  options opts;
  bool ok = false;
  bool help = false;     ///< --help: print usage, exit 0
  bool version = false;  ///< --version: print the build description, exit 0
  std::string error;   ///< when !ok && !help
};

parsed_options parse_options(int argc, const char* const* argv);
std::string usage_text();

}  // namespace roam::detail::roamrun
