// The dragonfly network model of seed 003 §5.2 on libs/pdes
// (apps/dragonfly/README.md): routers, terminals and MPI-process LPs; each
// process sends `messages` messages of `packets` packets to destinations of
// the traffic pattern, over minimal routes, with link latencies and
// bandwidths and output-port queueing. The committed count and the printed
// network statistics are the same under every scheduler and PE count.
//
//   dragonfly [--a n] [--p n] [--h n] [--traffic uniform|transpose|neighbor] [--messages n] [--packets n]
//             [--interval ns] [--end ns] [--synch sequential|conservative|optimistic|optimistic-check]
//             [--batch n] [--gvt-interval n] [--lps-per-chare n] [--max-optimism ns|auto] [--check-gvt]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

#include <roam/pdes/report.hpp>
#include <roam/pdes/simulation.hpp>
#include <roam/roam.hpp>

#include "command_line.hpp"
#include "dragonfly_model.hpp"

namespace {

namespace pdes = roam::pdes;

struct settings {
  std::uint32_t a = 8, p = 4, h = 4;
  dragonfly::traffic pattern = dragonfly::traffic::uniform;
  std::uint64_t messages = 1000;
  std::uint32_t packets = 4;
  double interval = 1000;
  double end = pdes::infinite_time;  // run until every message is delivered
  pdes::synch synch = pdes::synch::sequential;
  std::uint32_t batch = 64;
  bool adaptive_batch = true;
  std::uint32_t gvt_interval = 16;
  std::uint64_t lps_per_chare = 0;  // 0: one group per chare
  double max_optimism = pdes::infinite_time;
  bool auto_optimism = true;
  bool check_gvt = false;
};

bool parse_traffic(const std::string& s, dragonfly::traffic& out) {
  if (s == "uniform") out = dragonfly::traffic::uniform;
  else if (s == "transpose") out = dragonfly::traffic::transpose;
  else if (s == "neighbor") out = dragonfly::traffic::neighbor;
  else return false;
  return true;
}

using roam_apps::positive;
using roam_apps::whole;

constexpr roam_apps::usage_text usage{
    "dragonfly",
    "usage: dragonfly [options]\n"
    "  --a N                 routers per group (default 8)\n"
    "  --p N                 terminals (MPI processes) per router (default 4)\n"
    "  --h N                 global links per router (default 4); the network has a*h + 1 groups\n"
    "  --traffic KIND        uniform, transpose or neighbor (default uniform)\n"
    "  --messages N          messages each process sends (default 1000)\n"
    "  --packets N           packets per message (default 4)\n"
    "  --interval NS         mean time between a process's messages, ns (default 1000)\n"
    "  --end NS              simulated time to stop at, ns (default inf: when every message is delivered)\n"
    "  --synch KIND          sequential, conservative, optimistic or optimistic-check (default sequential)\n"
    "  --batch N             events per scheduling slice, fixed (default: 16-64 by the rollbacks)\n"
    "  --gvt-interval N      batches between GVT rounds (default 16)\n"
    "  --lps-per-chare N     LPs per migratable chare (default: one group per chare)\n"
    "  --max-optimism NS|auto|none  optimistic: run only events below GVT + NS; auto (default): a window\n"
    "                        each PE adapts to its rollbacks; none: unbounded\n"
    "  --check-gvt           fail if anything arrives below GVT\n"
    "  -h, --help            this text\n"
    "Exit status: 0 when the run completes, 1 when it fails (a check, a runtime error), 2 on bad arguments.\n",
    "dragonfly --a 4 --p 2 --h 2 --messages 100 --synch optimistic +p4"};

/// Reads the command line into `s`; throws std::invalid_argument naming the bad option.
void parse(const roam::args& a, settings& s) {
  constexpr std::uint64_t u32 = std::numeric_limits<std::uint32_t>::max();
  for (std::size_t i = 1; i < a.size(); ++i) {
    const std::string& k = a[i];
    auto value = [&]() -> const std::string& { return roam_apps::option_value(a, i); };
    if (k == "--a") s.a = static_cast<std::uint32_t>(whole(k, value(), 1, 1024));
    else if (k == "--p") s.p = static_cast<std::uint32_t>(whole(k, value(), 1, 1024));
    else if (k == "--h") s.h = static_cast<std::uint32_t>(whole(k, value(), 1, 1024));
    else if (k == "--traffic") {
      if (!parse_traffic(value(), s.pattern))
        throw std::invalid_argument("--traffic " + a[i] + ": use uniform, transpose or neighbor");
    } else if (k == "--messages") s.messages = whole(k, value(), 0, std::numeric_limits<std::uint64_t>::max());
    else if (k == "--packets") s.packets = static_cast<std::uint32_t>(whole(k, value(), 1, 65535));
    else if (k == "--interval") s.interval = positive(k, value(), false);
    else if (k == "--end") s.end = positive(k, value(), true);
    else if (k == "--synch") {
      if (!pdes::parse_synch(value(), s.synch))
        throw std::invalid_argument("--synch " + a[i] + ": use sequential, conservative, optimistic or optimistic-check");
    } else if (k == "--batch") {
      s.batch = static_cast<std::uint32_t>(whole(k, value(), 1, u32));
      s.adaptive_batch = false;
    }
    else if (k == "--gvt-interval") s.gvt_interval = static_cast<std::uint32_t>(whole(k, value(), 1, u32));
    else if (k == "--lps-per-chare") s.lps_per_chare = whole(k, value(), 1, std::numeric_limits<std::uint64_t>::max());
    else if (k == "--max-optimism") {
      const std::string& v = value();
      s.auto_optimism = v == "auto";
      if (v == "none" || v == "auto") s.max_optimism = pdes::infinite_time;
      else s.max_optimism = positive(k, v, true);
    }
    else if (k == "--check-gvt") s.check_gvt = true;
    else throw std::invalid_argument("unknown option '" + k + "'");
  }
  const dragonfly::topology t{s.a, s.p, s.h};
  // Process and terminal numbers travel as 32 bits, port numbers as 16.
  if (t.terminals() > u32 || t.ports() > 65535)
    throw std::invalid_argument("--a " + std::to_string(s.a) + " --p " + std::to_string(s.p) + " --h " +
                                std::to_string(s.h) + ": too large a network");
}

dragonfly::model make_model(const settings& s) {
  dragonfly::model m;
  m.topo = {s.a, s.p, s.h};
  m.pattern = s.pattern;
  m.messages = s.messages;
  m.packets = s.packets;
  m.interval = s.interval;
  m.grid_rows = dragonfly::model::grid_rows_for(m.topo.terminals());
  return m;
}

pdes::engine_options make_options(const settings& s, const dragonfly::model& m) {
  pdes::engine_options o;
  o.lps = m.topo.lps();
  o.end = s.end;
  o.mode = s.synch;
  o.lookahead = m.d.lookahead();
  o.batch = s.batch;
  o.adaptive_batch = s.adaptive_batch;
  o.gvt_interval = s.gvt_interval;
  o.lps_per_chare = s.lps_per_chare ? s.lps_per_chare : m.topo.lps_per_group();
  o.max_optimism = s.max_optimism;
  o.auto_optimism = s.auto_optimism;
  o.check_gvt = s.check_gvt;
  return o;
}

void print_configuration(const settings& s, const dragonfly::model& m, const pdes::engine_options& o) {
  const dragonfly::topology& t = m.topo;
  std::printf("dragonfly: a %u, p %u, h %u: %llu groups, %llu routers, %llu terminals, %llu processes (%llu LPs, "
              "%llu per chare)\n",
              t.a, t.p, t.h, static_cast<unsigned long long>(t.groups()), static_cast<unsigned long long>(t.routers()),
              static_cast<unsigned long long>(t.terminals()), static_cast<unsigned long long>(t.terminals()),
              static_cast<unsigned long long>(t.lps()), static_cast<unsigned long long>(o.lps_per_chare));
  std::printf("dragonfly: traffic %s, %llu messages of %u x %g-byte packets per process, interval %g + exp(%g) ns, "
              "end %g ns, lookahead %g ns, %s on %u PEs\n",
              dragonfly::traffic_name(s.pattern), static_cast<unsigned long long>(s.messages), s.packets,
              m.d.packet_bytes, m.d.send_overhead, s.interval, s.end, o.lookahead, pdes::synch_name(o.mode),
              roam::num_pes());
}

/// The network statistics (merged over every LP in gid order by the engine).
void print_totals(const dragonfly::lp_totals& sum) {
  auto per = [](double x, std::uint64_t n) { return n ? x / static_cast<double>(n) : 0.0; };
  std::printf("dragonfly: messages sent %llu, delivered %llu; packets delivered %llu; message latency avg %.3f ns, "
              "max %.3f ns; hops avg %.4f per packet; queueing avg %.3f ns per packet; last delivery at %.3f ns\n",
              static_cast<unsigned long long>(sum.sent), static_cast<unsigned long long>(sum.messages),
              static_cast<unsigned long long>(sum.packets), per(sum.latency, sum.messages), sum.max_latency,
              per(static_cast<double>(sum.hops), sum.packets), per(sum.waited, sum.packets), sum.last_delivery);
}

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    settings s;
    dragonfly::model m;
    pdes::engine_options o;
    const bool go_on = roam_apps::read_command_line(a, usage, [&] {
      parse(a, s);
      m = make_model(s);
      o = make_options(s, m);
      pdes::resolve(o);  // rejects inconsistent options here
    });
    if (!go_on) co_return;  // the usage is printed and the program ends
    print_configuration(s, m, pdes::resolve(o));  // what runs: +pdes_* options override the program's
    std::fflush(stdout);
    const auto r = co_await pdes::simulate(m, o);
    pdes::print_stats("dragonfly", r.stats);
    print_totals(r.summary);
    roam::exit(0);
  });
}
