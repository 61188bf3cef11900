// Panels factored where their blocks are (options::panel = distributed):
// each column's pivot a reduction of the PEs' candidates at the diagonal
// block's PE, rows exchanged by messages between the PEs of the two rows'
// blocks, the panel's updates on each PE's own rows (sched.hpp).
#include "sched.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace roam::lu::detail {

std::int64_t sched::global_row(std::int32_t k, std::int64_t local) const {
  const auto& rows = rows_in_col[static_cast<std::size_t>(k)];
  const std::size_t q = first_below(k, k - 1) + static_cast<std::size_t>(local / cfg.b);
  return static_cast<std::int64_t>(rows[q]) * cfg.b + local % cfg.b;
}

std::int64_t sched::local_row(std::int32_t k, std::int64_t global) const {
  const auto& rows = rows_in_col[static_cast<std::size_t>(k)];
  const auto from = rows.begin() + static_cast<std::ptrdiff_t>(first_below(k, k - 1));
  const auto block_row = static_cast<std::int32_t>(global / cfg.b);
  const auto it = std::lower_bound(from, rows.end(), block_row);
  if (it == rows.end() || *it != block_row)
    roam::abort("roam::lu: row " + std::to_string(global) + " of panel " + std::to_string(k) + " is not on PE " + std::to_string(me));
  return static_cast<std::int64_t>(it - from) * cfg.b + global % cfg.b;
}

void sched::join_panel(std::int32_t k) {
  spread_panel& sp = spreads[k];  // the leader may have candidates already
  const auto& rows = rows_in_col[static_cast<std::size_t>(k)];
  const std::size_t q0 = first_below(k, k - 1);
  auto [a, ld] = at(rows[q0], k);
  sp.joined = true;
  sp.a = a;
  sp.ld = ld;
  // The padding's rows (zero in this column) are left out of the work.
  sp.h = static_cast<std::int64_t>(rows.size() - q0) * cfg.b - (k < cfg.nb - 1 && rows.back() == cfg.nb - 1 ? cfg.pad() : 0);
  ++spreading;
  send_candidate(k, 0);
}

void sched::send_candidate(std::int32_t k, std::int64_t c) {
  spread_panel& sp = spreads.at(k);
  const std::int64_t f = first_candidate(k, c), ld = sp.ld;
  const double* col = sp.a + c * ld;
  const std::int64_t r = f + largest_magnitude(col + f, sp.h - f);
  std::vector<double> content(static_cast<std::size_t>(cfg.b));
  for (std::int64_t q = 0; q < cfg.b; ++q) content[static_cast<std::size_t>(q)] = sp.a[r + q * ld];
  const double value = std::abs(col[r]);
  const std::int64_t row = global_row(k, r);
  if (owner_of(k, k) == me)
    candidate(k, c, value, row, std::move(content));
  else
    this_group()[roam::pe_id{owner_of(k, k)}].send<&sched::candidate>(roam::priority(-4), k, c, value, row, std::move(content));
}

void sched::candidate(std::int32_t k, std::int64_t c, double value, std::int64_t row, std::vector<double> content) {
  spread_panel& sp = spreads[k];
  ++sp.got;
  // As idamax over the whole column: the largest magnitude, the first row of equals.
  if (sp.best_row < 0 || value > sp.best || (value == sp.best && row < sp.best_row)) {
    sp.best = value;
    sp.best_row = row;
    sp.best_content = std::move(content);
  }
  if (static_cast<std::size_t>(sp.got) == panel_pes[static_cast<std::size_t>(k)].size()) choose_pivot(k, c);
}

void sched::choose_pivot(std::int32_t k, std::int64_t c) {
  spread_panel& sp = spreads.at(k);
  const std::int64_t p = sp.best_row;
  std::vector<double> pivot_row = std::move(sp.best_content);
  sp.got = 0;
  sp.best = -1;
  sp.best_row = -1;
  sp.piv.push_back(p);
  std::vector<double> old_row(static_cast<std::size_t>(cfg.b));  // row c, for the pivot's place
  for (std::int64_t q = 0; q < cfg.b; ++q) old_row[static_cast<std::size_t>(q)] = sp.a[c + q * sp.ld];
  const std::uint32_t pivot_pe = owner_of(static_cast<std::int32_t>(p / cfg.b), k);
  for (std::uint32_t pe : panel_pes[static_cast<std::size_t>(k)])
    if (pe != me)
      this_group()[roam::pe_id{pe}].send<&sched::pivot>(roam::priority(-4), k, c, p, pivot_row,
                                                         pe == pivot_pe ? old_row : std::vector<double>{});
  pivot(k, c, p, std::move(pivot_row), std::move(old_row));
}

void sched::pivot(std::int32_t k, std::int64_t c, std::int64_t p, std::vector<double> pivot_row, std::vector<double> old_row) {
  const auto t0 = clock::now();
  spread_panel& sp = spreads.at(k);
  const bool leader = owner_of(k, k) == me;
  const std::int64_t b = cfg.b, ld = sp.ld, row_c = static_cast<std::int64_t>(k) * b + c;
  if (p != row_c) {
    if (owner_of(static_cast<std::int32_t>(p / b), k) == me) {
      const std::int64_t r = local_row(k, p);
      for (std::int64_t q = 0; q < b; ++q) sp.a[r + q * ld] = old_row[static_cast<std::size_t>(q)];
    }
    if (leader) {
      ++swaps;
      for (std::int64_t q = 0; q < b; ++q) sp.a[c + q * ld] = pivot_row[static_cast<std::size_t>(q)];
    }
  }
  const double pv = pivot_row[static_cast<std::size_t>(c)];
  const std::int64_t e = leaf_end[static_cast<std::size_t>(c)];
  if (pv == 0.0) {  // as LAPACK: the column stays unscaled, the rest goes on
    if (leader && row_c < cfg.n && (zero_column < 0 || row_c < zero_column)) zero_column = row_c;
  } else {
    const std::int64_t f = first_candidate(k, c + 1);
    scale_and_rank1(sp.a + f + c * ld, sp.h - f, pv, sp.a + f + (c + 1) * ld, ld, pivot_row.data() + c + 1, e - c - 1);
  }
  busy[0] += std::chrono::duration<double>(clock::now() - t0).count();
  if (c + 1 < e) {
    send_candidate(k, c + 1);
  } else if (e == b) {
    panel_done(k);
  } else if (leader) {  // the leaf's rows of the next columns: U₁₂ = L₁₁⁻¹ A₁₂, for every PE's dgemm
    const auto t1 = clock::now();
    const std::int64_t c0 = update_from[static_cast<std::size_t>(e)], c1 = update_to[static_cast<std::size_t>(e)];
    const std::int64_t w1 = e - c0, w2 = c1 - e;
    double* top = sp.a + c0 + e * ld;
    solve_unit_lower(sp.a + c0 + c0 * ld, ld, top, ld, w1, w2);
    std::vector<double> u(static_cast<std::size_t>(w1 * w2));
    for (std::int64_t q = 0; q < w2; ++q) std::memcpy(u.data() + q * w1, top + q * ld, static_cast<std::size_t>(w1) * sizeof(double));
    for (std::uint32_t pe : panel_pes[static_cast<std::size_t>(k)])
      if (pe != me) this_group()[roam::pe_id{pe}].send<&sched::panel_update>(roam::priority(-4), k, e, u);
    busy[0] += std::chrono::duration<double>(clock::now() - t1).count();
    panel_update(k, e, std::move(u));
  }
}

void sched::panel_update(std::int32_t k, std::int64_t mid, std::vector<double> u) {
  const auto t0 = clock::now();
  spread_panel& sp = spreads.at(k);
  const std::int64_t c0 = update_from[static_cast<std::size_t>(mid)], c1 = update_to[static_cast<std::size_t>(mid)];
  const std::int64_t w1 = mid - c0, w2 = c1 - mid, f = first_candidate(k, mid);
  subtract_product(sp.a + f + c0 * sp.ld, sp.ld, u.data(), w1, sp.a + f + mid * sp.ld, sp.ld, sp.h - f, w2, w1);
  busy[0] += std::chrono::duration<double>(clock::now() - t0).count();
  send_candidate(k, mid);
}

// This PE's rows of the panel are final: a copy in a slab goes to every PE,
// each of which asks every PE of the panel.
void sched::panel_done(std::int32_t k) {
  spread_panel& sp = spreads.at(k);
  --spreading;
  const auto& rows = rows_in_col[static_cast<std::size_t>(k)];
  std::vector<std::int32_t> ids(rows.begin() + static_cast<std::ptrdiff_t>(first_below(k, k - 1)), rows.end());
  const std::int64_t b = cfg.b, h = static_cast<std::int64_t>(ids.size()) * b;
  roam::buffer<double>& s = slab();
  for (std::int64_t q = 0; q < b; ++q)
    std::memcpy(s.mutable_data() + q * h, sp.a + q * sp.ld, static_cast<std::size_t>(h) * sizeof(double));
  done_panels[k] = factored{s, std::move(sp.piv), h, roam::num_pes(), std::move(ids)};
  spreads.erase(k);
  auto w = waiting.find(k);
  if (w != waiting.end()) {
    const std::vector<std::uint32_t> asked = std::move(w->second);
    waiting.erase(w);
    for (std::uint32_t pe : asked) pull(k, pe);
  }
}

void sched::spread_part(std::int32_t k, std::vector<std::int32_t> ids, std::vector<std::int64_t> p, roam::buffer<double> data) {
  if (!p.empty()) spread_piv[k] = std::move(p);
  const auto count = static_cast<std::int32_t>(ids.size());
  gathers[k].emplace_back(std::move(ids), std::move(data));
  if ((gathered[k] += count) < cfg.nb - k) return;
  gathered.erase(k);
  roam::buffer<double> whole = assemble(k);
  std::vector<std::int64_t> piv_k = std::move(spread_piv.at(k));
  spread_piv.erase(k);
  panel_data(k, std::move(piv_k), std::move(whole), static_cast<std::int64_t>(cfg.nb - k) * cfg.b);
}

}  // namespace roam::lu::detail
