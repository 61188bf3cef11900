// U blocks (L_ss⁻¹ A_sj) and trailing updates, batched over adjacent
// columns of a store and cut into pieces of bounded work.
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

void sched::trsm(std::int32_t s, std::int32_t j) {
  std::vector<std::int32_t> batch = take_batch(s, j, trsm_work);
  const panel& pn = cache.at(s);
  auto [top, ld] = at(s, j);
  const std::int64_t wide = static_cast<std::int64_t>(batch.size()) * cfg.b - (batch.back() == cfg.nb - 1 ? cfg.pad() : 0);
  solve_unit_lower(pn.data.data(), pn.m, top, ld, cfg.b, wide);
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

std::vector<std::int32_t> sched::take_batch(std::int32_t s, std::int32_t j, std::int32_t what) {
  store& st = store_for(j);
  std::vector<std::int32_t> batch{j};
  // The next panel's column goes alone: batched, the panel would wait for
  // its neighbours' updates too. So does every column while a distributed
  // panel is in progress here (short pieces).
  if (j == s + 1 || spreading > 0) return batch;
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

void sched::u_block(std::int32_t s, std::int32_t j, roam::buffer<double> u) {
  ublocks[{s, j}] = ublock{std::move(u)};
  advance(j);
}

std::pair<const double*, std::int64_t> sched::l_rows(std::int32_t s, std::int32_t j) {
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

void sched::update(std::int32_t s, std::int32_t j) {
  auto pit = partial.find({s, j});
  if (pit == partial.end()) pit = partial.emplace(std::pair{s, j}, partial_update{take_batch(s, j, update_work), 0, {}}).first;
  const std::vector<std::int32_t>& batch = pit->second.batch;
  store& st = store_for(j);
  const std::size_t c0 = static_cast<std::size_t>(col_at[static_cast<std::size_t>(j)]);
  const std::int64_t b = cfg.b, wide = static_cast<std::int64_t>(batch.size()) * b - (batch.back() == cfg.nb - 1 ? cfg.pad() : 0);
  auto [l, ldl] = l_rows(s, j);
  const auto& rows = rows_in_col[static_cast<std::size_t>(j)];
  const std::size_t q = first_below(j, s);
  const std::int64_t h = static_cast<std::int64_t>(rows.size() - q) * b - (rows.back() == cfg.nb - 1 ? cfg.pad() : 0);
  // While a distributed panel of this PE waits for its messages, pieces are
  // short (one column, ~50 µs): each of its columns waits for every PE of
  // the panel, which answers between pieces.
  const std::int64_t chunk = spreading > 0 ? std::max<std::int64_t>(16, (spread_update_flops / (2 * wide * b)) / 16 * 16)
                                           : std::max<std::int64_t>(b, (update_flops / (2 * wide * b)) / b * b);
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
      joined.resize(batch.size() * cfg.cells());
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

}  // namespace roam::lu::detail
