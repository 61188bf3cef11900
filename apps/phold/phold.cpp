// PHOLD (libs/pdes/include/roam/pdes/phold.hpp; apps/phold/README.md) with
// ROSS's options: the same options give the same committed count as ROSS,
// under every scheduler and PE count.
//
//   phold [--lps N] [--remote r] [--start-events k] [--lookahead l] [--mean m] [--end t]
//         [--synch sequential|conservative|optimistic|optimistic-check] [--batch n] [--gvt-interval n]
//         [--lps-per-chare n] [--max-optimism t] [--check-gvt] [--wrong-reverse]
#include <cstdio>
#include <string>

#include <roam/pdes/phold.hpp>
#include <roam/pdes/report.hpp>
#include <roam/pdes/simulation.hpp>
#include <roam/roam.hpp>

#include "option_value.hpp"

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
  std::uint32_t batch = 16;
  std::uint32_t gvt_interval = 16;
  std::uint64_t lps_per_chare = 0;
  double max_optimism = pdes::infinite_time;
  bool auto_optimism = false;
  double auto_factor = 1.0;
  bool check_gvt = false;
  bool wrong_reverse = false;
  std::uint32_t balance_every = 0;
  std::uint32_t checkpoint_every = 0;
  std::string checkpoint_dir;
};

void report_and_exit(pdes::run_stats r) {
  pdes::print_stats("phold", r);
  std::fflush(stdout);
  roam::exit(0);
}

bool parse(const roam::args& a, settings& s) {
  for (std::size_t i = 1; i < a.size(); ++i) {
    const std::string& k = a[i];
    auto value = [&]() -> const std::string& { return roam_apps::option_value(a, i); };
    if (k == "--lps") s.lps = std::stoull(value());
    else if (k == "--remote") s.remote = std::stod(value());
    else if (k == "--start-events") s.start_events = static_cast<std::uint32_t>(std::stoul(value()));
    else if (k == "--lookahead") s.lookahead = std::stod(value());
    else if (k == "--mean") s.mean = std::stod(value());
    else if (k == "--end") s.end = std::stod(value());
    else if (k == "--synch") {
      if (!pdes::parse_synch(value(), s.synch)) {
        std::fprintf(stderr, "phold: --synch %s: use sequential, conservative, optimistic or optimistic-check\n", a[i].c_str());
        return false;
      }
    } else if (k == "--batch") s.batch = static_cast<std::uint32_t>(std::stoul(value()));
    else if (k == "--gvt-interval") s.gvt_interval = static_cast<std::uint32_t>(std::stoul(value()));
    else if (k == "--lps-per-chare") s.lps_per_chare = std::stoull(value());
    else if (k == "--max-optimism") {
      const std::string& v = value();
      if (v == "auto") s.auto_optimism = true;
      else s.max_optimism = std::stod(v);
    } else if (k == "--auto-optimism-factor") s.auto_factor = std::stod(value());
    else if (k == "--check-gvt") s.check_gvt = true;
    else if (k == "--balance-every") s.balance_every = static_cast<std::uint32_t>(std::stoul(value()));
    else if (k == "--checkpoint-every") s.checkpoint_every = static_cast<std::uint32_t>(std::stoul(value()));
    else if (k == "--checkpoint-dir") s.checkpoint_dir = value();
    else if (k == "--wrong-reverse") s.wrong_reverse = true;
    else {
      std::fprintf(stderr, "phold: unknown option '%s' (see apps/phold/README.md)\n", k.c_str());
      return false;
    }
  }
  if (s.lps == 0 || s.lookahead <= 0 || s.lookahead > 1.0 || s.mean < s.lookahead || s.remote < 0 || s.remote > 1) {
    std::fprintf(stderr, "phold: need --lps > 0, 0 < --lookahead <= 1 <= ..., --mean >= --lookahead, --remote in [0, 1]\n");
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    settings s;
    try {
      if (!parse(a, s)) {
        roam::exit(2);
        co_return;
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "phold: %s\n", e.what());
      roam::exit(2);
      co_return;
    }
    pdes::phold_model model;
    model.remote = s.remote;
    model.lookahead = s.lookahead;
    model.mean = s.mean - s.lookahead;
    model.start_events = s.start_events;
    model.lps = s.lps;
    model.wrong_reverse = s.wrong_reverse;
    pdes::engine_options o;
    o.lps = s.lps;
    o.end = s.end;
    o.mode = s.synch;
    o.lookahead = s.lookahead;
    o.batch = s.batch;
    o.gvt_interval = s.gvt_interval;
    o.lps_per_chare = s.lps_per_chare;
    o.max_optimism = s.max_optimism;
    o.auto_optimism = s.auto_optimism;
    o.auto_optimism_factor = s.auto_factor;
    o.check_gvt = s.check_gvt;
    o.balance_every = s.balance_every;
    o.checkpoint_every = s.checkpoint_every;
    o.checkpoint_dir = s.checkpoint_dir;
    try {
      pdes::resolve(o);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "phold: %s\n", e.what());
      roam::exit(2);
      co_return;
    }
    std::printf("phold: %llu LPs, remote %g, %u start events, lookahead %g, mean %g, end %g, %s on %u PEs\n",
                static_cast<unsigned long long>(s.lps), s.remote, s.start_events, s.lookahead, s.mean, s.end,
                pdes::synch_name(s.synch), roam::num_pes());
    std::fflush(stdout);
    // The result goes to a function (not a future of this task): it also
    // arrives in a run restarted from a checkpoint (`phold +restart DIR`),
    // which does not run main.
    pdes::simulate(model, o, roam::callback<pdes::run_stats>::function<&report_and_exit>(roam::pe_id{0}));
  });
}
