#include "options.hpp"

#include <charconv>
#include <string_view>

namespace roam::detail::roamrun {

namespace {
bool parse_uint(std::string_view s, std::uint64_t& v) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc{} && p == s.data() + s.size();
}
}  // namespace

std::string usage_text() {
  return "usage: roamrun -n NODES [+ppn K] [--hosts FILE] [options] PROGRAM [ARGS...]\n"
         "\n"
         "Starts NODES processes of PROGRAM (on this host, or on the hosts in FILE over ssh)\n"
         "connected by roam's tcp transport, forwards their output and returns their exit status.\n"
         "\n"
         "  -n, --nodes NODES   number of processes (nodes), at least 1\n"
         "  +ppn K              PEs per process; passed on to PROGRAM (the runtime parses it)\n"
         "  --hosts FILE        one host per line ('#' comments, blank lines ignored); node i runs on\n"
         "                      host i mod (number of hosts), started with `ssh HOST cd DIR && ... PROGRAM`\n"
         "                      ($ROAMRUN_SSH replaces ssh; $ROAMRUN_HOST is the address nodes dial back)\n"
         "  --no-prefix         forward output lines unchanged\n"
         "  --prefix-all        prefix node 0's lines too (by default only nodes 1.. get \"[node N] \")\n"
         "  --grace SECONDS     after a node fails, time the others get before being stopped (default 3)\n"
         "  --ft                a failed node does not end the job: the others recover from their in-memory\n"
         "                      checkpoint (roam::checkpoint_in_memory); the exit status is the program's\n"
         "  --spares N          also start N idle processes that take failed nodes' places (implies --ft)\n"
         "  -v, --verbose       say what is started and when\n"
         "  --version           print roam's version and build options (of the library roamrun was built with)\n"
         "  -h, --help          this text\n"
         "\n"
         "\n"
         "PROGRAM's runtime options (+p N, +balancer NAME, ...) follow it; `PROGRAM +help` lists them.\n"
         "Exit status: 0 if every node exits 0, else the first failure's code (128+N for signal N);\n"
         "2 for a usage error, 127 if PROGRAM cannot be run, 128+N if roamrun is stopped by signal N.\n"
         "\n"
         "Example: roamrun -n 2 +ppn 2 ./jacobi2d 256 8\n";
}

parsed_options parse_options(int argc, const char* const* argv) {
  parsed_options r;
  options& o = r.opts;
  std::vector<std::string> ppn;
  bool have_nodes = false;
  int i = 1;
  auto value = [&](std::string_view opt, std::string& out) {
    if (i + 1 >= argc) {
      r.error = "option " + std::string(opt) + " needs a value";
      return false;
    }
    out = argv[++i];
    return true;
  };
  for (; i < argc; ++i) {
    const std::string_view a = argv[i];
    std::string v;
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "-h" || a == "--help") {
      r.help = true;
      return r;
    }
    if (a == "--version") {
      r.version = true;
      return r;
    }
    if (a == "-n" || a == "--nodes" || a.starts_with("-n") || a.starts_with("--nodes=")) {
      if (a == "-n" || a == "--nodes") {
        if (!value(a, v)) return r;
      } else {
        v = std::string(a.substr(a.starts_with("--nodes=") ? 8 : 2));
      }
      std::uint64_t n = 0;
      if (!parse_uint(v, n) || n == 0 || n > 65536) {
        r.error = "-n needs a node count from 1 to 65536, not '" + v + "'";
        return r;
      }
      o.nodes = static_cast<std::uint32_t>(n);
      have_nodes = true;
    } else if (a == "+ppn" || a.starts_with("+ppn")) {
      // Validated here so a typo fails before any process starts; kept as written.
      ppn.emplace_back(a);
      if (a == "+ppn") {
        if (!value(a, v)) return r;
        ppn.push_back(v);
      } else {
        v = std::string(a.substr(4));
      }
      std::uint64_t k = 0;
      if (!parse_uint(v, k) || k == 0) {
        r.error = "+ppn needs a positive PE count, not '" + v + "'";
        return r;
      }
    } else if (a == "--hosts" || a.starts_with("--hosts=")) {
      if (a == "--hosts") {
        if (!value(a, o.hosts_file)) return r;
      } else {
        o.hosts_file = std::string(a.substr(8));
      }
    } else if (a == "--no-prefix") {
      o.prefix = false;
    } else if (a == "--prefix-all") {
      o.prefix_node0 = true;
    } else if (a == "--grace") {
      if (!value(a, v)) return r;
      std::uint64_t s = 0;
      if (!parse_uint(v, s) || s > 3600) {
        r.error = "--grace needs whole seconds from 0 to 3600, not '" + v + "'";
        return r;
      }
      o.grace = std::chrono::seconds(s);
    } else if (a == "--ft") {
      o.ft = true;
    } else if (a == "--spares" || a.starts_with("--spares=")) {
      if (a == "--spares") {
        if (!value(a, v)) return r;
      } else {
        v = std::string(a.substr(9));
      }
      std::uint64_t n = 0;
      if (!parse_uint(v, n) || n > 1024) {
        r.error = "--spares needs a count from 0 to 1024, not '" + v + "'";
        return r;
      }
      o.spares = static_cast<std::uint32_t>(n);
      o.ft = true;
    } else if (a == "-v" || a == "--verbose") {
      o.verbose = true;
    } else if (a.starts_with("-") && a.size() > 1) {
      r.error = "unknown option '" + std::string(a) + "'";
      return r;
    } else if (a.starts_with("+")) {
      r.error = "unknown option '" + std::string(a) +
                "' before the program (roamrun knows +ppn; put other runtime options after the program)";
      return r;
    } else {
      break;
    }
  }
  if (i >= argc) {
    r.error = "missing the program to run";
    return r;
  }
  if (!have_nodes) {
    r.error = "missing -n NODES (how many processes to start)";
    return r;
  }
  o.program = argv[i++];
  o.program_args = ppn;
  for (; i < argc; ++i) o.program_args.emplace_back(argv[i]);
  r.ok = true;
  return r;
}

}  // namespace roam::detail::roamrun
