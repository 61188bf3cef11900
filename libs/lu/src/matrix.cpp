// The public API of roam::lu (lu.hpp): the handle's tasks, the maps, HPL's
// random matrix.
#include "sched.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace roam::lu {
namespace detail {

std::pair<double*, std::int64_t> block::data() const {
  sched* s = scheds.local();
  if (s == nullptr) roam::abort("roam::lu: block (" + std::to_string(row()) + ", " + std::to_string(col()) + ") has no scheduler on its PE");
  return s->at(row(), col());
}

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
template <std::uint32_t Width>
std::uint32_t column_cyclic_fn(const roam::index<2>& ij, const roam::index<2>&, std::uint32_t pes) {
  return (static_cast<std::uint32_t>(ij[1]) / Width) % pes;
}
std::uint32_t row_cyclic_fn(const roam::index<2>& ij, const roam::index<2>&, std::uint32_t pes) {
  return static_cast<std::uint32_t>(ij[0]) % pes;
}
}  // namespace

roam::array_map block_cyclic() { return roam::custom_map<&block_cyclic_fn>(); }
roam::array_map column_cyclic(int width) {
  switch (width) {
    case 1: return roam::custom_map<&column_cyclic_fn<1>>();
    case 2: return roam::custom_map<&column_cyclic_fn<2>>();
    case 3: return roam::custom_map<&column_cyclic_fn<3>>();
    case 4: return roam::custom_map<&column_cyclic_fn<4>>();
    default:
      throw std::invalid_argument("roam::lu::column_cyclic: width " + std::to_string(width) + " (1 to 4)");
  }
}
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
  c.spread = o.panel == panel_mode::distributed;
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

