// PHOLD, the classic PDES benchmark, as ROSS's models/phold defines it
// (apps/phold/README.md): each LP starts with `start-events` events; an event
// sends one new event, to a random LP with probability `remote` (else to
// itself), `lookahead` plus an exponential of mean `mean - lookahead` later.
// The same options give the same committed count as ROSS.
//
//   phold [--lps N] [--remote r] [--start-events k] [--lookahead l] [--mean m] [--end t] [--synch sequential]
#include <chrono>
#include <cstdio>
#include <string>

#include <roam/pdes/rng.hpp>
#include <roam/pdes/sequential.hpp>
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
  std::string synch = "sequential";
};

struct phold {
  using state = long;
  using message = long;
  double remote = 0.25, lookahead = 1.0, mean = 0.0;  // mean: of the exponential (--mean minus lookahead)
  std::uint32_t start_events = 1;
  std::uint64_t lps = 1;

  void init(state&, pdes::lp<phold>& lp) {
    for (std::uint32_t i = 0; i < start_events; ++i) lp.send(lp.gid(), pdes::exponential(lp.rng(), mean) + lookahead, 0);
  }
  void event(state&, pdes::bitfield& bf, const message&, pdes::lp<phold>& lp) {
    pdes::lp_id dest = lp.gid();
    if (pdes::unif(lp.rng()) <= remote) {
      bf.c1 = 1;
      dest = static_cast<pdes::lp_id>(pdes::integer(lp.rng(), 0, static_cast<long>(lps) - 1));
    }
    lp.send(dest, pdes::exponential(lp.rng(), mean) + lookahead, 0);
  }
  void reverse(state&, pdes::bitfield& bf, const message&, pdes::lp<phold>& lp) {
    pdes::reverse_unif(lp.rng());
    if (bf.c1) pdes::reverse_unif(lp.rng());
    pdes::reverse_unif(lp.rng());
  }
  void commit(state&, pdes::bitfield&, const message&, pdes::lp<phold>&) {}
  void final(state&, pdes::lp<phold>&) {}
};

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
    else if (k == "--synch") s.synch = value();
    else {
      std::fprintf(stderr, "phold: unknown option '%s' (see apps/phold/README.md)\n", k.c_str());
      return false;
    }
  }
  if (s.synch != "sequential") {
    std::fprintf(stderr, "phold: --synch %s: only the sequential scheduler exists so far (docs/design/pdes.md)\n",
                 s.synch.c_str());
    return false;
  }
  if (s.lps == 0 || s.lookahead <= 0 || s.lookahead > 1.0 || s.mean < s.lookahead || s.remote < 0 || s.remote > 1) {
    std::fprintf(stderr, "phold: need --lps > 0, 0 < --lookahead <= 1 <= ..., --mean >= --lookahead, --remote in [0, 1]\n");
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) {
    settings s;
    try {
      if (!parse(a, s)) return roam::exit(2);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "phold: %s\n", e.what());
      return roam::exit(2);
    }
    phold model;
    model.remote = s.remote;
    model.lookahead = s.lookahead;
    model.mean = s.mean - s.lookahead;
    model.start_events = s.start_events;
    model.lps = s.lps;
    pdes::sequential_engine<phold> engine(model, s.lps, s.end);
    const auto t0 = std::chrono::steady_clock::now();
    const pdes::run_stats r = engine.run();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("phold: %llu LPs, remote %g, %u start events, lookahead %g, mean %g, end %g, %s\n",
                static_cast<unsigned long long>(s.lps), s.remote, s.start_events, s.lookahead, s.mean, s.end,
                s.synch.c_str());
    std::printf("phold: committed %llu events in %.3f s (%.2f M events/s); %llu sends past the end\n",
                static_cast<unsigned long long>(r.committed), seconds, r.committed / seconds / 1e6,
                static_cast<unsigned long long>(r.past_end));
    roam::exit(0);
  });
}
