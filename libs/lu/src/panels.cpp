// Panels: gathered at the diagonal block's PE, factored there (or factored
// where their blocks are: spread.cpp), asked for ahead by every PE within
// its memory bound, released when used.
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

roam::buffer<double>& sched::slab() {
  for (auto& s : pool)
    if (s.use_count() == 1) return s;
  pool.push_back(roam::buffer<double>::uninitialized(static_cast<std::size_t>(cfg.padded()) * static_cast<std::size_t>(cfg.b)));
  return pool.back();
}

void sched::send_panel_part(std::int32_t j) {
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

void sched::panel_part(std::int32_t k, std::vector<std::int32_t> ids, roam::buffer<double> part) {
  auto& g = gathers[k];
  g.emplace_back(std::move(ids), std::move(part));
  if ((gathered[k] += static_cast<std::int32_t>(g.back().first.size())) == cfg.nb - k) {
    gathered.erase(k);
    queue({0, k, k, factor_work});
  }
}

roam::buffer<double> sched::assemble(std::int32_t k) {
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
  return data;
}

void sched::factor_panel(std::int32_t k) {
  const std::int64_t m = static_cast<std::int64_t>(cfg.nb - k) * cfg.b, b = cfg.b;
  roam::buffer<double> data = assemble(k);
  std::vector<std::int64_t> p(static_cast<std::size_t>(b));
  // Before the last panel, the padding's rows are zero: left out.
  const std::int64_t rows = k < cfg.nb - 1 ? m - cfg.pad() : m;
  const std::int64_t zero = detail::factor_panel(data.mutable_data(), rows, b, m, p.data());
  const std::int64_t base = static_cast<std::int64_t>(k) * b;
  for (std::int64_t c = 0; c < b; ++c) {
    if (p[static_cast<std::size_t>(c)] != c) ++swaps;
    p[static_cast<std::size_t>(c)] += base;
  }
  // The padding's rows and columns are the identity's: past n the
  // columns are not the caller's.
  if (zero >= 0 && base + zero < cfg.n && (zero_column < 0 || base + zero < zero_column)) zero_column = base + zero;
  done_panels[k] = factored{std::move(data), std::move(p), m, roam::num_pes(), {}};
  auto w = waiting.find(k);
  if (w != waiting.end()) {
    const std::vector<std::uint32_t> asked = std::move(w->second);
    waiting.erase(w);
    for (std::uint32_t pe : asked) pull(k, pe);
  }
}

void sched::try_pull() {
  while (next_pull < cfg.nb) {
    const std::uint64_t bytes = panel_bytes(next_pull);
    if (held > 0 && held + bytes > budget) return;
    if (cfg.lookahead > 0 && held_panels >= cfg.lookahead) return;
    held += bytes;
    ++held_panels;
    peak = std::max(peak, held);
    most_held = std::max(most_held, held_panels);
    const std::int32_t k = next_pull++;
    // A distributed panel comes in parts, one from each of its PEs.
    const std::vector<std::uint32_t> from =
        spread_here(k) ? panel_pes[static_cast<std::size_t>(k)] : std::vector<std::uint32_t>{owner_of(k, k)};
    for (std::uint32_t pe : from)
      if (pe == me)
        pull(k, me);
      else
        this_group()[roam::pe_id{pe}].send<&sched::pull>(roam::priority(-3), k, me);
  }
}

void sched::pull(std::int32_t k, std::uint32_t from) {
  auto it = done_panels.find(k);
  if (it == done_panels.end()) {  // not factored yet
    waiting[k].push_back(from);
    return;
  }
  factored& f = it->second;
  if (!f.ids.empty()) {  // this PE's part of a distributed panel
    if (from == me)
      spread_part(k, f.ids, f.piv, f.data);
    else
      this_group()[roam::pe_id{from}].send<&sched::spread_part>(roam::priority(-3), k, f.ids, f.piv, f.data);
    if (--f.pullers == 0) done_panels.erase(it);
    return;
  }
  // The whole slab travels, also to another process: more bytes than the
  // panel's m·b doubles, but buffers of one size, which both sides keep
  // and use again (a fresh buffer costs a page fault per 4 KiB).
  if (from == me)
    panel_data(k, f.piv, f.data, f.m);
  else
    this_group()[roam::pe_id{from}].send<&sched::panel_data>(roam::priority(-3), k, f.piv, f.data, f.m);
  if (--f.pullers == 0) done_panels.erase(it);
}

void sched::panel_data(std::int32_t k, std::vector<std::int64_t> p, roam::buffer<double> data, std::int64_t m) {
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

void sched::release(std::int32_t k) {
  held -= panel_bytes(k);
  --held_panels;
  try_pull();
}

void sched::consumed(std::int32_t k, std::int32_t uses) {
  auto it = cache.find(k);
  if ((it->second.consumers -= uses) == 0) {
    cache.erase(it);
    release(k);
  }
}

}  // namespace roam::lu::detail
