// population_check: array reductions stay exact when the population changes
// on a PE that has already passed the reduction up (issue #11, item 1).
//
// A sparse array holds one worker per PE, which never moves, and "residents"
// (survivors of earlier rounds), which contribute every round. Each round
// inserts a fresh mover M and forces this timing with no race left to chance:
//   - the last PE b (a leaf of the reduction tree) passes round r up first:
//     its worker contributes r, and only then is M sent to b;
//   - M reaches b owing r, and on b it changes the population: it splits
//     (inserts two children, dies), grows (inserts one child before or after
//     its own contribution), dies without contributing, or just contributes.
// The children take over M's place: their first reduction is M's next one.
// Two ways to get M onto b late:
//   after:  M receives broadcast r where it was born (PE 0) without
//           contributing; b's worker then calls it over (come) and tells it
//           to act there (act): ordered by causality, so it works across
//           processes.
//   replay: M sits on another PE of b's process that is held busy (hold)
//           until b has passed r, then moves; b hands it broadcast r from
//           its broadcast history on arrival and M acts inside it.
// Every round's count and sum are checked exactly, and every round's future
// is fulfilled once.
//   population_check [rounds_per_kind=2] [only_kind=-1] [only_way=-1 (0 after, 1 replay)]
#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <roam/roam.hpp>

namespace {

enum kind : int { split, grow_before, grow_after, die, stay, kinds };
const char* kind_name(int k) {
  static const char* names[] = {"split", "grow (insert, then contribute)", "grow (contribute, then insert)",
                                "die without contributing", "contribute late"};
  return names[k];
}
constexpr int worker_weight = 1, mover_weight = 10;
int first_child_weight(int round) { return 100 + round; }
int second_child_weight(int round) { return 200 + round; }

using tally = std::vector<long>;  // {contributions, sum of weights}
using tally_cb = roam::callback<tally>;

roam::readonly<std::uint32_t> g_late_pe;   // b
roam::readonly<std::uint32_t> g_child_pe;  // where children and survivors go (never b)

// replay: set by b's worker once b has passed the round up; the held PE waits for it.
std::atomic<int> g_passed_round{-1};

struct cell : roam::element<cell> {
  cell() = default;
  cell(int weight, bool worker, bool resident) : weight_(weight), worker_(worker), resident_(resident) {}
  explicit cell(roam::migrating) {}

  void step(int round, int what, bool replay, tally_cb cb) {
    if (worker_ || resident_) {
      contribute(tally{1, weight_}, roam::sum, cb);
      if (worker_ && what >= 0 && my_pe() == *g_late_pe && roam::num_pes() > 1) call_mover(round, what, replay, cb);
      return;
    }
    // The mover: it owes this round. On one PE nothing can be late: it acts at once.
    if ((replay && my_pe() == *g_late_pe) || roam::num_pes() == 1) act(round, what, cb);
    // "after": it waits where it is for b's worker to call it over.
  }
  // The mover, held on its PE until b has passed `round` up (one process only).
  void hold(int round, roam::callback<> holding) {
    holding.send();
    while (g_passed_round.load(std::memory_order_acquire) < round) std::this_thread::yield();
    migrate_to(roam::pe_id{*g_late_pe});
  }
  void come(std::uint32_t pe) { migrate_to(roam::pe_id{pe}); }
  void act(int round, int what, tally_cb cb) {
    auto arr = this_array();
    // A child that takes over this round contributes to it in `begin`;
    // one inserted after the mover contributed joins the next round.
    auto child_at = [&](int idx, int w, bool takes_over) {
      arr.insert_on(roam::pe_id{*g_child_pe}, roam::index<1>{idx}, w, false, true);
      if (takes_over) arr[idx].send<&cell::begin>(cb);
    };
    switch (what) {
      case split:
        child_at(child_index(round, 0), first_child_weight(round), true);
        child_at(child_index(round, 1), second_child_weight(round), true);
        destroy_self();
        return;
      case grow_before:
        child_at(child_index(round, 0), first_child_weight(round), true);
        contribute(tally{1, weight_}, roam::sum, cb);
        break;
      case grow_after:
        contribute(tally{1, weight_}, roam::sum, cb);
        child_at(child_index(round, 0), first_child_weight(round), false);
        break;
      case die:
        destroy_self();
        return;
      case stay:
        contribute(tally{1, weight_}, roam::sum, cb);
        break;
    }
    resident_ = true;
    migrate_to(roam::pe_id{*g_child_pe});  // b must stay empty of all but its worker
  }
  // A child taking over the mover's place: its first contribution is the mover's round.
  void begin(tally_cb cb) { contribute(tally{1, weight_}, roam::sum, cb); }

  void pup(roam::pup_er& p) { p | weight_ | worker_ | resident_; }

  static int mover_index(int round) { return 1000 + round; }
  static int child_index(int round, int which) { return 2000 + 2 * round + which; }

 private:
  static std::uint32_t my_pe() { return roam::my_pe().value(); }
  void call_mover(int round, int what, bool replay, const tally_cb& cb) {
    if (replay) {
      g_passed_round.store(round, std::memory_order_release);
      return;
    }
    auto mover = this_array()[mover_index(round)];
    mover.send<&cell::come>(*g_late_pe);
    mover.send<&cell::act>(round, what, cb);
  }

  int weight_ = 0;
  bool worker_ = false;
  bool resident_ = false;
};

int failures = 0;
void expect(const std::string& what, long got, long want) {
  if (got == want) return;
  ++failures;
  std::printf("population_check: FAIL %s: got %ld, want %ld\n", what.c_str(), got, want);
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    const int per_kind = static_cast<int>(a.int_or(1, 2));
    const int only_kind = static_cast<int>(a.int_or(2, -1));
    const int only_way = static_cast<int>(a.int_or(3, -1));
    const std::uint32_t pes = roam::num_pes();
    g_late_pe = pes - 1;
    g_child_pe = pes == 1 ? 0u : (pes == 2 ? 0u : 1u);
    // replay holds a PE other than 0 (the broadcast root) and b, in b's
    // process, that is not b's parent in the broadcast tree: PE 1 when one
    // process has 3 or more PEs (a k-ary tree with k >= 2 over one node).
    const bool can_replay = roam::num_nodes() == 1 && pes >= 3;
    std::printf("population_check: %u pes in %u nodes, late pe %u, %d rounds per kind%s\n", pes, roam::num_nodes(),
                *g_late_pe, per_kind, can_replay ? ", replay too" : "");

    auto cells = roam::create_sparse_array<cell>();
    for (std::uint32_t p = 0; p < pes; ++p)
      cells.insert_on(roam::pe_id{p}, roam::index<1>{static_cast<int>(p)}, worker_weight, true, false);
    cells.done_inserting();
    int round = 0;
    // Round 0 has every worker built before any PE is held busy (an insertion
    // still on its way to a held PE would hold the broadcasts back for good).
    {
      auto [f, p] = roam::make_future<tally>();
      cells.send<&cell::step>(round++, -1, false, tally_cb::to_future(p));
      tally got = co_await f;
      expect("first census: contributions", got[0], pes);
    }

    long residents = 0, resident_weight = 0;
    for (int replay = 0; replay <= (can_replay ? 1 : 0); ++replay) {
      if (only_way >= 0 && replay != only_way) continue;
      for (int what = 0; what < kinds; ++what) {
        if (only_kind >= 0 && what != only_kind) continue;
        for (int rep = 0; rep < per_kind; ++rep, ++round) {
          const std::string name = std::string(replay ? "replay" : "after") + ", " + kind_name(what) + ", round " +
                                   std::to_string(round);
          // A fresh mover, built before the round's broadcast.
          cells.insert_on(roam::pe_id{replay ? 1u : 0u}, roam::index<1>{cell::mover_index(round)}, mover_weight, false, false);
          cells.done_inserting();
          if (replay) {
            auto [held, holding] = roam::make_future<>();
            cells[cell::mover_index(round)].send<&cell::hold>(round, roam::callback<>::to_future(holding));
            co_await held;
          }
          auto [f, p] = roam::make_future<tally>();
          cells.send<&cell::step>(round, what, replay != 0, tally_cb::to_future(p));
          tally got = co_await f;

          long want_n = static_cast<long>(pes) + residents, want_w = static_cast<long>(pes) * worker_weight + resident_weight;
          switch (what) {
            case split:
              want_n += 2;
              want_w += first_child_weight(round) + second_child_weight(round);
              residents += 2;
              resident_weight += first_child_weight(round) + second_child_weight(round);
              break;
            case grow_before:
              want_n += 2;
              want_w += mover_weight + first_child_weight(round);
              residents += 2;
              resident_weight += mover_weight + first_child_weight(round);
              break;
            case grow_after:  // the child joins the next round
              want_n += 1;
              want_w += mover_weight;
              residents += 2;
              resident_weight += mover_weight + first_child_weight(round);
              break;
            case die:
              break;
            case stay:
              want_n += 1;
              want_w += mover_weight;
              residents += 1;
              resident_weight += mover_weight;
              break;
          }
          expect(name + ": contributions", got[0], want_n);
          expect(name + ": sum of weights", got[1], want_w);
          if (failures > 0) {  // later rounds would inherit the damage: stop at the first
            std::printf("population_check: FAILED\n");
            roam::exit(1);
            co_return;
          }
        }
      }
    }
    // A last round over everybody, after quiescence: nothing was lost or counted twice.
    {
      auto [fq, pq] = roam::make_future<>();
      roam::on_quiescence(roam::callback<>::to_future(pq));
      co_await fq;
      auto [f, p] = roam::make_future<tally>();
      cells.send<&cell::step>(round, -1, false, tally_cb::to_future(p));  // no mover this time
      tally got = co_await f;
      expect("final census: contributions", got[0], static_cast<long>(pes) + residents);
      expect("final census: sum of weights", got[1], static_cast<long>(pes) * worker_weight + resident_weight);
    }
    std::printf("population_check: %d rounds, %ld residents\n", round, residents);
    std::printf("population_check: %s\n", failures == 0 ? "OK" : "FAILED");
    roam::exit(failures == 0 ? 0 : 1);
  });
}
