// Row exchanges of a step in one block column: a cache-resident loop when
// the column's rows below the panel are all on this PE, else messages.
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

void sched::begin_swap(std::int32_t s, std::int32_t j) {
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

std::vector<double> sched::read_row(std::int64_t r, std::int32_t j) {
  const double* a = row_ptr(r, j);
  const std::int64_t ld = store_for(j).ld;
  std::vector<double> v(static_cast<std::size_t>(cfg.b));
  for (std::int32_t c = 0; c < cfg.b; ++c) v[static_cast<std::size_t>(c)] = a[c * ld];
  return v;
}

void sched::write_row(std::int64_t r, std::int32_t j, const double* v) {
  double* a = row_ptr(r, j);
  const std::int64_t ld = store_for(j).ld;
  for (std::int32_t c = 0; c < cfg.b; ++c) a[c * ld] = v[c];
}

void sched::place_rows(std::int32_t j, const incoming_rows& in) {
  for (std::size_t q = 0; q < in.ids.size(); ++q) write_row(in.ids[q], j, in.values.data() + q * static_cast<std::size_t>(cfg.b));
}

void sched::rows(std::int32_t s, std::int32_t j, std::vector<std::int64_t> ids, std::vector<double> values) {
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

}  // namespace roam::lu::detail
