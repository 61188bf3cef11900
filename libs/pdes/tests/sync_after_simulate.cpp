// Sync steps after a parallel simulation (issue #35, item 1): a finished
// simulation leaves nothing that later sync steps wait for.
//
//   sync_after_simulate [--simulations N] [--own-steps K] [--stuck] [runtime options]
//
// Runs N optimistic PHOLD simulations one after the other, each balancing
// every 4 GVT rounds (when the program balances: +balancer NAME), and checks
// that each commits the sequential engine's count; then the program's own
// array of ring elements takes K sync steps (at_sync, resume_from_sync) and
// checks that every element resumed K times, on whatever PE it ends up.
// Prints "sync_after_simulate: OK (...)" and exits 0 only if all of it holds.
// --stuck: element 0 of the program's array never calls at_sync, which the
// runtime must report (naming the element) instead of hanging.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <roam/pdes/phold.hpp>
#include <roam/pdes/sequential.hpp>
#include <roam/pdes/simulation.hpp>
#include <roam/roam.hpp>

namespace {

namespace pdes = roam::pdes;

struct settings {
  int simulations = 2;
  int own_steps = 3;
  bool stuck = false;
};

pdes::phold_model make_model() {
  pdes::phold_model m;
  m.remote = 0.5;
  m.lookahead = 0.1;
  m.mean = 0.9;
  m.start_events = 4;
  m.lps = 32;
  return m;
}

pdes::engine_options make_options() {
  pdes::engine_options o;
  o.lps = 32;
  o.end = 200;
  o.mode = pdes::synch::optimistic;
  o.lps_per_chare = 2;
  o.balance_every = 4;
  o.check_gvt = true;
  return o;
}

// The program's own iterative array: each step every element sends a token to
// its right neighbour, then calls at_sync; after K resumes it reports.
struct ring_cell : roam::element<ring_cell> {
  ring_cell() = default;
  explicit ring_cell(roam::migrating) {}
  ring_cell(int n, int steps, bool stuck) : n_(n), steps_(steps), stuck_(stuck) {}
  void pup(roam::pup_er& p) { p | n_ | steps_ | stuck_ | step_ | resumes_ | tokens_ | done_ | finished_ | reported_; }

  void start(roam::callback<long> done) {
    done_ = done;
    go();
  }
  void token() {
    ++tokens_;
    report_when_complete();
  }
  void resume_from_sync() {
    ++resumes_;
    if (++step_ < steps_) {
      go();
    } else {
      finished_ = true;
      report_when_complete();
    }
  }

 private:
  void go() {
    this_array()[(this_index()[0] + 1) % n_].send<&ring_cell::token>();
    if (stuck_ && this_index()[0] == 0) return;  // --stuck: this one never synchronises
    at_sync();
  }
  // A sync step does not wait for messages in flight: the last step's token
  // from the left neighbour may come after this element's last resume (seen
  // once in ~1500 runs under load), so the report waits for all of them.
  void report_when_complete() {
    if (!finished_ || reported_ || tokens_ < steps_) return;
    reported_ = true;
    contribute(resumes_ * 1000 + tokens_, roam::sum, done_);
  }
  int n_ = 0, steps_ = 0;
  bool stuck_ = false, finished_ = false, reported_ = false;
  int step_ = 0;
  long resumes_ = 0, tokens_ = 0;
  roam::callback<long> done_;
};

// The settings, or an error message in `error`.
settings parse(const roam::args& a, std::string& error) {
  settings s;
  for (std::size_t i = 1; i < a.size() && error.empty(); ++i) {
    const std::string& arg = a[i];
    if (arg == "--stuck") {
      s.stuck = true;
    } else if ((arg == "--simulations" || arg == "--own-steps") && i + 1 < a.size()) {
      const int v = std::atoi(a[++i].c_str());
      if (v < 0) error = arg + " must be 0 or more";
      (arg == "--simulations" ? s.simulations : s.own_steps) = v;
    } else {
      error = "unknown option '" + arg + "'";
    }
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    std::string error;
    const settings s = parse(a, error);
    if (!error.empty()) {
      std::fprintf(stderr, "sync_after_simulate: %s\nusage: sync_after_simulate [--simulations N] [--own-steps K] [--stuck]\n",
                   error.c_str());
      roam::exit(2);
      co_return;
    }
    std::string bad;
    // The sequential engine's count for the same model: what every run must commit.
    pdes::sequential_engine<pdes::phold_model> reference(make_model(), make_options().lps, make_options().end);
    const std::uint64_t expected = reference.run().committed;
    std::uint64_t balancing_steps = 0;
    for (int k = 0; k < s.simulations; ++k) {
      const pdes::run_stats r = co_await pdes::simulate(make_model(), make_options());
      if (r.committed != expected)
        bad += " simulation " + std::to_string(k) + " committed " + std::to_string(r.committed) + " (expected " +
               std::to_string(expected) + ");";
      balancing_steps += r.balancing_steps;
    }
    if (roam::load_balancing_enabled() && s.simulations > 0 && balancing_steps == 0)
      bad += " no simulation took a balancing step;";

    const int n = 3 * static_cast<int>(roam::num_pes()) + 1;
    long total = 0;
    if (s.own_steps > 0) {
      auto cells = roam::create_array<ring_cell>(roam::array_options<1>({n}), n, s.own_steps, s.stuck);
      auto [f, p] = roam::make_future<long>();
      cells.send<&ring_cell::start>(roam::callback<long>::to_future(p));
      total = co_await f;
      const long want = static_cast<long>(n) * s.own_steps * 1001;  // resumes * 1000 + tokens, per element
      if (total != want)
        bad += " own array: " + std::to_string(total) + " (expected " + std::to_string(want) + ");";
    }
    std::printf("sync_after_simulate: %s (%u pes, %d simulations of %llu events, %llu balancing steps in them, "
                "%d own sync steps of %d elements, %u load balancing steps in all)%s\n",
                bad.empty() ? "OK" : "FAILED", roam::num_pes(), s.simulations,
                static_cast<unsigned long long>(expected), static_cast<unsigned long long>(balancing_steps),
                s.own_steps, n, roam::load_balancing_steps(), bad.c_str());
    roam::exit(bad.empty() ? 0 : 1);
  });
}
