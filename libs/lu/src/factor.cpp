// The scheduler of a PE: its stores, one factorization's state, the order
// of its work, and the end (sched.hpp says how a step goes).
#include "sched.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>

namespace roam::lu::detail {

void sched::setup(std::vector<std::uint32_t> owners, roam::callback<void> done) {
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
  panel_pes.assign(nb, {});
  for (std::int32_t j = 0; j < cfg.nb; ++j) {
    std::set<std::uint32_t> pes;
    for (std::int32_t i = j; i < cfg.nb; ++i) pes.insert(owner_of(i, j));
    panel_pes[static_cast<std::size_t>(j)].assign(pes.begin(), pes.end());
  }
  panel_plan(cfg.b, leaf_end, update_from, update_to);
  reset();
  warm_up();
  // One slab to the PE of the same local rank in each other process: its
  // receiving transport allocates (and faults in) a buffer of the panels'
  // size now, and keeps it for them. One per process pair and local rank,
  // not per PE pair: nodes − 1 slabs per PE. Setup ends when this PE has
  // had each (they may come before this PE's own setup message).
  setup_done = done;
  const std::uint32_t nodes = std::max<std::uint32_t>(1, roam::num_nodes()), per = roam::num_pes() / nodes;
  warm_expected = static_cast<std::int32_t>(nodes - 1);
  const roam::buffer<double> warming = slab();
  for (std::uint32_t n = 0; n < nodes && per > 0; ++n)
    if (n != me / per) this_group()[roam::pe_id{n * per + me % per}].send<&sched::warm>(warming);
  setup_ran = true;
  setup_complete();
}

void sched::warm(roam::buffer<double>) {
  ++warm_received;
  setup_complete();
}

void sched::setup_complete() {
  if (setup_ran && warm_received == warm_expected) {
    setup_ran = false;
    contribute(setup_done);
  }
}

// First touches cost a page fault per 4 KiB here (~10 ms for a 4 MB panel):
// the first panel and the first update of a factorization each took 10-20 ms
// instead of 1-2. So the pool gets two slabs and OpenBLAS its buffers (one
// dgemm of an update's shape) now, at create.
void sched::warm_up() {
  for (int k = 0; k < 2; ++k) {
    pool.push_back(roam::buffer<double>::uninitialized(static_cast<std::size_t>(cfg.padded()) * static_cast<std::size_t>(cfg.b)));
    std::fill_n(pool.back().mutable_data(), pool.back().size(), 0.0);
  }
  const std::int64_t b = cfg.b, m = std::min<std::int64_t>(cfg.padded(), 2048), w = std::min<std::int64_t>(max_batch * b, 1024);
  std::vector<double> a(static_cast<std::size_t>(m * b), 0.0), u(static_cast<std::size_t>(b * w), 0.0),
      c(static_cast<std::size_t>(m * w), 0.0);
  subtract_product(a.data(), m, u.data(), b, c.data(), m, m, w, b);
  solve_unit_lower(a.data(), m, u.data(), b, b, w);
}

double* sched::row_ptr(std::int64_t r, std::int32_t j) {
  auto [a, ld] = at(static_cast<std::int32_t>(r / cfg.b), j);
  (void)ld;
  return a + r % cfg.b;
}

std::size_t sched::first_below(std::int32_t j, std::int32_t s) const {
  const auto& rows = rows_in_col[static_cast<std::size_t>(j)];
  return static_cast<std::size_t>(std::upper_bound(rows.begin(), rows.end(), s) - rows.begin());
}

void sched::reset() {
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
  spreads.clear();
  spread_piv.clear();
  spreading = 0;
  next_pull = 0;
  held = peak = 0;
  held_panels = most_held = 0;
  swaps = 0;
  zero_column = -1;
  for (double& t : busy) t = 0;
}

void sched::start(std::uint32_t caller) {
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

void sched::advance(std::int32_t j) {
  column& c = cols[static_cast<std::size_t>(j)];
  const auto& rows = rows_in_col[static_cast<std::size_t>(j)];
  while (!c.finished) {
    const std::int32_t s = c.step;
    if (rows.empty() || rows.back() < s) {  // nothing of this column at or below row block s here
      c.finished = true;
      return;
    }
    if (s == j) {  // this column's panel: its rows ≥ j here go to the panel's PE, or factor it with the others
      c.finished = true;
      if (spread_here(j))
        join_panel(j);
      else
        send_panel_part(j);
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

void sched::queue(work w) {
  ready.insert(w);
  if (!run_posted) {
    run_posted = true;
    this_group()[roam::pe_id{me}].send<&sched::run>();
  }
}

void sched::run() {
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

void sched::finish() {
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

void sched::factored_all(std::vector<std::vector<std::int64_t>> all) {
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

}  // namespace roam::lu::detail
