#pragma once
// roam::lu's insides (docs/design/lu.md): blocks as array elements, a
// scheduler per PE that runs their work in critical-path order and asks for
// factored panels within a memory bound.
//
// Step k of the right-looking factorization, for the n_b×n_b blocks (i, j):
//   panel    blocks (i ≥ k, k) travel to the PE of (k, k), which factors the
//            m×b panel with partial pivoting (kernels.cpp) and sends it to
//            every PE that asked (each asks ahead, while its cache has room)
//   swaps    each column j > k exchanges the rows the pivots name, between
//            its blocks of rows ≥ k (memory moves on one PE, messages across)
//   U        the top block (k, j) becomes L_kk⁻¹ A_kj and goes to the PEs of
//            the column's blocks below it
//   update   A_ij −= L_ik U_kj for i, j > k
// A PE runs one piece of work per message to itself, the next panel's
// column first, so it factors panel k+1 while step k's updates go on.
//
// A PE keeps its blocks in column-major stores, one per set of block
// columns that have the same local block rows (one store for the
// block-cyclic maps): an update is then one dgemm over the PE's rows of
// several adjacent columns at once (dgemm runs at 32-42 GFlop/s with
// N = b = 128 and 47 with N ≥ 512 here), and a step's row exchanges in a
// column one loop over its columns.
#include <roam/lu/lu.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "kernels.hpp"

namespace roam::lu {
namespace detail {

using clock = std::chrono::steady_clock;

struct config {
  std::int64_t n = 0;      // order of the matrix
  std::int32_t b = 1;      // block size
  std::int32_t nb = 1;     // blocks per side: the matrix is padded to nb·b
  double memory = 0.5;
  std::int32_t lookahead = 0;
  bool spread = false;  // panels factored where their blocks are (panel_mode::distributed)
  void pup(roam::pup_er& p) { p | n | b | nb | memory | lookahead | spread; }
  std::int64_t padded() const { return static_cast<std::int64_t>(nb) * b; }
  // Rows and columns of the identity past n, at the end of the last block
  // row and column. The work skips them: they would not change (the
  // padding's rows of L and columns of U are zero), and with n = 4000,
  // b = 128 they were 7% of the flops.
  std::int64_t pad() const { return padded() - n; }
  std::size_t cells() const { return static_cast<std::size_t>(b) * static_cast<std::size_t>(b); }
};

// splitmix64: the matrix is the same whatever the placement and order.
inline std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
inline double unit_interval(std::uint64_t bits) { return static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0); }

struct sched;

// ---- a block ---------------------------------------------------------------
// Block (i, j) of the matrix, on the PE its map gives. Its b×b entries live
// in that PE's scheduler's store (column-major, leading dimension ld), so
// that the PE's blocks of a column are one matrix for BLAS. Blocks do not
// move (at_sync is never called).
struct block : roam::element<block, roam::index<2>> {
  block(config c, roam::group_proxy<sched> s) : cfg(c), scheds(s) {}
  explicit block(roam::migrating) {}

  std::int32_t row() const { return this_index()[0]; }
  std::int32_t col() const { return this_index()[1]; }
  std::pair<double*, std::int64_t> data() const;

  // Entry (r, c) of the padded matrix: `value` inside n×n, the identity outside.
  template <class F>
  void fill(F value) {
    auto [a, ld] = data();
    const std::int64_t r0 = static_cast<std::int64_t>(row()) * cfg.b, c0 = static_cast<std::int64_t>(col()) * cfg.b;
    for (std::int32_t c = 0; c < cfg.b; ++c)
      for (std::int32_t r = 0; r < cfg.b; ++r) {
        const std::int64_t gr = r0 + r, gc = c0 + c;
        a[r + c * ld] = gr < cfg.n && gc < cfg.n ? value(gr, gc) : (gr == gc ? 1.0 : 0.0);
      }
  }
  void fill_random(std::uint64_t seed, roam::callback<void> done) {
    fill([seed](std::int64_t r, std::int64_t c) {
      return random_entry(seed, static_cast<std::uint64_t>(r), static_cast<std::uint64_t>(c));
    });
    contribute(done);
  }
  void set_part(std::vector<double> part, roam::callback<void> done) {
    auto [a, ld] = data();
    for (std::int32_t c = 0; c < cfg.b; ++c)
      std::memcpy(a + c * ld, part.data() + static_cast<std::size_t>(c) * static_cast<std::size_t>(cfg.b),
                  static_cast<std::size_t>(cfg.b) * sizeof(double));
    contribute(done);
  }
  void get_part(roam::callback<std::vector<std::vector<double>>> done) {
    auto [a, ld] = data();
    std::vector<double> out{static_cast<double>(row()), static_cast<double>(col())};
    for (std::int32_t c = 0; c < cfg.b; ++c) out.insert(out.end(), a + c * ld, a + c * ld + cfg.b);
    contribute(std::move(out), roam::concat, done);
  }
  void where(roam::callback<std::vector<std::vector<std::int64_t>>> done) {
    contribute(std::vector<std::int64_t>{row(), col(), static_cast<std::int64_t>(roam::my_pe().value())}, roam::concat, done);
  }
  // A block's entries are in its PE's store, which does not travel: moving
  // a block would lose them, so it is refused by name. (A checkpoint is
  // refused before this, through its callback: the scheduler has no pup.)
  void pup(roam::pup_er&) {
    roam::abort("roam::lu: block (" + std::to_string(row()) + ", " + std::to_string(col()) +
                ") of a matrix cannot move (its entries stay in its PE's store; docs/design/lu.md)");
  }

  config cfg;
  roam::group_proxy<sched> scheds;
};

// ---- the scheduler of a PE --------------------------------------------------
struct sched : roam::group_member<sched> {
  // Every process's BLAS single-threaded (each PE is one core); the caller's
  // process is not the only one.
  explicit sched(config c) : cfg(c) { single_threaded_blas(); }

  // Block columns with the same local block rows, stored as one matrix.
  struct store {
    std::vector<std::int32_t> rows;  // block rows here, ascending
    std::vector<std::int32_t> cols;  // block columns, ascending
    std::vector<double> a;           // (rows·b) × (cols·b), column-major
    std::int64_t ld = 0;
  };

  // The placement, learnt from the blocks once (create); the stores.
  void setup(std::vector<std::uint32_t> owners, roam::callback<void> done);
  void warm_up();
  void warm(roam::buffer<double> slab_sized);
  void setup_complete();
  roam::callback<void> setup_done;
  bool setup_ran = false;
  std::int32_t warm_expected = 0, warm_received = 0;

  std::uint32_t owner_of(std::int32_t i, std::int32_t j) const { return owner[index(i, j)]; }
  std::size_t index(std::int32_t i, std::int32_t j) const {
    return static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * static_cast<std::size_t>(cfg.nb);
  }
  store& store_for(std::int32_t j) { return stores[static_cast<std::size_t>(store_of[static_cast<std::size_t>(j)])]; }
  // Block (i, j) of this PE: its first entry and the leading dimension.
  std::pair<double*, std::int64_t> at(std::int32_t i, std::int32_t j) {
    if (owner_of(i, j) != me)
      roam::abort("roam::lu: block (" + std::to_string(i) + ", " + std::to_string(j) + ") is not on PE " + std::to_string(me));
    store& s = store_for(j);
    const std::int64_t r = static_cast<std::int64_t>(row_at[index(i, j)]) * cfg.b;
    const std::int64_t c = static_cast<std::int64_t>(col_at[static_cast<std::size_t>(j)]) * cfg.b;
    return {s.a.data() + r + c * s.ld, s.ld};
  }
  double* row_ptr(std::int64_t r, std::int32_t j);
  // Buffers of nb·b × b doubles for panels and their parts, used again once
  // nobody holds them: fresh memory costs a page fault per 4 KiB, which on
  // this kind of VM made gathering a panel 5x slower than factoring it.
  roam::buffer<double>& slab();
  std::uint64_t panel_bytes(std::int32_t k) const {
    return static_cast<std::uint64_t>(cfg.nb - k) * cfg.cells() * sizeof(double);
  }
  // The first of column j's local rows below row block s (rows_in_col is ascending).
  std::size_t first_below(std::int32_t j, std::int32_t s) const;

  // ---- one factorization --------------------------------------------------
  struct column {
    std::int32_t step = 0;
    bool swap_started = false, swapped = false, top_done = false, update_queued = false, updated = false,
         finished = false;
    std::int32_t expect = 0, got = 0;
  };
  struct panel {
    roam::buffer<double> data;
    std::int64_t m = 0;
    std::int32_t consumers = 0;
    std::map<std::int32_t, roam::buffer<double>> gathered_l;  // per store: its rows of L, when not a run of the panel
  };
  struct factored {
    roam::buffer<double> data;
    std::vector<std::int64_t> piv;
    std::int64_t m = 0;
    std::uint32_t pullers = 0;
    std::vector<std::int32_t> ids;  // a distributed panel's part: this PE's block rows (data m×b); empty: the whole panel
  };
  struct incoming_rows {
    std::vector<std::int64_t> ids;
    std::vector<double> values;
  };
  enum kind : std::int32_t { factor_work = 0, trsm_work = 1, update_work = 2 };
  // (class, step, column, kind): the panel first, then the next panel's
  // column, then the rest by step and column.
  using work = std::tuple<std::int32_t, std::int32_t, std::int32_t, std::int32_t>;

  // A factorization's state, made ready before its start message: the
  // other PEs' panels, rows and U blocks may come first.
  void reset();
  void start(std::uint32_t caller);

  // Moves column j on as far as its inputs allow.
  void advance(std::int32_t j);

  void send_panel_part(std::int32_t j);

  // The rows of column j that step s's pivots exchange. All of them here:
  // the exchanges in order, one dswap each. Otherwise every row that leaves
  // a block here is read first, then what arrives is written.
  void begin_swap(std::int32_t s, std::int32_t j);
  std::vector<double> read_row(std::int64_t r, std::int32_t j);
  void write_row(std::int64_t r, std::int32_t j, const double* v);
  void place_rows(std::int32_t j, const incoming_rows& in);
  void rows(std::int32_t s, std::int32_t j, std::vector<std::int64_t> ids, std::vector<double> values);

  // ---- the panel ----------------------------------------------------------
  void panel_part(std::int32_t k, std::vector<std::int32_t> ids, roam::buffer<double> part);
  void factor_panel(std::int32_t k);
  // Asks for the next panels in order while the cache has room (always for
  // one), before they exist: the panel's PE sends each as soon as it is
  // factored, to every PE that asked.
  void try_pull();
  void pull(std::int32_t k, std::uint32_t from);
  void panel_data(std::int32_t k, std::vector<std::int64_t> p, roam::buffer<double> data, std::int64_t m);
  void release(std::int32_t k);
  void consumed(std::int32_t k, std::int32_t uses = 1);

  // ---- a panel factored where its blocks are (config::spread) -------------
  // Column c of panel k: every PE of the panel sends the diagonal block's PE
  // (the leader) its best candidate row (largest |a|, then lowest row, as
  // idamax); the leader picks the pivot and sends it with its own row c to
  // the others; the pivot's PE writes that row in the pivot's place, and
  // every PE scales its rows and updates the rest of the leaf. The leaves
  // and the updates between them are those of the gathered kernel's
  // recursion (kernels.cpp), so the arithmetic is the same: the leader
  // solves U₁₂ on its top rows and sends it, every PE runs its rows' dgemm.
  // When the last column is done, each PE sends its part to the PEs that
  // asked for the panel (they all ask each of the panel's PEs).
  struct spread_panel {
    bool joined = false;
    double* a = nullptr;  // this PE's rows of the panel, in its store
    std::int64_t ld = 0, h = 0;
    std::int32_t got = 0;  // leader: candidates of the current column
    double best = -1;
    std::int64_t best_row = -1;
    std::vector<double> best_content;
    std::vector<std::int64_t> piv;
  };
  bool spread_here(std::int32_t k) const { return cfg.spread && panel_pes[static_cast<std::size_t>(k)].size() > 1; }
  void join_panel(std::int32_t k);
  // Candidates for column c: local rows from `c` on at the leader (the
  // diagonal block is its first), all rows elsewhere.
  std::int64_t first_candidate(std::int32_t k, std::int64_t c) const { return owner_of(k, k) == me ? c : 0; }
  std::int64_t global_row(std::int32_t k, std::int64_t local) const;
  std::int64_t local_row(std::int32_t k, std::int64_t global) const;
  void send_candidate(std::int32_t k, std::int64_t c);
  void candidate(std::int32_t k, std::int64_t c, double value, std::int64_t row, std::vector<double> content);
  void choose_pivot(std::int32_t k, std::int64_t c);
  void pivot(std::int32_t k, std::int64_t c, std::int64_t p, std::vector<double> pivot_row, std::vector<double> old_row);
  void panel_update(std::int32_t k, std::int64_t mid, std::vector<double> u);
  void panel_done(std::int32_t k);
  // A PE's part of distributed panel k: its block rows, their entries (ids.size()·b × b), and the pivots from the leader.
  void spread_part(std::int32_t k, std::vector<std::int32_t> ids, std::vector<std::int64_t> p, roam::buffer<double> data);
  roam::buffer<double> assemble(std::int32_t k);
  std::vector<std::vector<std::uint32_t>> panel_pes;  // per block column: the PEs of its blocks on and below the diagonal
  std::vector<std::int64_t> leaf_end, update_from, update_to;  // the kernel's recursion over b columns
  std::map<std::int32_t, spread_panel> spreads;
  std::map<std::int32_t, std::vector<std::int64_t>> spread_piv;
  std::int32_t spreading = 0;  // distributed panels this PE is in: its update pieces are short meanwhile

  // ---- U and the updates --------------------------------------------------
  // U_sj: in place when the top block is here, else a copy from its PE.
  struct ublock {
    roam::buffer<double> copy;
  };
  // U_sj = L_ss⁻¹ A_sj for column j and the columns after it in its store
  // whose solves of step s are queued too: one dtrsm.
  void trsm(std::int32_t s, std::int32_t j);
  // Column j and the next columns of its store with the same work of step
  // s queued, taken off the queue (at most max_batch).
  std::vector<std::int32_t> take_batch(std::int32_t s, std::int32_t j, std::int32_t what);
  void u_block(std::int32_t s, std::int32_t j, roam::buffer<double> u);
  // The PE's rows below s of L_{·s}, as one matrix: a stretch of the panel
  // when they are consecutive block rows, else gathered once per store.
  std::pair<const double*, std::int64_t> l_rows(std::int32_t s, std::int32_t j);
  // A_{i>s, j..} −= L_{i>s, s} U_{s, j..} for column j and the columns after
  // it in its store whose updates of step s are queued too: one dgemm.
  // One piece of work stays short (about update_flops): a PE answers the
  // messages of the critical path (panel parts, pulls) between pieces, and
  // in a process of its own (non-SMP) it moves MPI's traffic on only then.
  void update(std::int32_t s, std::int32_t j);
  struct partial_update {
    std::vector<std::int32_t> batch;
    std::int64_t rows_done = 0;
    std::vector<double> joined;  // U of the batch side by side, when it came from elsewhere
  };
  static constexpr std::int64_t update_flops = std::int64_t{200} << 20;  // ~4 ms of dgemm here
  static constexpr std::int64_t spread_update_flops = std::int64_t{2} << 20;  // ~50 µs
  static constexpr std::size_t max_batch = 8;  // N up to 8 b: dgemm's rate flattens from N ≈ 4 b

  // ---- running the work ---------------------------------------------------
  void queue(work w);
  void run();

  void finish();
  // On the caller's PE: every PE's figures, made into the future's value.
  void factored_all(std::vector<std::vector<std::int64_t>> all);

  // ---- the solve: a vector that visits the blocks in order ---------------
  // Forward: (k, k) applies step k's exchanges and L_kk⁻¹, then (i > k, k)
  // subtract L_ik y_k; backward: (k, k) applies U_kk⁻¹, then (i < k, k)
  // subtract U_ik x_k. Visits on one PE run in one go.
  void solve_visit(std::int32_t phase, std::int32_t k, std::int32_t i, roam::buffer<double> v,
                   roam::callback<std::vector<double>> done);

  // ---- HPL's residual -----------------------------------------------------
  // Rows of A x and of |A| over this PE's blocks, A made again from `seed`.
  void residual_part(std::uint64_t seed, roam::buffer<double> x, roam::callback<std::vector<double>> done);

  config cfg;
  std::vector<std::uint32_t> owner;
  std::uint32_t me = 0;
  std::vector<std::vector<std::int32_t>> rows_in_col;
  std::vector<store> stores;
  std::vector<std::int32_t> store_of, col_at, row_at;

  bool running = false, run_posted = false, factored_ok = false, ended_early = false;
  std::uint32_t caller_pe = 0;
  clock::time_point started_at{};
  roam::callback<factor_stats> factor_done;
  std::vector<column> cols;
  std::vector<std::vector<std::int64_t>> piv;  // kept after the factorization: the solve's
  std::vector<bool> have_panel;
  std::map<std::int32_t, panel> cache;
  std::map<std::pair<std::int32_t, std::int32_t>, ublock> ublocks;
  std::map<std::pair<std::int32_t, std::int32_t>, std::vector<incoming_rows>> early;
  std::map<std::int32_t, std::vector<std::pair<std::vector<std::int32_t>, roam::buffer<double>>>> gathers;
  std::map<std::int32_t, std::int32_t> gathered;
  std::map<std::int32_t, factored> done_panels;
  std::map<std::int32_t, std::vector<std::uint32_t>> waiting;  // PEs that asked for a panel not factored yet
  std::int32_t next_pull = 0, held_panels = 0, most_held = 0;
  std::uint64_t held = 0, peak = 0, budget = 0;
  std::int64_t swaps = 0, zero_column = -1;
  double busy[4] = {0, 0, 0, 0};  // seconds in panels, U solves, updates, row exchanges
  std::set<work> ready;
  std::map<std::pair<std::int32_t, std::int32_t>, partial_update> partial;
  std::vector<roam::buffer<double>> pool;
};

struct state {
  config cfg;
  roam::array_proxy<block> blocks;
  roam::group_proxy<sched> scheds;
  std::vector<std::uint32_t> owner;
};

}  // namespace detail
}  // namespace roam::lu
