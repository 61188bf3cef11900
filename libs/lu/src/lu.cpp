// roam::lu (docs/design/lu.md): blocks as array elements, a scheduler per PE
// that runs their work in critical-path order and pulls factored panels
// within a memory bound.
//
// Step k of the right-looking factorization, for the n_b×n_b blocks (i, j):
//   panel    blocks (i ≥ k, k) travel to the PE of (k, k), which factors the
//            m×b panel with partial pivoting (kernels.cpp) and announces it;
//            every PE pulls it when its cache has room (pivots, L_kk, L_ik)
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
// N = b = 128 and 47 with N ≥ 512 here), and a row exchange one dswap.
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
  void pup(roam::pup_er& p) { p | n | b | nb | memory | lookahead; }
  std::int64_t padded() const { return static_cast<std::int64_t>(nb) * b; }
  std::size_t cells() const { return static_cast<std::size_t>(b) * static_cast<std::size_t>(b); }
};

// splitmix64: the matrix is the same whatever the placement and order.
std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
double unit_interval(std::uint64_t bits) { return static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0); }

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
  void pup(roam::pup_er& p) { p | cfg | scheds; }

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
  void setup(std::vector<std::uint32_t> owners, roam::callback<void> done) {
    owner = std::move(owners);
    me = roam::my_pe().value();
    const auto nb = static_cast<std::size_t>(cfg.nb);
    rows_in_col.assign(nb, {});
    for (std::int32_t j = 0; j < cfg.nb; ++j)
      for (std::int32_t i = 0; i < cfg.nb; ++i)
        if (owner_of(i, j) == me) rows_in_col[static_cast<std::size_t>(j)].push_back(i);
    store_of.assign(nb, -1);
    col_at.assign(nb, 0);
    row_at.assign(nb * nb, -1);
    std::map<std::vector<std::int32_t>, std::int32_t> by_rows;
    for (std::int32_t j = 0; j < cfg.nb; ++j) {
      const auto& rows = rows_in_col[static_cast<std::size_t>(j)];
      if (rows.empty()) continue;
      auto [it, fresh] = by_rows.try_emplace(rows, static_cast<std::int32_t>(stores.size()));
      if (fresh) stores.push_back(store{rows, {}, {}, 0});
      store& s = stores[static_cast<std::size_t>(it->second)];
      store_of[static_cast<std::size_t>(j)] = it->second;
      col_at[static_cast<std::size_t>(j)] = static_cast<std::int32_t>(s.cols.size());
      s.cols.push_back(j);
      for (std::size_t q = 0; q < rows.size(); ++q) row_at[index(rows[q], j)] = static_cast<std::int32_t>(q);
    }
    for (store& s : stores) {
      s.ld = static_cast<std::int64_t>(s.rows.size()) * cfg.b;
      s.a.assign(static_cast<std::size_t>(s.ld) * s.cols.size() * static_cast<std::size_t>(cfg.b), 0.0);
    }
    const double share = static_cast<double>(cfg.padded()) * static_cast<double>(cfg.padded()) * sizeof(double) /
                         static_cast<double>(roam::num_pes());
    budget = static_cast<std::uint64_t>(std::max(0.0, cfg.memory) * share);
    reset();
    contribute(done);
  }

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
  double* row_ptr(std::int64_t r, std::int32_t j) {
    auto [a, ld] = at(static_cast<std::int32_t>(r / cfg.b), j);
    (void)ld;
    return a + r % cfg.b;
  }
  // Buffers of nb·b × b doubles for panels and their parts, used again once
  // nobody holds them: fresh memory costs a page fault per 4 KiB, which on
  // this kind of VM made gathering a panel 5x slower than factoring it.
  roam::buffer<double>& slab() {
    for (auto& s : pool)
      if (s.use_count() == 1) return s;
    pool.push_back(roam::buffer<double>::uninitialized(static_cast<std::size_t>(cfg.padded()) * static_cast<std::size_t>(cfg.b)));
    return pool.back();
  }
  std::uint64_t panel_bytes(std::int32_t k) const {
    return static_cast<std::uint64_t>(cfg.nb - k) * cfg.cells() * sizeof(double);
  }
  // The first of column j's local rows below row block s (rows_in_col is ascending).
  std::size_t first_below(std::int32_t j, std::int32_t s) const {
    const auto& rows = rows_in_col[static_cast<std::size_t>(j)];
    return static_cast<std::size_t>(std::upper_bound(rows.begin(), rows.end(), s) - rows.begin());
  }

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
  void reset() {
    cols.assign(static_cast<std::size_t>(cfg.nb), {});
    have_panel.assign(static_cast<std::size_t>(cfg.nb), false);
    piv.resize(static_cast<std::size_t>(cfg.nb));
    cache.clear();
    ublocks.clear();
    early.clear();
    gathers.clear();
    gathered.clear();
    waiting.clear();
    partial.clear();
    next_pull = 0;
    held = peak = 0;
    held_panels = most_held = 0;
    swaps = 0;
    zero_column = -1;
    for (double& t : busy) t = 0;
  }
  void start(std::uint32_t caller) {
    if (running) roam::abort("roam::lu: factor() started while this matrix's last factorization was running");
    running = true;
    caller_pe = caller;
    if (ended_early) {
      ended_early = false;
      finish();
      return;
    }
    try_pull();
    for (std::int32_t j = 0; j < cfg.nb; ++j) advance(j);
  }

  // Moves column j on as far as its inputs allow.
  void advance(std::int32_t j) {
    column& c = cols[static_cast<std::size_t>(j)];
    const auto& rows = rows_in_col[static_cast<std::size_t>(j)];
    while (!c.finished) {
      const std::int32_t s = c.step;
      if (rows.empty() || rows.back() < s) {  // nothing of this column at or below row block s here
        c.finished = true;
        return;
      }
      if (s == j) {  // this column's panel: its rows ≥ j here go to the panel's PE
        send_panel_part(j);
        c.finished = true;
        return;
      }
      if (!c.swap_started) {
        if (!have_panel[static_cast<std::size_t>(s)]) return;  // panel s not here yet
        begin_swap(s, j);
      }
      if (c.got < c.expect) return;
      if (!c.swapped) {
        c.swapped = true;
        if (owner_of(s, j) == me)
          queue({j == s + 1 ? 1 : 2, s, j, trsm_work});
        else
          c.top_done = true;
        c.updated = first_below(j, s) == rows.size();  // no rows below the top here
      }
      if (!c.updated && !c.update_queued && ublocks.count({s, j}) != 0) {
        c.update_queued = true;
        queue({j == s + 1 ? 1 : 2, s, j, update_work});
      }
      if (!c.top_done || !c.updated) return;
      c = column{};
      c.step = s + 1;
    }
  }

  void send_panel_part(std::int32_t j) {
    const auto& rows = rows_in_col[static_cast<std::size_t>(j)];
    const std::size_t q0 = first_below(j, j - 1);  // rows ≥ j
    std::vector<std::int32_t> ids(rows.begin() + static_cast<std::ptrdiff_t>(q0), rows.end());
    const std::int64_t b = cfg.b, h = static_cast<std::int64_t>(ids.size()) * b;
    auto [a, ld] = at(ids.front(), j);
    roam::buffer<double>& s = slab();
    double* p = s.mutable_data();
    roam::buffer<double> part = s;
    for (std::int64_t c = 0; c < b; ++c) std::memcpy(p + c * h, a + c * ld, static_cast<std::size_t>(h) * sizeof(double));
    if (owner_of(j, j) == me)
      panel_part(j, std::move(ids), std::move(part));
    else
      this_group()[roam::pe_id{owner_of(j, j)}].send<&sched::panel_part>(roam::priority(-3), j, std::move(ids), std::move(part));
  }

  // The rows of column j that step s's pivots exchange. All of them here:
  // the exchanges in order, one dswap each. Otherwise every row that leaves
  // a block here is read first, then what arrives is written.
  void begin_swap(std::int32_t s, std::int32_t j) {
    const auto t0 = clock::now();
    column& c = cols[static_cast<std::size_t>(j)];
    c.swap_started = true;
    const auto& p = piv[static_cast<std::size_t>(s)];
    const std::int64_t base = static_cast<std::int64_t>(s) * cfg.b;
    const auto& rows = rows_in_col[static_cast<std::size_t>(j)];
    const std::size_t q_s = first_below(j, s - 1);
    const bool all_here = static_cast<std::int32_t>(rows.size() - q_s) == cfg.nb - s;
    if (all_here) {  // rows ≥ s·b are consecutive here, from block (s, j) on
      auto [a, ld] = at(s, j);
      apply_exchanges(a, ld, cfg.b, p.data(), cfg.b, base);
      busy[3] += std::chrono::duration<double>(clock::now() - t0).count();
      return;
    }
    std::unordered_map<std::int64_t, std::int64_t> source;  // position -> row whose old values land there
    auto now_at = [&](std::int64_t x) {
      auto it = source.find(x);
      return it == source.end() ? x : it->second;
    };
    for (std::int32_t r = 0; r < cfg.b; ++r) {
      const std::int64_t x = base + r, y = p[static_cast<std::size_t>(r)];
      if (x == y) continue;
      const std::int64_t sx = now_at(x), sy = now_at(y);
      source[x] = sy;
      source[y] = sx;
    }
    std::map<std::uint32_t, incoming_rows> out;
    std::vector<std::pair<std::int64_t, std::vector<double>>> moves;  // local position <- values
    std::set<std::uint32_t> senders;
    for (const auto& [pos, src] : source) {
      if (pos == src) continue;
      const std::uint32_t to = owner_of(static_cast<std::int32_t>(pos / cfg.b), j);
      const std::uint32_t from = owner_of(static_cast<std::int32_t>(src / cfg.b), j);
      if (from == me) {
        std::vector<double> values = read_row(src, j);
        if (to == me) {
          moves.emplace_back(pos, std::move(values));
        } else {
          auto& o = out[to];
          o.ids.push_back(pos);
          o.values.insert(o.values.end(), values.begin(), values.end());
        }
      } else if (to == me) {
        senders.insert(from);
      }
    }
    for (auto& [pos, values] : moves) write_row(pos, j, values.data());
    for (auto& [to, o] : out)
      this_group()[roam::pe_id{to}].send<&sched::rows>(roam::priority(-2), s, j, std::move(o.ids), std::move(o.values));
    c.expect = static_cast<std::int32_t>(senders.size());
    auto e = early.find({s, j});
    if (e != early.end()) {
      for (auto& in : e->second) place_rows(j, in);
      c.got = static_cast<std::int32_t>(e->second.size());
      early.erase(e);
    }
    busy[3] += std::chrono::duration<double>(clock::now() - t0).count();
  }
  std::vector<double> read_row(std::int64_t r, std::int32_t j) {
    const double* a = row_ptr(r, j);
    const std::int64_t ld = store_for(j).ld;
    std::vector<double> v(static_cast<std::size_t>(cfg.b));
    for (std::int32_t c = 0; c < cfg.b; ++c) v[static_cast<std::size_t>(c)] = a[c * ld];
    return v;
  }
  void write_row(std::int64_t r, std::int32_t j, const double* v) {
    double* a = row_ptr(r, j);
    const std::int64_t ld = store_for(j).ld;
    for (std::int32_t c = 0; c < cfg.b; ++c) a[c * ld] = v[c];
  }
  void place_rows(std::int32_t j, const incoming_rows& in) {
    for (std::size_t q = 0; q < in.ids.size(); ++q) write_row(in.ids[q], j, in.values.data() + q * static_cast<std::size_t>(cfg.b));
  }
  void rows(std::int32_t s, std::int32_t j, std::vector<std::int64_t> ids, std::vector<double> values) {
    column& c = cols[static_cast<std::size_t>(j)];
    incoming_rows in{std::move(ids), std::move(values)};
    if (c.step != s || !c.swap_started) {
      early[{s, j}].push_back(std::move(in));
      return;
    }
    place_rows(j, in);
    ++c.got;
    advance(j);
  }

  // ---- the panel ----------------------------------------------------------
  void panel_part(std::int32_t k, std::vector<std::int32_t> ids, roam::buffer<double> part) {
    auto& g = gathers[k];
    g.emplace_back(std::move(ids), std::move(part));
    if ((gathered[k] += static_cast<std::int32_t>(g.back().first.size())) == cfg.nb - k) {
      gathered.erase(k);
      queue({0, k, k, factor_work});
    }
  }
  void factor_panel(std::int32_t k) {
    const std::int64_t m = static_cast<std::int64_t>(cfg.nb - k) * cfg.b, b = cfg.b;
    roam::buffer<double>& mine = slab();
    double* d = mine.mutable_data();
    roam::buffer<double> data = mine;
    for (const auto& [ids, part] : gathers[k]) {
      const std::int64_t h = static_cast<std::int64_t>(ids.size()) * b;
      for (std::size_t q = 0; q < ids.size(); ++q) {
        const std::int64_t to = (ids[q] - k) * b, from = static_cast<std::int64_t>(q) * b;
        for (std::int64_t c = 0; c < b; ++c)
          std::memcpy(d + to + c * m, part.data() + from + c * h, static_cast<std::size_t>(b) * sizeof(double));
      }
    }
    gathers.erase(k);
    std::vector<std::int64_t> p(static_cast<std::size_t>(b));
    const std::int64_t zero = detail::factor_panel(d, m, b, m, p.data());
    const std::int64_t base = static_cast<std::int64_t>(k) * b;
    for (std::int64_t c = 0; c < b; ++c) {
      if (p[static_cast<std::size_t>(c)] != c) ++swaps;
      p[static_cast<std::size_t>(c)] += base;
    }
    // The padding's rows and columns are the identity's: past n the
    // columns are not the caller's.
    if (zero >= 0 && base + zero < cfg.n && (zero_column < 0 || base + zero < zero_column)) zero_column = base + zero;
    done_panels[k] = factored{std::move(data), std::move(p), m, roam::num_pes()};
    auto w = waiting.find(k);
    if (w != waiting.end()) {
      const std::vector<std::uint32_t> asked = std::move(w->second);
      waiting.erase(w);
      for (std::uint32_t pe : asked) pull(k, pe);
    }
  }
  // Asks for the next panels in order while the cache has room (always for
  // one), before they exist: the panel's PE sends each as soon as it is
  // factored, to every PE that asked.
  void try_pull() {
    while (next_pull < cfg.nb) {
      const std::uint64_t bytes = panel_bytes(next_pull);
      if (held > 0 && held + bytes > budget) return;
      if (cfg.lookahead > 0 && held_panels >= cfg.lookahead) return;
      held += bytes;
      ++held_panels;
      peak = std::max(peak, held);
      most_held = std::max(most_held, held_panels);
      const std::int32_t k = next_pull++;
      if (owner_of(k, k) == me)
        pull(k, me);
      else
        this_group()[roam::pe_id{owner_of(k, k)}].send<&sched::pull>(roam::priority(-3), k, me);
    }
  }
  void pull(std::int32_t k, std::uint32_t from) {
    auto it = done_panels.find(k);
    if (it == done_panels.end()) {  // not factored yet
      waiting[k].push_back(from);
      return;
    }
    factored& f = it->second;
    // The whole slab travels, also to another process: more bytes than the
    // panel's m·b doubles, but buffers of one size, which both sides keep
    // and use again (a fresh buffer costs a page fault per 4 KiB).
    if (from == me)
      panel_data(k, f.piv, f.data, f.m);
    else
      this_group()[roam::pe_id{from}].send<&sched::panel_data>(roam::priority(-3), k, f.piv, f.data, f.m);
    if (--f.pullers == 0) done_panels.erase(it);
  }
  void panel_data(std::int32_t k, std::vector<std::int64_t> p, roam::buffer<double> data, std::int64_t m) {
    piv[static_cast<std::size_t>(k)] = std::move(p);
    have_panel[static_cast<std::size_t>(k)] = true;
    // This PE's blocks of the panel take their factored rows.
    const std::int64_t b = cfg.b;
    const auto& rows = rows_in_col[static_cast<std::size_t>(k)];
    for (std::size_t q = first_below(k, k - 1); q < rows.size(); ++q) {
      auto [a, ld] = at(rows[q], k);
      for (std::int64_t c = 0; c < b; ++c)
        std::memcpy(a + c * ld, data.data() + (rows[q] - k) * b + c * m, static_cast<std::size_t>(b) * sizeof(double));
    }
    std::int32_t consumers = 0;
    for (std::int32_t j = k + 1; j < cfg.nb; ++j) {
      if (owner_of(k, j) == me) ++consumers;                       // the top block's solve
      if (first_below(j, k) < rows_in_col[static_cast<std::size_t>(j)].size()) ++consumers;  // the update below it
    }
    if (consumers > 0)
      cache[k] = panel{std::move(data), m, consumers, {}};
    else
      release(k);
    if (k == cfg.nb - 1) {
      finish();
      return;
    }
    for (std::int32_t j = k + 1; j < cfg.nb; ++j) advance(j);
  }
  void release(std::int32_t k) {
    held -= panel_bytes(k);
    --held_panels;
    try_pull();
  }
  void consumed(std::int32_t k, std::int32_t uses = 1) {
    auto it = cache.find(k);
    if ((it->second.consumers -= uses) == 0) {
      cache.erase(it);
      release(k);
    }
  }

  // ---- U and the updates --------------------------------------------------
  // U_sj: in place when the top block is here, else a copy from its PE.
  struct ublock {
    roam::buffer<double> copy;
  };
  // U_sj = L_ss⁻¹ A_sj for column j and the columns after it in its store
  // whose solves of step s are queued too: one dtrsm.
  void trsm(std::int32_t s, std::int32_t j) {
    std::vector<std::int32_t> batch = take_batch(s, j, trsm_work);
    const panel& pn = cache.at(s);
    auto [top, ld] = at(s, j);
    solve_unit_lower(pn.data.data(), pn.m, top, ld, cfg.b, static_cast<std::int64_t>(batch.size()) * cfg.b);
    consumed(s, static_cast<std::int32_t>(batch.size()));
    for (std::size_t q = 0; q < batch.size(); ++q) {
      const std::int32_t jj = batch[q];
      const double* u_top = top + static_cast<std::int64_t>(q) * cfg.b * ld;
      std::set<std::uint32_t> to;
      for (std::int32_t i = s + 1; i < cfg.nb; ++i) to.insert(owner_of(i, jj));
      to.erase(me);
      if (!to.empty()) {
        auto u = roam::buffer<double>::uninitialized(cfg.cells());
        for (std::int32_t c = 0; c < cfg.b; ++c)
          std::memcpy(u.mutable_data() + static_cast<std::size_t>(c) * static_cast<std::size_t>(cfg.b), u_top + c * ld,
                      static_cast<std::size_t>(cfg.b) * sizeof(double));
        for (std::uint32_t pe : to) this_group()[roam::pe_id{pe}].send<&sched::u_block>(roam::priority(-2), s, jj, u);
      }
      cols[static_cast<std::size_t>(jj)].top_done = true;
      ublocks[{s, jj}] = ublock{};
    }
    for (std::int32_t jj : batch) advance(jj);
  }
  // Column j and the next columns of its store with the same work of step
  // s queued, taken off the queue (at most max_batch).
  std::vector<std::int32_t> take_batch(std::int32_t s, std::int32_t j, std::int32_t what) {
    store& st = store_for(j);
    std::vector<std::int32_t> batch{j};
    for (std::size_t c = static_cast<std::size_t>(col_at[static_cast<std::size_t>(j)]) + 1;
         c < st.cols.size() && batch.size() < max_batch; ++c) {
      const std::int32_t jj = st.cols[c];
      auto it = ready.find({jj == s + 1 ? 1 : 2, s, jj, what});
      if (it == ready.end() || partial.count({s, jj}) != 0) break;  // not queued, or the rest of another batch
      ready.erase(it);
      batch.push_back(jj);
    }
    return batch;
  }
  void u_block(std::int32_t s, std::int32_t j, roam::buffer<double> u) {
    ublocks[{s, j}] = ublock{std::move(u)};
    advance(j);
  }
  // The PE's rows below s of L_{·s}, as one matrix: a stretch of the panel
  // when they are consecutive block rows, else gathered once per store.
  std::pair<const double*, std::int64_t> l_rows(std::int32_t s, std::int32_t j) {
    panel& pn = cache.at(s);
    const auto& rows = rows_in_col[static_cast<std::size_t>(j)];
    const std::size_t q = first_below(j, s);
    const std::int64_t b = cfg.b;
    if (rows.back() - rows[q] == static_cast<std::int32_t>(rows.size() - q) - 1)
      return {pn.data.data() + (rows[q] - s) * b, pn.m};
    auto& g = pn.gathered_l[store_of[static_cast<std::size_t>(j)]];
    const std::int64_t h = static_cast<std::int64_t>(rows.size() - q) * b;
    if (g.empty()) {
      roam::buffer<double>& scratch = slab();
      double* to = scratch.mutable_data();
      for (std::size_t r = q; r < rows.size(); ++r)
        for (std::int64_t c = 0; c < b; ++c)
          std::memcpy(to + static_cast<std::int64_t>(r - q) * b + c * h, pn.data.data() + (rows[r] - s) * b + c * pn.m,
                      static_cast<std::size_t>(b) * sizeof(double));
      g = scratch;
    }
    return {g.data(), h};
  }
  // A_{i>s, j..} −= L_{i>s, s} U_{s, j..} for column j and the columns after
  // it in its store whose updates of step s are queued too: one dgemm.
  // One piece of work stays short (about update_flops): a PE answers the
  // messages of the critical path (panel parts, pulls) between pieces, and
  // in a process of its own (non-SMP) it moves MPI's traffic on only then.
  void update(std::int32_t s, std::int32_t j) {
    auto pit = partial.find({s, j});
    if (pit == partial.end()) pit = partial.emplace(std::pair{s, j}, partial_update{take_batch(s, j, update_work), 0, {}}).first;
    const std::vector<std::int32_t>& batch = pit->second.batch;
    store& st = store_for(j);
    const std::size_t c0 = static_cast<std::size_t>(col_at[static_cast<std::size_t>(j)]);
    const std::int64_t b = cfg.b, wide = static_cast<std::int64_t>(batch.size()) * b;
    auto [l, ldl] = l_rows(s, j);
    const auto& rows = rows_in_col[static_cast<std::size_t>(j)];
    const std::size_t q = first_below(j, s);
    const std::int64_t h = static_cast<std::int64_t>(rows.size() - q) * b;
    const std::int64_t chunk = std::max<std::int64_t>(b, (update_flops / (2 * wide * b)) / b * b);
    const std::int64_t r0 = pit->second.rows_done, r1 = std::min(h, r0 + chunk);
    double* c = st.a.data() + static_cast<std::int64_t>(q) * b + static_cast<std::int64_t>(c0) * b * st.ld;
    const double* u = nullptr;
    std::int64_t ldu = 0;
    if (owner_of(s, j) == me) {  // U in place, in the row block above
      u = st.a.data() + static_cast<std::int64_t>(row_at[index(s, j)]) * b + static_cast<std::int64_t>(c0) * b * st.ld;
      ldu = st.ld;
    } else if (batch.size() == 1) {
      u = ublocks.at({s, j}).copy.data();
      ldu = b;
    } else {
      auto& joined = pit->second.joined;
      if (joined.empty()) {
        joined.resize(static_cast<std::size_t>(b * wide));
        for (std::size_t k = 0; k < batch.size(); ++k)
          std::memcpy(joined.data() + static_cast<std::int64_t>(k) * b * b, ublocks.at({s, batch[k]}).copy.data(),
                      cfg.cells() * sizeof(double));
      }
      u = joined.data();
      ldu = b;
    }
    subtract_product(l + r0, ldl, u, ldu, c + r0, st.ld, r1 - r0, wide, b);
    if (r1 < h) {
      pit->second.rows_done = r1;
      queue({j == s + 1 ? 1 : 2, s, j, update_work});
      return;
    }
    const std::vector<std::int32_t> done = std::move(pit->second.batch);
    partial.erase(pit);
    for (std::int32_t jj : done) {
      ublocks.erase({s, jj});
      cols[static_cast<std::size_t>(jj)].updated = true;
    }
    consumed(s, static_cast<std::int32_t>(done.size()));
    for (std::int32_t jj : done) advance(jj);
  }
  struct partial_update {
    std::vector<std::int32_t> batch;
    std::int64_t rows_done = 0;
    std::vector<double> joined;  // U of the batch side by side, when it came from elsewhere
  };
  static constexpr std::int64_t update_flops = std::int64_t{200} << 20;  // ~4 ms of dgemm here
  static constexpr std::size_t max_batch = 8;  // N up to 8 b: dgemm's rate flattens from N ≈ 4 b

  // ---- running the work ---------------------------------------------------
  void queue(work w) {
    ready.insert(w);
    if (!run_posted) {
      run_posted = true;
      this_group()[roam::pe_id{me}].send<&sched::run>();
    }
  }
  void run() {
    run_posted = false;
    if (ready.empty()) return;
    const work w = *ready.begin();
    ready.erase(ready.begin());
    const auto [cls, k, j, what] = w;
    (void)cls;
    const auto t0 = clock::now();
    if (what == factor_work)
      factor_panel(k);
    else if (what == trsm_work)
      trsm(k, j);
    else
      update(k, j);
    busy[what] += std::chrono::duration<double>(clock::now() - t0).count();
    if (!ready.empty() && !run_posted) {
      run_posted = true;
      this_group()[roam::pe_id{me}].send<&sched::run>();
    }
  }

  void finish() {
    if (!running) {  // every panel came before this PE's start message
      ended_early = true;
      return;
    }
    running = false;
    auto micros = [](double s) { return static_cast<std::int64_t>(s * 1e6); };
    std::vector<std::int64_t> mine{swaps,           zero_column,      static_cast<std::int64_t>(peak), most_held,
                                   static_cast<std::int64_t>(budget), micros(busy[0]), micros(busy[1]), micros(busy[2]),
                                   micros(busy[3])};
    reset();
    contribute(std::move(mine), roam::concat,
               roam::callback<std::vector<std::vector<std::int64_t>>>::to<&sched::factored_all>(
                   this_group()[roam::pe_id{caller_pe}]));
  }
  // On the caller's PE: every PE's figures, made into the future's value.
  void factored_all(std::vector<std::vector<std::int64_t>> all) {
    factor_stats s;
    s.seconds = std::chrono::duration<double>(clock::now() - started_at).count();
    for (const auto& v : all) {
      s.row_swaps += v[0];
      if (v[1] >= 0 && (s.zero_pivot_column < 0 || v[1] < s.zero_pivot_column)) s.zero_pivot_column = v[1];
      s.peak_panel_bytes = std::max(s.peak_panel_bytes, static_cast<std::uint64_t>(v[2]));
      s.most_panels_held = std::max(s.most_panels_held, static_cast<std::int32_t>(v[3]));
      s.budget_bytes = static_cast<std::uint64_t>(v[4]);
      s.panel_seconds += static_cast<double>(v[5]) * 1e-6;
      s.solve_u_seconds += static_cast<double>(v[6]) * 1e-6;
      s.update_seconds += static_cast<double>(v[7]) * 1e-6;
      s.swap_seconds += static_cast<double>(v[8]) * 1e-6;
    }
    s.singular = s.zero_pivot_column >= 0;
    factored_ok = !s.singular;
    factor_done.send(s);
  }

  // ---- the solve: a vector that visits the blocks in order ---------------
  // Forward: (k, k) applies step k's exchanges and L_kk⁻¹, then (i > k, k)
  // subtract L_ik y_k; backward: (k, k) applies U_kk⁻¹, then (i < k, k)
  // subtract U_ik x_k. Visits on one PE run in one go.
  void solve_visit(std::int32_t phase, std::int32_t k, std::int32_t i, roam::buffer<double> v,
                   roam::callback<std::vector<double>> done) {
    double* x = v.mutable_data();
    const std::int64_t b = cfg.b;
    for (;;) {
      auto [a, ld] = at(i, k);
      double* xk = x + k * b;
      if (phase == 0) {
        if (i == k) {
          const auto& p = piv[static_cast<std::size_t>(k)];
          for (std::int64_t r = 0; r < b; ++r) std::swap(x[k * b + r], x[p[static_cast<std::size_t>(r)]]);
          solve_triangle(a, ld, xk, b, false);
        } else {
          subtract_matvec(a, ld, xk, x + i * b, b, b);
        }
        if (i + 1 < cfg.nb) {
          ++i;
        } else if (k + 1 < cfg.nb) {
          i = k = k + 1;
        } else {
          phase = 1;
          i = k = cfg.nb - 1;
        }
      } else {
        if (i == k)
          solve_triangle(a, ld, xk, b, true);
        else
          subtract_matvec(a, ld, xk, x + i * b, b, b);
        if (i == k && k == 0) break;  // (0, 0) is the last visit
        if (i == k)
          i = k - 1;  // the blocks above the diagonal, bottom up
        else if (i > 0)
          --i;
        else
          i = k = k - 1;  // the next diagonal block
      }
      if (owner_of(i, k) != me) {
        this_group()[roam::pe_id{owner_of(i, k)}].send<&sched::solve_visit>(phase, k, i, std::move(v), std::move(done));
        return;
      }
    }
    done.send(std::vector<double>(x, x + cfg.n));
  }

  // ---- HPL's residual -----------------------------------------------------
  // Rows of A x and of |A| over this PE's blocks, A made again from `seed`.
  void residual_part(std::uint64_t seed, roam::buffer<double> x, roam::callback<std::vector<double>> done) {
    const std::int64_t n = cfg.n;
    std::vector<double> sums(static_cast<std::size_t>(2 * n), 0.0);
    for (std::int32_t j = 0; j < cfg.nb; ++j)
      for (std::int32_t i : rows_in_col[static_cast<std::size_t>(j)]) {
        const std::int64_t r0 = static_cast<std::int64_t>(i) * cfg.b, c0 = static_cast<std::int64_t>(j) * cfg.b;
        for (std::int64_t r = r0; r < std::min(n, r0 + cfg.b); ++r)
          for (std::int64_t c = c0; c < std::min(n, c0 + cfg.b); ++c) {
            const double v = random_entry(seed, static_cast<std::uint64_t>(r), static_cast<std::uint64_t>(c));
            sums[static_cast<std::size_t>(r)] += v * x[static_cast<std::size_t>(c)];
            sums[static_cast<std::size_t>(n + r)] += std::abs(v);
          }
      }
    contribute(std::move(sums), roam::sum, done);
  }

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

std::pair<double*, std::int64_t> block::data() const {
  sched* s = scheds.local();
  if (s == nullptr) roam::abort("roam::lu: block (" + std::to_string(row()) + ", " + std::to_string(col()) + ") has no scheduler on its PE");
  return s->at(row(), col());
}

struct state {
  config cfg;
  roam::array_proxy<block> blocks;
  roam::group_proxy<sched> scheds;
  std::vector<std::uint32_t> owner;
};

}  // namespace detail

namespace {
std::uint32_t grid_rows(std::uint32_t pes) {
  auto pr = static_cast<std::uint32_t>(std::sqrt(static_cast<double>(pes)));
  while (pr > 1 && pes % pr != 0) --pr;
  return std::max<std::uint32_t>(pr, 1);
}
std::uint32_t block_cyclic_fn(const roam::index<2>& ij, const roam::index<2>&, std::uint32_t pes) {
  const std::uint32_t pr = grid_rows(pes), pc = pes / pr;
  return (static_cast<std::uint32_t>(ij[0]) % pr) * pc + static_cast<std::uint32_t>(ij[1]) % pc;
}
std::uint32_t column_cyclic_fn(const roam::index<2>& ij, const roam::index<2>&, std::uint32_t pes) {
  return static_cast<std::uint32_t>(ij[1]) % pes;
}
std::uint32_t row_cyclic_fn(const roam::index<2>& ij, const roam::index<2>&, std::uint32_t pes) {
  return static_cast<std::uint32_t>(ij[0]) % pes;
}
}  // namespace

roam::array_map block_cyclic() { return roam::custom_map<&block_cyclic_fn>(); }
roam::array_map column_cyclic() { return roam::custom_map<&column_cyclic_fn>(); }
roam::array_map row_cyclic() { return roam::custom_map<&row_cyclic_fn>(); }

double random_entry(std::uint64_t seed, std::uint64_t r, std::uint64_t c) noexcept {
  const std::uint64_t key = detail::mix(seed * 0x632be59bd9b4e019ull + r) ^ (c * 0xd1342543de82ef95ull);
  return detail::unit_interval(detail::mix(key)) - 0.5;
}

std::vector<double> random_vector(std::uint64_t seed, std::size_t n) {
  std::vector<double> v(n);
  for (std::size_t r = 0; r < n; ++r) v[r] = detail::unit_interval(detail::mix(detail::mix(seed ^ 0x5bd1e995ull) + r)) - 0.5;
  return v;
}

roam::task<matrix> matrix::create(std::size_t n, options o) {
  if (n == 0) throw std::invalid_argument("roam::lu::matrix::create: n must be at least 1");
  if (o.block < 1) throw std::invalid_argument("roam::lu::matrix::create: block size " + std::to_string(o.block) + " (at least 1)");
  if (o.memory < 0 || !std::isfinite(o.memory))
    throw std::invalid_argument("roam::lu::matrix::create: memory fraction must be a number ≥ 0");
  if (o.lookahead < 0) throw std::invalid_argument("roam::lu::matrix::create: lookahead must be ≥ 0");
  detail::single_threaded_blas();
  detail::config c;
  c.n = static_cast<std::int64_t>(n);
  c.b = static_cast<std::int32_t>(std::min<std::size_t>(static_cast<std::size_t>(o.block), n));
  c.nb = static_cast<std::int32_t>((n + static_cast<std::size_t>(c.b) - 1) / static_cast<std::size_t>(c.b));
  c.memory = o.memory;
  c.lookahead = o.lookahead;
  auto s = std::make_shared<detail::state>();
  s->cfg = c;
  s->scheds = roam::create_group<detail::sched>(c);
  s->blocks = roam::create_array<detail::block>(roam::array_options<2>({c.nb, c.nb}, o.map), c, s->scheds);
  // Where each block is: the schedulers work on their own blocks in place.
  auto [where, cb] = roam::make_future_callback<std::vector<std::vector<std::int64_t>>>();
  s->blocks.send<&detail::block::where>(cb);
  const auto places = co_await where;
  s->owner.assign(static_cast<std::size_t>(c.nb) * static_cast<std::size_t>(c.nb), 0);
  for (const auto& p : places)
    s->owner[static_cast<std::size_t>(p[0]) + static_cast<std::size_t>(p[1]) * static_cast<std::size_t>(c.nb)] =
        static_cast<std::uint32_t>(p[2]);
  auto [ready, rcb] = roam::make_future_callback<void>();
  s->scheds.send<&detail::sched::setup>(s->owner, rcb);
  co_await ready;
  co_return matrix(std::move(s));
}

std::size_t matrix::n() const noexcept { return static_cast<std::size_t>(state_->cfg.n); }
int matrix::block() const noexcept { return state_->cfg.b; }
int matrix::blocks() const noexcept { return state_->cfg.nb; }
std::uint32_t matrix::owner(int i, int j) const {
  const int nb = state_->cfg.nb;
  if (i < 0 || j < 0 || i >= nb || j >= nb)
    throw std::out_of_range("roam::lu::matrix::owner: block (" + std::to_string(i) + ", " + std::to_string(j) +
                            ") of a " + std::to_string(nb) + "x" + std::to_string(nb) + " grid");
  return state_->owner[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * static_cast<std::size_t>(nb)];
}

roam::task<> matrix::fill_random(std::uint64_t seed) {
  auto [done, cb] = roam::make_future_callback<void>();
  state_->blocks.send<&detail::block::fill_random>(seed, cb);
  co_await done;
}

roam::task<> matrix::set(std::vector<double> a) {
  const auto& c = state_->cfg;
  if (a.size() != static_cast<std::size_t>(c.n) * static_cast<std::size_t>(c.n))
    throw std::invalid_argument("roam::lu::matrix::set: " + std::to_string(a.size()) + " values for an " + std::to_string(c.n) +
                                "x" + std::to_string(c.n) + " matrix");
  auto [done, cb] = roam::make_future_callback<void>();
  for (std::int32_t i = 0; i < c.nb; ++i)
    for (std::int32_t j = 0; j < c.nb; ++j) {
      std::vector<double> part(c.cells());
      for (std::int32_t cc = 0; cc < c.b; ++cc)
        for (std::int32_t r = 0; r < c.b; ++r) {
          const std::int64_t gr = static_cast<std::int64_t>(i) * c.b + r, gc = static_cast<std::int64_t>(j) * c.b + cc;
          part[static_cast<std::size_t>(r + cc * c.b)] =
              gr < c.n && gc < c.n ? a[static_cast<std::size_t>(gr + gc * c.n)] : (gr == gc ? 1.0 : 0.0);
        }
      state_->blocks[roam::index<2>{i, j}].send<&detail::block::set_part>(std::move(part), cb);
    }
  co_await done;
}

roam::task<std::vector<double>> matrix::get() {
  const auto& c = state_->cfg;
  auto [done, cb] = roam::make_future_callback<std::vector<std::vector<double>>>();
  state_->blocks.send<&detail::block::get_part>(cb);
  const auto parts = co_await done;
  std::vector<double> a(static_cast<std::size_t>(c.n) * static_cast<std::size_t>(c.n));
  for (const auto& p : parts) {
    const auto i = static_cast<std::int64_t>(p[0]), j = static_cast<std::int64_t>(p[1]);
    for (std::int64_t cc = 0; cc < c.b; ++cc)
      for (std::int64_t r = 0; r < c.b; ++r) {
        const std::int64_t gr = i * c.b + r, gc = j * c.b + cc;
        if (gr < c.n && gc < c.n) a[static_cast<std::size_t>(gr + gc * c.n)] = p[static_cast<std::size_t>(2 + r + cc * c.b)];
      }
  }
  co_return a;
}

roam::future<factor_stats> matrix::factor() {
  auto [done, cb] = roam::make_future_callback<factor_stats>();
  detail::sched* here = state_->scheds.local();
  here->factor_done = cb;
  here->factored_ok = false;
  here->started_at = detail::clock::now();
  state_->scheds.send<&detail::sched::start>(roam::my_pe().value());
  return done;
}

roam::task<std::vector<std::int64_t>> matrix::pivots() {
  const detail::sched* here = state_->scheds.local();
  std::vector<std::int64_t> all;
  for (const auto& p : here->piv) all.insert(all.end(), p.begin(), p.end());
  all.resize(std::min(all.size(), static_cast<std::size_t>(state_->cfg.n)));
  co_return all;
}

roam::task<std::vector<double>> matrix::solve(std::vector<double> b) {
  const auto& c = state_->cfg;
  const detail::sched* here = state_->scheds.local();
  if (!here->factored_ok)
    throw lu_error(here->piv.empty() || here->piv.back().empty()
                       ? "roam::lu::matrix::solve: the matrix has not been factored (await factor() first)"
                       : "roam::lu::matrix::solve: the matrix is singular (a zero pivot in factor())");
  if (b.size() != static_cast<std::size_t>(c.n))
    throw std::invalid_argument("roam::lu::matrix::solve: " + std::to_string(b.size()) + " values for an order-" +
                                std::to_string(c.n) + " system");
  roam::buffer<double> v(static_cast<std::size_t>(c.padded()));
  std::copy(b.begin(), b.end(), v.mutable_data());
  auto [done, cb] = roam::make_future_callback<std::vector<double>>();
  state_->scheds[roam::pe_id{state_->owner[0]}].send<&detail::sched::solve_visit>(0, 0, 0, std::move(v), cb);
  co_return co_await done;
}

roam::task<residual_norms> matrix::residual(std::uint64_t seed, const std::vector<double>& x, const std::vector<double>& b) {
  const auto n = static_cast<std::size_t>(state_->cfg.n);
  if (x.size() != n || b.size() != n)
    throw std::invalid_argument("roam::lu::matrix::residual: x and b must have n = " + std::to_string(n) + " values");
  roam::buffer<double> xb(n);
  std::copy(x.begin(), x.end(), xb.mutable_data());
  auto [done, cb] = roam::make_future_callback<std::vector<double>>();
  state_->scheds.send<&detail::sched::residual_part>(seed, xb, cb);
  const std::vector<double> sums = co_await done;
  residual_norms r;
  for (std::size_t i = 0; i < n; ++i) {
    r.r_inf = std::max(r.r_inf, std::abs(sums[i] - b[i]));
    r.a_inf = std::max(r.a_inf, sums[n + i]);
    r.x_inf = std::max(r.x_inf, std::abs(x[i]));
    r.b_inf = std::max(r.b_inf, std::abs(b[i]));
  }
  const double eps = std::numeric_limits<double>::epsilon();
  r.scaled = r.r_inf / (eps * (r.a_inf * r.x_inf + r.b_inf) * static_cast<double>(n));
  co_return r;
}

}  // namespace roam::lu
