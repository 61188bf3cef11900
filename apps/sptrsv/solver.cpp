// The parallel sparse triangular solve (solver.hpp says how it goes).
#include "solver.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace sptrsv {
namespace detail {

struct config {
  std::vector<std::int64_t> bounds;  // block β holds columns [bounds[β], bounds[β + 1])
  double dense = 0.5;
  bool regions = true;
  std::int64_t region_nonzeros = 0;  // about what a region holds: a block's share of the nonzeros
  void pup(roam::pup_er& p) { p | bounds | dense | regions | region_nonzeros; }
  std::int32_t blocks() const { return static_cast<std::int32_t>(bounds.size()) - 1; }
  std::int32_t block_of(std::int64_t row) const {
    return static_cast<std::int32_t>(std::upper_bound(bounds.begin(), bounds.end(), row) - bounds.begin()) - 1;
  }
};

// A contributor: block·2^20 + part (part 0: the block, 1...: its regions).
using source_id = std::int64_t;
constexpr source_id source_of(std::int32_t block, std::int32_t part) { return (static_cast<source_id>(block) << 20) + part; }

// The entries of one contributor that fall into one destination block's
// rows: compressed rows (ascending), local columns.
struct feed {
  std::int32_t dest = 0;
  std::vector<std::int32_t> rows;
  std::vector<std::int64_t> rowptr{0};
  std::vector<std::int32_t> col;
  std::vector<double> val;
  void pup(roam::pup_er& p) { p | dest | rows | rowptr | col | val; }
  std::int64_t nonzeros() const { return static_cast<std::int64_t>(val.size()); }

  // Σ_c L(r, c) x(c) for each row, k right-hand sides (x row-major by local column).
  // Sums in registers: accumulated in `out` itself, every entry would
  // wait for the previous one's store (out and x may alias), 2x slower.
  std::vector<double> sums(const double* x, std::int32_t k) const {
    std::vector<double> out(rows.size() * static_cast<std::size_t>(k));
    const auto kk = static_cast<std::size_t>(k);
    for (std::size_t q = 0; q < rows.size(); ++q) {
      const auto e0 = static_cast<std::size_t>(rowptr[q]), e1 = static_cast<std::size_t>(rowptr[q + 1]);
      if (k == 1) {
        double sum = 0;
        for (std::size_t e = e0; e < e1; ++e) sum += val[e] * x[static_cast<std::size_t>(col[e])];
        out[q] = sum;
        continue;
      }
      for (std::size_t t0 = 0; t0 < kk; t0 += 8) {  // eight right-hand sides at a time
        const std::size_t w = std::min<std::size_t>(8, kk - t0);
        double sum[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (std::size_t e = e0; e < e1; ++e) {
          const double v = val[e];
          const double* xc = x + static_cast<std::size_t>(col[e]) * kk + t0;
          for (std::size_t t = 0; t < w; ++t) sum[t] += v * xc[t];
        }
        for (std::size_t t = 0; t < w; ++t) out[q * kk + t0 + t] = sum[t];
      }
    }
    return out;
  }
};

struct column_block;

// A dense region below a block's diagonal, split off into an element of its
// own: it waits for the block's x, then sends its sums to the blocks of its rows.
struct dense_region : roam::element<dense_region, roam::index<2>> {
  dense_region(std::vector<feed> feeds, roam::array_proxy<column_block> blocks) : feeds_(std::move(feeds)), blocks_(blocks) {}
  explicit dense_region(roam::migrating) {}
  void x_values(std::int32_t s, std::int32_t k, std::vector<double> x);
  void pup(roam::pup_er& p) { p | feeds_ | blocks_; }

  std::vector<feed> feeds_;
  roam::array_proxy<column_block> blocks_;
};

using x_parts = std::vector<std::vector<double>>;

struct column_block : roam::element<column_block, roam::index<1>> {
  column_block(config c, roam::array_proxy<dense_region> regions) : cfg_(std::move(c)), regions_(regions) {}
  explicit column_block(roam::migrating) {}

  // ---- set-up -----------------------------------------------------------------
  // This block's columns (rows ascending, the diagonal first): kept as the
  // diagonal part and feeds; dense feeds become regions; each destination
  // is told which rows it will be sent (its plan), and the plans sent to
  // each block are counted.
  void load(std::vector<std::int64_t> colptr, std::vector<std::int32_t> rows, std::vector<double> vals,
            roam::callback<std::vector<std::int64_t>> counted);
  void shape();
  void plan(source_id from, std::vector<std::int32_t> rows);
  void expect(std::vector<std::int64_t> plans, roam::callback<void> ready);
  void maybe_ready();

  // ---- a solve ------------------------------------------------------------------
  // (solve, right-hand sides, b's rows of this block, where x goes); a negative solve ends run().
  roam::mailbox<std::int32_t, std::int32_t, std::vector<double>, roam::callback<x_parts>> rhs;
  // (solve, contributor, its sums for the rows of its plan); this block's own
  // empty message is its independent work, at a low priority.
  roam::mailbox<std::int32_t, source_id, std::vector<double>> contribution;
  roam::task<> run();
  void apply(source_id from, const std::vector<double>& sums);
  void drain(std::int32_t s);
  void finish(std::int32_t s, const roam::callback<x_parts>& done);

  void pup(roam::pup_er& p) {
    p | cfg_ | regions_ | c0_ | width_ | dcolptr_ | drow_ | dval_ | feeds_ | region_section_ | has_regions_ | plans_ |
        expected_ | intra_ | waits_ | col_feed_ptr_ | col_feed_ | feed_waits_ | plans_due_ | ready_cb_ | rhs |
        contribution;
  }

  config cfg_;
  roam::array_proxy<dense_region> regions_;
  std::int64_t c0_ = 0;
  std::int32_t width_ = 0;
  // The diagonal part, compressed columns, local rows; the diagonal first.
  std::vector<std::int64_t> dcolptr_;
  std::vector<std::int32_t> drow_;
  std::vector<double> dval_;
  std::vector<feed> feeds_;  // kept here
  std::vector<std::int64_t> col_feed_ptr_;  // per local column: the feeds it has entries in
  std::vector<std::int32_t> col_feed_;
  std::vector<std::int32_t> feed_waits_;  // per feed: its columns
  roam::section_proxy<dense_region> region_section_;
  bool has_regions_ = false;
  std::map<source_id, std::vector<std::int32_t>> plans_;  // contributor -> its rows here (local)
  std::vector<std::int32_t> expected_;                     // per local row: contributions it waits for
  std::vector<std::int32_t> intra_;                        // per local row: entries of this block's columns left of it
  std::vector<std::int32_t> waits_;                        // the two together (once every plan is in)
  std::int64_t plans_due_ = -1;
  roam::callback<void> ready_cb_;
  // The solve in progress.
  std::int32_t k_ = 1, solved_ = 0;
  std::vector<double> acc_;  // b, minus what has been subtracted; x where solved
  std::vector<std::int32_t> missing_, feed_missing_;
  std::vector<std::int32_t> unsolved_;  // ascending
};

void column_block::load(std::vector<std::int64_t> colptr, std::vector<std::int32_t> rows, std::vector<double> vals,
                        roam::callback<std::vector<std::int64_t>> counted) {
  const std::int32_t me = this_index()[0];
  shape();
  const std::int64_t c1 = c0_ + width_;
  // The diagonal part, and the entries below it by destination block.
  std::map<std::int32_t, std::vector<std::tuple<std::int32_t, std::int32_t, double>>> below;  // dest -> (row, col, v)
  dcolptr_.assign(1, 0);
  for (std::int32_t c = 0; c < width_; ++c) {
    for (auto e = colptr[static_cast<std::size_t>(c)]; e < colptr[static_cast<std::size_t>(c) + 1]; ++e) {
      const std::int32_t r = rows[static_cast<std::size_t>(e)];
      if (r < c1) {
        if (r - c0_ > c) ++intra_[static_cast<std::size_t>(r - c0_)];
        drow_.push_back(static_cast<std::int32_t>(r - c0_));
        dval_.push_back(vals[static_cast<std::size_t>(e)]);
      } else {
        below[cfg_.block_of(r)].emplace_back(r, c, vals[static_cast<std::size_t>(e)]);
      }
    }
    dcolptr_.push_back(static_cast<std::int64_t>(drow_.size()));
  }
  colptr.clear();
  rows.clear();
  vals.clear();
  // Each destination's entries as compressed rows.
  std::vector<feed> all;
  std::vector<double> fill;  // nonzeros / (distinct rows · width)
  for (auto& [dest, entries] : below) {
    std::sort(entries.begin(), entries.end());
    feed f;
    f.dest = dest;
    for (const auto& [r, c, v] : entries) {
      if (f.rows.empty() || f.rows.back() != r) {
        if (!f.rows.empty()) f.rowptr.push_back(static_cast<std::int64_t>(f.col.size()));
        f.rows.push_back(r);
      }
      f.col.push_back(c);
      f.val.push_back(v);
    }
    f.rowptr.push_back(static_cast<std::int64_t>(f.col.size()));
    fill.push_back(static_cast<double>(f.nonzeros()) / (static_cast<double>(f.rows.size()) * width_));
    all.push_back(std::move(f));
  }
  below.clear();
  // Dense feeds that hold enough work become regions: runs of them of about
  // a block's share of the nonzeros each, on the PEs after this block's.
  std::vector<std::vector<feed>> regions;
  std::int64_t in_run = 0;
  for (std::size_t q = 0; q < all.size(); ++q) {
    const bool dense = cfg_.regions && fill[q] >= cfg_.dense && all[q].nonzeros() * 8 >= cfg_.region_nonzeros;
    if (!dense) {
      feeds_.push_back(std::move(all[q]));
      in_run = 0;
      continue;
    }
    if (regions.empty() || in_run == 0 || in_run >= cfg_.region_nonzeros) {
      regions.emplace_back();
      in_run = 0;
    }
    in_run += all[q].nonzeros();
    regions.back().push_back(std::move(all[q]));
  }
  // Which feeds each column has entries in: a feed goes once all its columns are solved.
  std::vector<std::vector<std::int32_t>> by_col(static_cast<std::size_t>(width_));
  feed_waits_.assign(feeds_.size(), 0);
  for (std::size_t q = 0; q < feeds_.size(); ++q) {
    std::vector<std::int32_t> cols(feeds_[q].col);
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    feed_waits_[q] = static_cast<std::int32_t>(cols.size());
    for (std::int32_t c : cols) by_col[static_cast<std::size_t>(c)].push_back(static_cast<std::int32_t>(q));
  }
  col_feed_ptr_.assign(1, 0);
  for (const auto& fs : by_col) {
    col_feed_.insert(col_feed_.end(), fs.begin(), fs.end());
    col_feed_ptr_.push_back(static_cast<std::int64_t>(col_feed_.size()));
  }
  // The plans: each destination learns which of its rows each contributor sends.
  std::vector<std::int64_t> counts(static_cast<std::size_t>(cfg_.blocks()) + 2, 0);
  auto tell = [&](source_id from, const feed& f) {
    std::vector<std::int32_t> local(f.rows.size());
    const std::int64_t base = cfg_.bounds[static_cast<std::size_t>(f.dest)];
    for (std::size_t q = 0; q < f.rows.size(); ++q) local[q] = static_cast<std::int32_t>(f.rows[q] - base);
    this_array()[f.dest].send<&column_block::plan>(from, std::move(local));
    ++counts[static_cast<std::size_t>(f.dest)];
  };
  for (const feed& f : feeds_) tell(source_of(me, 0), f);
  std::vector<roam::index<2>> members;
  const std::uint32_t pes = roam::num_pes(), here = roam::my_pe().value();
  for (std::size_t r = 0; r < regions.size(); ++r) {
    const auto part = static_cast<std::int32_t>(r + 1);
    for (const feed& f : regions[r]) {
      tell(source_of(me, part), f);
      counts[counts.size() - 1] += f.nonzeros();
    }
    regions_.insert_on(roam::pe_id{(here + part) % pes}, roam::index<2>{me, part}, std::move(regions[r]), this_array());
    members.push_back(roam::index<2>{me, part});
  }
  counts[counts.size() - 2] = static_cast<std::int64_t>(regions.size());
  has_regions_ = !members.empty();
  if (has_regions_) region_section_ = roam::section_proxy<dense_region>::of(regions_, members);
  contribute(std::move(counts), roam::sum, counted);
}

// Plans may come before this block's own columns.
void column_block::shape() {
  if (width_ > 0) return;
  const auto me = static_cast<std::size_t>(this_index()[0]);
  c0_ = cfg_.bounds[me];
  width_ = static_cast<std::int32_t>(cfg_.bounds[me + 1] - c0_);
  expected_.assign(static_cast<std::size_t>(width_), 0);
  intra_.assign(static_cast<std::size_t>(width_), 0);
}

void column_block::plan(source_id from, std::vector<std::int32_t> rows) {
  shape();
  for (std::int32_t r : rows) ++expected_[static_cast<std::size_t>(r)];
  plans_[from] = std::move(rows);
  maybe_ready();
}

void column_block::expect(std::vector<std::int64_t> plans, roam::callback<void> ready) {
  plans_due_ = plans[static_cast<std::size_t>(this_index()[0])];
  ready_cb_ = ready;
  maybe_ready();
}

void column_block::maybe_ready() {
  if (plans_due_ >= 0 && static_cast<std::int64_t>(plans_.size()) == plans_due_) {
    plans_due_ = -1;
    waits_.resize(expected_.size());
    for (std::size_t r = 0; r < expected_.size(); ++r) waits_[r] = expected_[r] + intra_[r];
    contribute(ready_cb_);
  }
}

roam::task<> column_block::run() {
  const source_id self = source_of(this_index()[0], 0);
  for (;;) {
    auto [s, k, b, done] = co_await rhs.receive();
    if (s < 0) co_return;
    k_ = k;
    acc_ = std::move(b);
    missing_ = waits_;
    feed_missing_ = feed_waits_;
    unsolved_.resize(static_cast<std::size_t>(width_));
    std::iota(unsolved_.begin(), unsolved_.end(), 0);
    solved_ = 0;
    // The rows that wait for nobody: solved when nothing more urgent is there.
    this_proxy().send<&column_block::contribution>(roam::priority(4), s, self, std::vector<double>{});
    bool finished = false;
    for (std::size_t pending = plans_.size() + 1; pending > 0; --pending) {
      auto [solve, from, sums] = co_await contribution.receive(s);
      (void)solve;
      if (from != self) apply(from, sums);
      drain(s);
      if (!finished && solved_ == width_) {
        finished = true;
        finish(s, done);
      }
    }
  }
}

void column_block::apply(source_id from, const std::vector<double>& sums) {
  const auto& rows = plans_.at(from);
  const auto k = static_cast<std::size_t>(k_);
  for (std::size_t q = 0; q < rows.size(); ++q) {
    const auto r = static_cast<std::size_t>(rows[q]);
    for (std::size_t t = 0; t < k; ++t) acc_[r * k + t] -= sums[q * k + t];
    --missing_[r];
  }
}

// One pass over the unsolved rows in order, solving each that waits for
// nothing more: its entries below only point to later rows, so what it
// frees is solved in the same pass; the rest stay for the next
// contribution. In order, as serial forward substitution: taking freed
// rows last in, first out was 1.4x slower (their rows out of cache).
// Each feed goes as soon as its last column is solved.
void column_block::drain(std::int32_t s) {
  const auto k = static_cast<std::size_t>(k_);
  double* x = acc_.data();
  std::size_t kept = 0;
  for (const std::int32_t row : unsolved_) {
    const auto c = static_cast<std::size_t>(row);
    if (missing_[c] != 0) {
      unsolved_[kept++] = row;
      continue;
    }
    const auto e0 = static_cast<std::size_t>(dcolptr_[c]), e1 = static_cast<std::size_t>(dcolptr_[c + 1]);
    double* xc = x + c * k;
    const double d = dval_[e0];
    if (k == 1) {
      const double xv = (xc[0] /= d);
      for (std::size_t e = e0 + 1; e < e1; ++e) {
        const auto r = static_cast<std::size_t>(drow_[e]);
        x[r] -= dval_[e] * xv;
        --missing_[r];
      }
    } else {
      for (std::size_t t = 0; t < k; ++t) xc[t] /= d;
      for (std::size_t e = e0 + 1; e < e1; ++e) {
        const auto r = static_cast<std::size_t>(drow_[e]);
        double* y = x + r * k;
        for (std::size_t t = 0; t < k; ++t) y[t] -= dval_[e] * xc[t];
        --missing_[r];
      }
    }
    ++solved_;
    for (auto q = col_feed_ptr_[c]; q < col_feed_ptr_[c + 1]; ++q) {
      const auto f = static_cast<std::size_t>(col_feed_[static_cast<std::size_t>(q)]);
      if (--feed_missing_[f] == 0)
        this_array()[feeds_[f].dest].send<&column_block::contribution>(roam::priority(-2), s, source_of(this_index()[0], 0),
                                                                        feeds_[f].sums(x, k_));
    }
  }
  unsolved_.resize(kept);
}

void column_block::finish(std::int32_t s, const roam::callback<x_parts>& done) {
  if (has_regions_) region_section_.send<&dense_region::x_values>(roam::priority(-4), s, k_, acc_);
  std::vector<double> out;
  out.reserve(acc_.size() + 1);
  out.push_back(static_cast<double>(this_index()[0]));
  out.insert(out.end(), acc_.begin(), acc_.end());
  contribute(std::move(out), roam::concat, done);
}

void dense_region::x_values(std::int32_t s, std::int32_t k, std::vector<double> x) {
  const source_id me = source_of(this_index()[0], this_index()[1]);
  for (const feed& f : feeds_) blocks_[f.dest].send<&column_block::contribution>(roam::priority(-2), s, me, f.sums(x.data(), k));
}

struct state {
  std::int64_t n = 0;
  config cfg;
  roam::array_proxy<column_block> blocks;
  roam::array_proxy<dense_region> regions;
  solver_stats stats;
  std::int32_t solves = 0;
  bool closed = false;
};

}  // namespace detail

namespace {
// Block boundaries with about equal nonzeros per block (at least one column each).
std::vector<std::int64_t> cut(const csc& l, std::int32_t blocks) {
  std::vector<std::int64_t> bounds{0};
  const double per = static_cast<double>(l.nnz()) / blocks;
  for (std::int64_t c = 1; c < l.n && static_cast<std::int32_t>(bounds.size()) < blocks; ++c)
    if (static_cast<double>(l.colptr[static_cast<std::size_t>(c)]) >= per * static_cast<double>(bounds.size()) &&
        l.n - c >= blocks - static_cast<std::int32_t>(bounds.size()))
      bounds.push_back(c);
  bounds.push_back(l.n);
  return bounds;
}
}  // namespace

roam::task<solver> solver::create(const csc& l, solver_options o) {
  check_lower(l);
  if (o.map != "round_robin" && o.map != "block")
    throw std::invalid_argument("sptrsv: unknown map '" + o.map + "' (round_robin or block)");
  if (o.blocks < 0) throw std::invalid_argument("sptrsv: blocks must be 0 (8 per PE) or more");
  auto s = std::make_shared<detail::state>();
  s->n = l.n;
  const std::int64_t want = o.blocks > 0 ? o.blocks : 8 * static_cast<std::int64_t>(roam::num_pes());
  s->cfg.bounds = cut(l, static_cast<std::int32_t>(std::min<std::int64_t>(want, l.n)));
  s->cfg.dense = o.dense;
  s->cfg.regions = o.regions;
  const std::int32_t nb = s->cfg.blocks();
  s->cfg.region_nonzeros = std::max<std::int64_t>(1, l.nnz() / nb);
  s->regions = roam::create_sparse_array<detail::dense_region>();
  s->blocks = roam::create_array<detail::column_block>(
      roam::array_options<1>({nb}, o.map == "block" ? roam::block_map() : roam::round_robin_map()), s->cfg, s->regions);
  auto [counted, ccb] = roam::make_future_callback<std::vector<std::int64_t>>();
  for (std::int32_t b = 0; b < nb; ++b) {
    const auto c0 = s->cfg.bounds[static_cast<std::size_t>(b)], c1 = s->cfg.bounds[static_cast<std::size_t>(b) + 1];
    const auto e0 = l.colptr[static_cast<std::size_t>(c0)], e1 = l.colptr[static_cast<std::size_t>(c1)];
    std::vector<std::int64_t> colptr(l.colptr.begin() + c0, l.colptr.begin() + c1 + 1);
    for (auto& p : colptr) p -= e0;
    s->blocks[b].send<&detail::column_block::load>(std::move(colptr), std::vector<std::int32_t>(l.row.begin() + e0, l.row.begin() + e1),
                                                   std::vector<double>(l.val.begin() + e0, l.val.begin() + e1), ccb);
  }
  std::vector<std::int64_t> counts = co_await counted;
  s->stats.blocks = nb;
  s->stats.regions = static_cast<std::int32_t>(counts[counts.size() - 2]);
  s->stats.region_nonzeros = counts.back();
  counts.resize(static_cast<std::size_t>(nb));
  s->stats.messages = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
  auto [ready, rcb] = roam::make_future_callback<void>();
  s->blocks.send<&detail::column_block::expect>(counts, rcb);
  co_await ready;
  s->blocks.send<&detail::column_block::run>();
  co_return solver(std::move(s));
}

roam::task<std::vector<double>> solver::solve(const std::vector<double>& b, int nrhs) {
  detail::state& s = *state_;
  if (s.closed) throw std::logic_error("sptrsv: solve() after close()");
  if (nrhs < 1 || b.size() != static_cast<std::size_t>(s.n) * static_cast<std::size_t>(nrhs))
    throw std::invalid_argument("sptrsv: b has " + std::to_string(b.size()) + " values, expected " + std::to_string(s.n) + " x " +
                                std::to_string(nrhs));
  const std::int32_t id = s.solves++;
  auto [parts, cb] = roam::make_future_callback<detail::x_parts>();
  const auto k = static_cast<std::size_t>(nrhs);
  for (std::int32_t blk = 0; blk < s.cfg.blocks(); ++blk) {
    const auto c0 = static_cast<std::size_t>(s.cfg.bounds[static_cast<std::size_t>(blk)]);
    const auto c1 = static_cast<std::size_t>(s.cfg.bounds[static_cast<std::size_t>(blk) + 1]);
    s.blocks[blk].send<&detail::column_block::rhs>(id, nrhs, std::vector<double>(b.begin() + static_cast<std::ptrdiff_t>(c0 * k),
                                                                                   b.begin() + static_cast<std::ptrdiff_t>(c1 * k)),
                                                   cb);
  }
  const detail::x_parts got = co_await parts;
  std::vector<double> x(b.size());
  for (const auto& part : got) {
    const auto blk = static_cast<std::size_t>(part[0]);
    std::copy(part.begin() + 1, part.end(), x.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(s.cfg.bounds[blk]) * k));
  }
  co_return x;
}

const solver_stats& solver::stats() const { return state_->stats; }

void solver::close() {
  if (state_->closed) return;
  state_->closed = true;
  for (std::int32_t blk = 0; blk < state_->cfg.blocks(); ++blk)
    state_->blocks[blk].send<&detail::column_block::rhs>(-1, 1, std::vector<double>{}, roam::callback<detail::x_parts>{});
}

}  // namespace sptrsv
