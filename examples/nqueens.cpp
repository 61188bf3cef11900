// nqueens: counts the placements of N non-attacking queens with an irregular
// tree of chares. Every partial board with fewer than GRAIN queens becomes a
// chare that spawns one child chare per legal next queen; deeper boards are
// finished sequentially. Each child's work message carries the priority
// -depth, so deeper (more urgent) boards run first and the search goes
// depth-first-ish instead of flooding the queues with shallow boards.
//
// Termination without quiescence detection: credit counting. The root holds
// credit C; every task splits its credit among its children and returns the
// rest (with its solution count) to the counter chare. The returned credit
// adds up to C exactly when every task has reported, whatever the order in
// which the reports arrive.
//   nqueens [N=8] [GRAIN=3] [+p N ...runtime options]
#include <bit>
#include <cstdint>
#include <cstdio>

#include <roam/roam.hpp>

#include "command_line.hpp"

namespace {

constexpr std::uint64_t total_credit = std::uint64_t{1} << 62;
// Reports jump ahead of search work on the counter's PE.
constexpr std::int32_t report_priority = -1'000'000;

// Known solution counts, N = 0..16.
constexpr long long known[] = {1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512};
constexpr int max_n = 16;

// A partial board as bit masks of the attacked columns on the next row.
struct board {
  std::int32_t row = 0;
  std::uint32_t cols = 0, left = 0, right = 0;
  template <class P>
  void pup(P& p) {
    p | row | cols | left | right;
  }
};

std::uint32_t free_squares(const board& b, int n) {
  const std::uint32_t all = (std::uint32_t{1} << n) - 1;
  return ~(b.cols | b.left | b.right) & all;
}

board place(const board& b, std::uint32_t bit) {
  return {b.row + 1, b.cols | bit, (b.left | bit) << 1, (b.right | bit) >> 1};
}

long long count_seq(const board& b, int n) {
  if (b.row == n) return 1;
  long long total = 0;
  for (std::uint32_t avail = free_squares(b, n); avail; avail &= avail - 1) total += count_seq(place(b, avail & -avail), n);
  return total;
}

}  // namespace

// Collects solutions and returned credit on one PE; fulfils `done` when all credit is back.
struct counter : roam::chare<counter> {
  explicit counter(roam::promise<long long> done) : done_(done) {}
  void report(std::uint64_t credit, long long solutions) {
    returned_ += credit;
    solutions_ += solutions;
    ++tasks_;
    if (returned_ == total_credit) {
      std::printf("nqueens: %lld tasks reported\n", tasks_);
      done_.set_value(solutions_);
    } else if (returned_ > total_credit) {
      roam::abort("nqueens: more credit returned than handed out");
    }
  }

 private:
  roam::promise<long long> done_;
  std::uint64_t returned_ = 0;
  long long solutions_ = 0;
  long long tasks_ = 0;
};

struct queens : roam::chare<queens> {
  queens(int n, int grain, roam::chare_proxy<counter> c) : n_(n), grain_(grain), counter_(c) {}

  void explore(board b, std::uint64_t credit) {
    long long found = 0;
    if (b.row >= grain_ || b.row == n_) {
      found = count_seq(b, n_);
    } else {
      std::uint32_t avail = free_squares(b, n_);
      std::uint64_t k = static_cast<std::uint64_t>(std::popcount(avail));
      if (k > 0) {
        const std::uint64_t share = credit / k;
        if (share == 0) roam::abort("nqueens: credit exhausted (GRAIN too deep)");
        for (; avail; avail &= avail - 1) {
          board child = place(b, avail & -avail);
          auto c = roam::create_chare<queens>(n_, grain_, counter_);
          c.send<&queens::explore>(roam::priority(-child.row), child, share);
          credit -= share;
        }
      }
    }
    counter_.send<&counter::report>(roam::priority(report_priority), credit, found);
    destroy_self();
  }

 private:
  int n_;
  int grain_;
  roam::chare_proxy<counter> counter_;
};

namespace {

constexpr examples::usage_text usage{"nqueens", "[N in 1..16] [GRAIN in 0..16]",
                                     "  N             queens on an N x N board (default 8)\n"
                                     "  GRAIN         boards with fewer queens become chares; deeper ones are searched\n"
                                     "                sequentially (default 3)\n",
                                     "nqueens 12 4 +p4"};

struct nqueens_args {
  long long n = 8;
  long long grain = 3;
};

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    const std::optional<nqueens_args> parsed =
        examples::read_command_line(a, usage, 2, {}, [](const examples::command_line& c) {
          return nqueens_args{c.whole(1, "N", 8LL, 1LL, static_cast<long long>(max_n)),
                              c.whole(2, "GRAIN", 3LL, 0LL, static_cast<long long>(max_n))};
        });
    if (!parsed) co_return;  // the usage is printed and the program ends
    const long long n = parsed->n;
    const long long grain = parsed->grain;
    auto [f, p] = roam::make_future<long long>();
    auto c = roam::create_chare_on<counter>(roam::pe_id{0}, p);
    auto root = roam::create_chare<queens>(static_cast<int>(n), static_cast<int>(grain), c);
    root.send<&queens::explore>(board{}, total_credit);
    long long v = co_await f;
    c.destroy();

    if (v == known[n]) {
      std::printf("nqueens(%lld) = %lld: OK (grain %lld, %u pes)\n", n, v, grain, roam::num_pes());
      roam::exit(0);
    } else {
      std::printf("nqueens(%lld) = %lld: WRONG, expected %lld\n", n, v, known[n]);
      roam::exit(1);
    }
  });
}
