// PHOLD (libs/pdes/include/roam/pdes/phold.hpp; apps/phold/README.md) with
// ROSS's options: the same options give the same committed count as ROSS,
// under every scheduler and PE count.
//
//   phold [--lps N] [--remote r] [--start-events k] [--lookahead l] [--mean m] [--end t]
//         [--synch sequential|conservative|optimistic|optimistic-check] [--batch n] [--gvt-interval n]
//         [--lps-per-chare n] [--max-optimism t] [--check-gvt] [--wrong-reverse]
#include <cstdio>
#include <limits>
#include <string>

#include <roam/pdes/phold.hpp>
#include <roam/pdes/report.hpp>
#include <roam/pdes/simulation.hpp>
#include <roam/roam.hpp>

#include "command_line.hpp"

namespace {

namespace pdes = roam::pdes;

struct settings {
  std::uint64_t lps = 80;
  double remote = 0.25;
  std::uint32_t start_events = 1;
  double lookahead = 1.0;
  double mean = 1.0;
  double end = 100000;
  pdes::synch synch = pdes::synch::sequential;
  std::uint32_t batch = 64;
  bool adaptive_batch = true;
  std::uint32_t gvt_interval = 16;
  std::uint64_t lps_per_chare = 0;
  double max_optimism = pdes::infinite_time;
  bool auto_optimism = true;
  double target_efficiency = 0.98;
  bool check_gvt = false;
  bool wrong_reverse = false;
  double min_efficiency = -std::numeric_limits<double>::infinity();
  std::uint32_t balance_every = 0;
  std::uint32_t checkpoint_every = 0;
  std::string checkpoint_dir;
};

/// --min-efficiency (set by main; a run restarted from a checkpoint does not check it).
double g_min_efficiency = -std::numeric_limits<double>::infinity();

void report_and_exit(pdes::run_stats r) {
  pdes::print_stats("phold", r);
  std::fflush(stdout);
  if (r.efficiency() < g_min_efficiency) {
    std::fprintf(stderr, "phold: efficiency %.2f %% is below --min-efficiency %.2f %%\n", 100 * r.efficiency(),
                 100 * g_min_efficiency);
    roam::exit(1);
  }
  roam::exit(0);
}

constexpr roam_apps::usage_text usage{
    "phold",
    "usage: phold [options]\n"
    "  --lps N               logical processes (default 80)\n"
    "  --remote R            share of events sent to a random LP, in [0, 1] (default 0.25)\n"
    "  --start-events K      events per LP at the start (default 1)\n"
    "  --lookahead L         least time between an event and the one it sends, in (0, 1] (default 1)\n"
    "  --mean M              mean of that time (default 1); below L, as under ROSS, the exponential\n"
    "                        part is negative and the run ends at the first event sent into the past\n"
    "  --end T               simulated time to stop at (default 100000)\n"
    "  --synch KIND          sequential, conservative, optimistic or optimistic-check (default sequential)\n"
    "  --batch N             events per scheduling slice, fixed (default: 16-64 by the rollbacks)\n"
    "  --gvt-interval N      PE 0's batches between GVT rounds (default 16)\n"
    "  --lps-per-chare N     LPs per LP chare (default: about 4 chares per PE)\n"
    "  --max-optimism T|auto|none  optimistic: run only events below GVT + T; auto (default): a window\n"
    "                        each PE adapts to its rollbacks; none: unbounded\n"
    "  --target-efficiency E the auto window's aim: at most 1 - E of the events undone (default 0.98)\n"
    "  --check-gvt           fail if anything arrives below GVT\n"
    "  --wrong-reverse       a deliberately broken reverse handler (the rollback check's test)\n"
    "  --min-efficiency E    exit 1 if fewer than E of the processed events survive (tests)\n"
    "  --balance-every N     GVT rounds between load balancing steps (with +balancer NAME)\n"
    "  --checkpoint-every N  GVT rounds between checkpoints into --checkpoint-dir D\n"
    "  --checkpoint-dir D    where checkpoints go; `phold +restart D` finishes the run\n"
    "  -h, --help            this text\n"
    "Exit status: 0 when the run completes, 1 when it fails (a check, a runtime error), 2 on bad arguments.\n",
    "phold --lps 80 --remote 0.1 --start-events 16 --lookahead 0.1 --end 2500 --synch optimistic +p4"};

/// Reads the command line into `s`; throws std::invalid_argument naming the bad option.
void parse(const roam::args& a, settings& s) {
  using roam_apps::number;
  using roam_apps::whole;
  constexpr std::uint64_t u32 = std::numeric_limits<std::uint32_t>::max();
  constexpr std::uint64_t u64 = std::numeric_limits<std::uint64_t>::max();
  for (std::size_t i = 1; i < a.size(); ++i) {
    const std::string& k = a[i];
    auto value = [&]() -> const std::string& { return roam_apps::option_value(a, i); };
    if (k == "--lps") s.lps = whole(k, value(), 0, u64);
    else if (k == "--remote") s.remote = number(k, value());
    else if (k == "--start-events") s.start_events = static_cast<std::uint32_t>(whole(k, value(), 0, u32));
    else if (k == "--lookahead") s.lookahead = number(k, value());
    else if (k == "--mean") s.mean = number(k, value());
    else if (k == "--end") s.end = number(k, value(), true);
    else if (k == "--synch") {
      if (!pdes::parse_synch(value(), s.synch))
        throw std::invalid_argument("--synch " + a[i] + ": use sequential, conservative, optimistic or optimistic-check");
    } else if (k == "--batch") {
      s.batch = static_cast<std::uint32_t>(whole(k, value(), 0, u32));
      s.adaptive_batch = false;
    }
    else if (k == "--gvt-interval") s.gvt_interval = static_cast<std::uint32_t>(whole(k, value(), 0, u32));
    else if (k == "--lps-per-chare") s.lps_per_chare = whole(k, value(), 0, u64);
    else if (k == "--max-optimism") {
      const std::string& v = value();
      s.auto_optimism = v == "auto";
      if (v == "none" || v == "auto") s.max_optimism = pdes::infinite_time;
      else s.max_optimism = number(k, v, true);
    } else if (k == "--target-efficiency") {
      s.target_efficiency = number(k, value(), true);
      if (!(s.target_efficiency < 1)) throw std::invalid_argument("--target-efficiency must lie between 0 and 1");
    }
    else if (k == "--check-gvt") s.check_gvt = true;
    else if (k == "--balance-every") s.balance_every = static_cast<std::uint32_t>(whole(k, value(), 0, u32));
    else if (k == "--checkpoint-every") s.checkpoint_every = static_cast<std::uint32_t>(whole(k, value(), 0, u32));
    else if (k == "--checkpoint-dir") s.checkpoint_dir = value();
    else if (k == "--wrong-reverse") s.wrong_reverse = true;
    else if (k == "--min-efficiency") s.min_efficiency = number(k, value());
    else throw std::invalid_argument("unknown option '" + k + "'");
  }
  // --mean below --lookahead is accepted, as ROSS's phold accepts it.
  if (s.lps == 0 || s.lookahead <= 0 || s.lookahead > 1.0 || !(s.mean > 0) || s.remote < 0 || s.remote > 1)
    throw std::invalid_argument("need --lps > 0, 0 < --lookahead <= 1, --mean > 0, --remote in [0, 1]");
}

pdes::phold_model make_model(const settings& s) {
  pdes::phold_model model;
  model.remote = s.remote;
  model.lookahead = s.lookahead;
  model.mean = s.mean - s.lookahead;
  model.start_events = s.start_events;
  model.lps = s.lps;
  model.wrong_reverse = s.wrong_reverse;
  return model;
}

pdes::engine_options make_options(const settings& s) {
  pdes::engine_options o;
  o.lps = s.lps;
  o.end = s.end;
  o.mode = s.synch;
  o.lookahead = s.lookahead;
  o.batch = s.batch;
  o.adaptive_batch = s.adaptive_batch;
  o.gvt_interval = s.gvt_interval;
  o.lps_per_chare = s.lps_per_chare;
  o.max_optimism = s.max_optimism;
  o.auto_optimism = s.auto_optimism;
  o.target_efficiency = s.target_efficiency;
  o.check_gvt = s.check_gvt;
  o.balance_every = s.balance_every;
  o.checkpoint_every = s.checkpoint_every;
  o.checkpoint_dir = s.checkpoint_dir;
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    settings s;
    pdes::engine_options o, resolved;
    const bool go_on = roam_apps::read_command_line(a, usage, [&] {
      parse(a, s);
      o = make_options(s);
      // Rejects inconsistent options here, and shows what runs: the
      // library's +pdes_* options override the program's (simulate
      // resolves them again).
      resolved = pdes::resolve(o);
    });
    if (!go_on) co_return;  // the usage is printed and the program ends
    const pdes::phold_model model = make_model(s);
    g_min_efficiency = s.min_efficiency;
    std::printf("phold: %llu LPs, remote %g, %u start events, lookahead %g, mean %g, end %g, %s on %u PEs\n",
                static_cast<unsigned long long>(s.lps), s.remote, s.start_events, s.lookahead, s.mean, s.end,
                pdes::synch_name(resolved.mode), roam::num_pes());
    std::fflush(stdout);
    // The result goes to a function (not a future of this task): it also
    // arrives in a run restarted from a checkpoint (`phold +restart DIR`),
    // which does not run main.
    pdes::simulate(model, o, roam::callback<pdes::run_stats>::function<&report_and_exit>(roam::pe_id{0}));
  });
}
