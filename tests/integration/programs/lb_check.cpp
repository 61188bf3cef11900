// Load balancing at sync points checks itself, on any transport (issue #14):
// every element of an array takes part in three sync steps and, around them,
// sends tokens to its neighbour, hears a broadcast and contributes to
// reductions that straddle each step (even elements contribute before their
// at_sync, odd ones after their resume). The program then checks, exactly:
//   - resume_from_sync reached every element once per step;
//   - under +balancer Rotate (the default expectation), after step s every
//     element is on PE (q + 1 + s mod (P - 1)) mod P, q its PE at at_sync:
//     on 2 or more PEs every element moves at every step, across processes
//     too (packed moves);
//   - every token arrived once, with its step, and the broadcast once;
//   - each straddling reduction gave its exact sum, in order;
//   - PE 0 saw three balancing steps.
// It prints "lb_check: OK" and exits 0 only if all of it holds.
//   lb_check [ELEMENTS_PER_PE=4] [rotate|any] +balancer NAME [runtime options]
// `any`: the strategy is not Rotate; where elements go is not checked.
#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include <roam/roam.hpp>

namespace {

constexpr int steps = 3;

// Reduction results, in order: on global PE 0 only.
std::vector<long> g_sums;
void on_sum(long v) { g_sums.push_back(v); }

// Totals: resumes, tokens, sum of the tokens' steps, misplaced after a step,
// broadcasts heard, elements, resumes out of turn.
using totals = std::array<long, 7>;

struct lb_cell : roam::element<lb_cell> {
  lb_cell() = default;
  explicit lb_cell(roam::migrating) {}
  lb_cell(int elements, bool rotate) : n(elements), check_place(rotate) {}
  void pup(roam::pup_er& p) {
    p | n | check_place | step | resumes | tokens | token_steps | misplaced | heard | waiting | out_of_turn | pe_at_sync;
  }

  int n = 0;
  bool check_place = true;
  int step = 0;
  long resumes = 0, tokens = 0, token_steps = 0, misplaced = 0, heard = 0, out_of_turn = 0;
  bool waiting = false;
  std::uint32_t pe_at_sync = 0;

  long mine() const { return static_cast<long>(this_index()[0] + 1) * (step + 1); }
  bool early() const { return this_index()[0] % 2 == 0; }
  static roam::callback<long> sums() { return roam::callback<long>::function<&on_sum>(roam::pe_id{0}); }

  void start() { go(); }
  void go() {
    this_array()[(this_index()[0] + 1) % n].send<&lb_cell::token>(step);
    if (early()) contribute(mine(), roam::sum, sums());
    pe_at_sync = roam::my_pe().value();
    waiting = true;
    at_sync();
  }
  void token(int s) {
    ++tokens;
    token_steps += s;
  }
  void hear() { ++heard; }
  void resume_from_sync() {
    if (!waiting) ++out_of_turn;
    waiting = false;
    ++resumes;
    const std::uint32_t pes = roam::num_pes(), here = roam::my_pe().value();
    if (check_place) {
      const std::uint32_t expected = pes < 2 ? pe_at_sync : (pe_at_sync + 1 + static_cast<std::uint32_t>(step) % (pes - 1)) % pes;
      if (here != expected) ++misplaced;
    }
    if (!early()) contribute(mine(), roam::sum, sums());
    if (++step < steps) go();
  }
  void report(roam::callback<totals> cb) {
    contribute(totals{resumes, tokens, token_steps, misplaced, heard, 1, out_of_turn}, roam::sum, cb);
  }
};

roam::task<> quiet() {
  auto [f, p] = roam::make_future<>();
  roam::on_quiescence(roam::callback<>::to_future(p));
  co_await f;
}

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    const int per_pe = static_cast<int>(a.int_or(1, 4));
    const bool rotate = !(a.size() > 2 && a[2] == "any");
    const std::uint32_t pes = roam::num_pes();
    // One element more than a multiple of the PEs: the blocks are uneven.
    const int n = per_pe * static_cast<int>(pes) + 1;
    if (!roam::load_balancing_enabled()) {
      std::printf("lb_check: FAILED: load balancing is off (give +balancer NAME)\n");
      roam::exit(1);
      co_return;
    }
    auto cells = roam::create_array<lb_cell>(roam::array_options<1>({n}), n, rotate);
    cells.send<&lb_cell::start>();
    cells.send<&lb_cell::hear>();  // a broadcast racing the steps
    co_await quiet();
    const std::uint32_t lb_steps = roam::load_balancing_steps();
    auto [f, p] = roam::make_future<totals>();
    cells.send<&lb_cell::report>(roam::callback<totals>::to_future(p));
    const totals t = co_await f;

    std::string bad;
    auto expect = [&bad](const char* what, long got, long want) {
      if (got != want) bad += std::string(" ") + what + " " + std::to_string(got) + " (expected " + std::to_string(want) + ");";
    };
    const long all = static_cast<long>(n) * steps;
    expect("elements", t[5], n);
    expect("resumes", t[0], all);
    expect("resumes without at_sync", t[6], 0);
    expect("tokens", t[1], all);
    expect("token steps", t[2], static_cast<long>(n) * (steps * (steps - 1) / 2));
    expect("misplaced", t[3], 0);
    expect("broadcasts heard", t[4], n);
    expect("balancing steps", lb_steps, steps);
    expect("reductions", static_cast<long>(g_sums.size()), steps);
    for (std::size_t s = 0; s < g_sums.size(); ++s)
      expect(("reduction " + std::to_string(s)).c_str(), g_sums[s], static_cast<long>(s + 1) * n * (n + 1) / 2);
    std::printf("lb_check: %s (%u pes, %d elements, %d sync steps, %u balancing steps, %ld resumes, %ld tokens, "
                "placement %s)%s\n",
                bad.empty() ? "OK" : "FAILED", pes, n, steps, lb_steps, t[0], t[1], rotate ? "checked" : "not checked",
                bad.c_str());
    roam::exit(bad.empty() ? 0 : 1);
  });
}
