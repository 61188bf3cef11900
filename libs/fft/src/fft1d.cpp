// The distributed six-step FFT (docs/design/fft.md): pencils of rows, three
// transposes as all-to-alls between pencils, FFTW for the rows.
#include <roam/fft/fft1d.hpp>

#include <roam/aggregation/aggregator.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <string>

#include "plans.hpp"

namespace roam::fft {
namespace detail {

struct shape {
  std::uint64_t n = 0;
  std::int32_t pencils = 1;
  bool measure = false;
  void pup(roam::pup_er& p) { p | n | pencils | measure; }
  // Pencil q holds rows [first(q), first(q + 1)): as even as integers allow.
  std::uint64_t first(std::int64_t q) const {
    return static_cast<std::uint64_t>(q) * n / static_cast<std::uint64_t>(pencils);
  }
  std::uint64_t rows(std::int64_t q) const { return first(q + 1) - first(q); }
};

// A block of a transpose when it travels through the aggregation library.
struct block_item {
  std::int32_t call = 0, step = 0, from = 0;
  std::vector<complex> part;
  void pup(roam::pup_er& p) { p | call | step | from | part; }
};

// One transpose step's counters are kept by parity: a pencil may receive
// blocks of the next step (from a pencil already there) before it has all
// of this one's, never of the step after (that needs its own next block).
struct pencil : roam::element<pencil> {
  explicit pencil(shape s) : cfg(s) { init(); }
  explicit pencil(roam::migrating) {}

  std::int64_t me() const { return this_index()[0]; }
  std::size_t my_rows() const { return static_cast<std::size_t>(cfg.rows(me())); }
  std::size_t cells() const { return my_rows() * static_cast<std::size_t>(cfg.n); }

  void init() {
    data = allocate(cells());
    in[0] = allocate(cells());
    in[1] = allocate(cells());
    make_twiddles();
    if (my_rows() > 0) {
      plan_fwd = row_plan(my_rows(), cfg.n, FFTW_FORWARD, cfg.measure);
      plan_bwd = row_plan(my_rows(), cfg.n, FFTW_BACKWARD, cfg.measure);
    }
  }

  // exp(-2 pi i j1 k2 / N) for this pencil's rows j1 and every column k2;
  // j1 k2 < n^2 = N is exact in integers, so large N loses nothing.
  void make_twiddles() {
    twiddle = allocate(cells());
    const std::uint64_t n = cfg.n, big_n = n * n, r0 = cfg.first(me());
    for (std::size_t r = 0; r < my_rows(); ++r)
      for (std::uint64_t k = 0; k < n; ++k) {
        const std::uint64_t e = (r0 + r) * k;
        const double angle = -2.0 * std::numbers::pi * static_cast<double>(e) / static_cast<double>(big_n);
        twiddle[r * n + k] = std::polar(1.0, angle);
      }
  }

  // ---- one transform ------------------------------------------------------
  void run(std::int32_t sign, std::int32_t call, roam::callback<void> done) {
    if (step < 3 && started) roam::abort("roam::fft: a transform started while the last one was running (await each call)");
    direction = sign;
    this_call = call;
    done_ = std::move(done);
    step = 0;
    started = true;
    send_blocks();
    advance();
  }

  // Rows [first(q), ..) of the transposed matrix are columns [first(q), ..)
  // of this pencil's rows: the block for q, packed so that each of q's rows
  // receives one contiguous run.
  void send_blocks() {
    const std::size_t n = static_cast<std::size_t>(cfg.n), mine = my_rows();
    for (std::int64_t q = 0; q < cfg.pencils; ++q) {
      const std::size_t c0 = static_cast<std::size_t>(cfg.first(q)), cols = static_cast<std::size_t>(cfg.rows(q));
      if (q == me()) {
        place(step, me(), pack(c0, cols, n, mine).data());
        continue;
      }
      if (agg)
        aggregator().insert(roam::index<1>{static_cast<std::int32_t>(q)},
                            block_item{this_call, step, static_cast<std::int32_t>(me()), pack(c0, cols, n, mine)});
      else
        this_array()[q].send<&pencil::block>(this_call, step, static_cast<std::int32_t>(me()), pack(c0, cols, n, mine));
    }
  }
  std::vector<complex> pack(std::size_t c0, std::size_t cols, std::size_t n, std::size_t mine) const {
    std::vector<complex> out(cols * mine);
    // Tiles keep both the strided reads and the writes in cache.
    constexpr std::size_t tile = 32;
    for (std::size_t rb = 0; rb < mine; rb += tile)
      for (std::size_t cb = 0; cb < cols; cb += tile)
        for (std::size_t c = cb; c < std::min(cb + tile, cols); ++c)
          for (std::size_t r = rb; r < std::min(rb + tile, mine); ++r) out[c * mine + r] = data[r * n + c0 + c];
    return out;
  }
  void place(std::int32_t s, std::int64_t from, const complex* block) {
    const std::size_t n = static_cast<std::size_t>(cfg.n), run = static_cast<std::size_t>(cfg.rows(from));
    const std::size_t at = static_cast<std::size_t>(cfg.first(from));
    complex* dst = in[s & 1].get();
    for (std::size_t r = 0; r < my_rows(); ++r) std::memcpy(static_cast<void*>(dst + r * n + at), block + r * run, run * sizeof(complex));
    ++got[s & 1];
  }

  void block(std::int32_t call, std::int32_t s, std::int32_t from, std::vector<complex> part) {
    accept(call, s, from, part);
    advance();
  }

  // The aggregator's handler. It may run inside this PE's own flush (another
  // pencil's send_blocks): the step it completes goes on in a message of its
  // own, never inside the sender's loop.
  void take(block_item b) {
    accept(b.call, b.step, b.from, b.part);
    if (started && step < 3 && got[step & 1] == cfg.pencils && !resume_posted) {
      resume_posted = true;
      this_proxy().send<&pencil::resume>();
    }
  }
  void resume() {
    resume_posted = false;
    advance();
  }
  // The aggregator's type names this class's member: it cannot be a data
  // member of the (then incomplete) class, so the pencil holds it erased.
  using transposer = roam::aggregator<&pencil::take>;
  transposer& aggregator() const { return *static_cast<transposer*>(agg.get()); }
  void use(transposer a, roam::callback<void> done) {
    agg = std::make_shared<transposer>(a);
    contribute(done);
  }

  void accept(std::int32_t call, std::int32_t s, std::int32_t from, const std::vector<complex>& part) {
    if (call != this_call && !(call == this_call + 1 && step >= 3)) {
      // A block of the next call may come before this pencil's run (the
      // broadcast reaches pencils in any order); any other is a caller
      // that did not await its last call.
      roam::abort("roam::fft: pencil " + std::to_string(me()) + " got a block of transform " + std::to_string(call) +
                  " during transform " + std::to_string(this_call));
    }
    if (part.size() != my_rows() * static_cast<std::size_t>(cfg.rows(from)))
      roam::abort("roam::fft: pencil " + std::to_string(me()) + " got a block of the wrong size from pencil " + std::to_string(from));
    place(s, from, part.data());
  }

  void advance() {
    while (started && step < 3 && got[step & 1] == cfg.pencils) {
      got[step & 1] = 0;
      std::swap(data, in[step & 1]);
      compute();
      ++step;
      if (step < 3) send_blocks();
    }
    if (started && step == 3) {
      started = false;
      contribute(done_);
    }
  }

  void compute() {
    const std::size_t n = static_cast<std::size_t>(cfg.n);
    auto* d = reinterpret_cast<fftw_complex*>(data.get());
    if (step <= 1 && my_rows() > 0) fftw_execute_dft(direction == FFTW_FORWARD ? plan_fwd : plan_bwd, d, d);
    if (step == 0) {  // twiddles between the two sets of row FFTs (conjugate for the inverse)
      const std::size_t count = my_rows() * n;
      if (direction == FFTW_FORWARD)
        for (std::size_t i = 0; i < count; ++i) data[i] *= twiddle[i];
      else
        for (std::size_t i = 0; i < count; ++i) data[i] *= std::conj(twiddle[i]);
    }
    if (step == 2 && direction == FFTW_BACKWARD) {
      const double scale = 1.0 / (static_cast<double>(cfg.n) * static_cast<double>(cfg.n));
      for (std::size_t i = 0; i < my_rows() * n; ++i) data[i] *= scale;
    }
  }

  // ---- data in and out ----------------------------------------------------
  void fill_random(std::uint64_t seed, roam::callback<void> done) {
    const std::uint64_t n = cfg.n, r0 = cfg.first(me());
    for (std::size_t i = 0; i < cells(); ++i) data[i] = random_entry(seed, r0 * n + i);
    contribute(done);
  }
  void set_rows(std::vector<complex> rows, roam::callback<void> done) {
    if (rows.size() != cells()) roam::abort("roam::fft: set_rows of the wrong size");
    std::copy(rows.begin(), rows.end(), data.get());
    contribute(done);
  }
  void get_rows(roam::callback<std::vector<std::vector<complex>>> done) {
    contribute(std::vector<complex>(data.get(), data.get() + cells()), roam::concat, done);
  }
  void difference(std::uint64_t seed, roam::callback<double> done) {
    const std::uint64_t n = cfg.n, r0 = cfg.first(me());
    double worst = 0;
    for (std::size_t i = 0; i < cells(); ++i) worst = std::max(worst, std::abs(data[i] - random_entry(seed, r0 * n + i)));
    contribute(worst, roam::max, done);
  }

  // Moves between calls (a balancer at the caller's sync points): the data
  // travels, the twiddles and plans are made again.
  void pup(roam::pup_er& p) {
    p | cfg | direction | this_call | step | started | got;
    bool aggregated = agg != nullptr;
    p | aggregated;
    if (aggregated) {
      if (p.is_unpacking()) agg = std::make_shared<transposer>();
      p | aggregator();
    }
    if (p.is_unpacking()) init();
    p.bytes(static_cast<void*>(data.get()), cells() * sizeof(complex));
    p.bytes(static_cast<void*>(in[0].get()), cells() * sizeof(complex));
    p.bytes(static_cast<void*>(in[1].get()), cells() * sizeof(complex));
  }

  shape cfg;
  aligned_complex data, twiddle;
  std::array<aligned_complex, 2> in;
  fftw_plan plan_fwd = nullptr, plan_bwd = nullptr;
  std::int32_t direction = FFTW_FORWARD, this_call = -1, step = 3;
  bool started = false;
  std::array<std::int32_t, 2> got{0, 0};
  roam::callback<void> done_;
  std::shared_ptr<void> agg;  // a transposer under options::aggregated
  bool resume_posted = false;
};

struct plan_state {
  roam::array_proxy<pencil> pencils;
  shape cfg;
  std::int32_t calls = 0;
};

}  // namespace detail

complex random_entry(std::uint64_t seed, std::uint64_t i) noexcept {
  // splitmix64 of (seed, i): independent of where or in what order rows are made.
  auto mix = [](std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  const std::uint64_t a = mix(seed * 0x632be59bd9b4e019ull + 2 * i), b = mix(seed * 0x632be59bd9b4e019ull + 2 * i + 1);
  constexpr double unit = 1.0 / 9007199254740992.0;  // 2^-53
  return {static_cast<double>(a >> 11) * unit * 2.0 - 1.0, static_cast<double>(b >> 11) * unit * 2.0 - 1.0};
}

roam::task<fft1d> fft1d::create(std::size_t n, options o) {
  if (n == 0) throw std::invalid_argument("roam::fft::fft1d::create: n must be at least 1");
  detail::shape s;
  s.n = n;
  const std::size_t wanted = o.pencils > 0 ? static_cast<std::size_t>(o.pencils) : 4 * static_cast<std::size_t>(roam::num_pes());
  if (o.pencils > 0 && static_cast<std::size_t>(o.pencils) > n)
    throw std::invalid_argument("roam::fft::fft1d::create: " + std::to_string(o.pencils) + " pencils for " +
                                std::to_string(n) + " rows (at most one pencil a row)");
  s.pencils = static_cast<std::int32_t>(std::min(wanted, n));
  s.measure = o.measure;
  auto state = std::make_shared<detail::plan_state>();
  state->cfg = s;
  state->pencils = roam::create_array<detail::pencil>(roam::array_options<1>({s.pencils}, roam::block_map()), s);
  if (o.aggregated) {
    // Every block of one pencil to one PE's pencils fills that PE's buffer;
    // the rest leave when this PE goes idle.
    roam::aggregation_options a;
    a.items_per_buffer = static_cast<std::uint32_t>(std::max<std::size_t>(1, (s.pencils + roam::num_pes() - 1) / roam::num_pes()));
    auto agg = roam::make_aggregator<&detail::pencil::take>(state->pencils, a);
    auto [done, cb] = roam::make_future_callback<void>();
    state->pencils.send<&detail::pencil::use>(agg, cb);
    co_await done;
  }
  co_return fft1d(std::move(state));
}

std::size_t fft1d::n() const noexcept { return static_cast<std::size_t>(state_->cfg.n); }
int fft1d::pencils() const noexcept { return state_->cfg.pencils; }

roam::task<> fft1d::transform(int sign) {
  auto [done, cb] = roam::make_future_callback<void>();
  state_->pencils.send<&detail::pencil::run>(static_cast<std::int32_t>(sign), state_->calls++, cb);
  co_await done;
}
roam::task<> fft1d::forward() { return transform(FFTW_FORWARD); }
roam::task<> fft1d::inverse() { return transform(FFTW_BACKWARD); }

roam::task<> fft1d::fill_random(std::uint64_t seed) {
  auto [done, cb] = roam::make_future_callback<void>();
  state_->pencils.send<&detail::pencil::fill_random>(seed, cb);
  co_await done;
}

roam::task<> fft1d::set(std::vector<complex> x) {
  if (x.size() != size())
    throw std::invalid_argument("roam::fft::fft1d::set: " + std::to_string(x.size()) + " values for a transform of " +
                                std::to_string(size()));
  auto [done, cb] = roam::make_future_callback<void>();
  const detail::shape& s = state_->cfg;
  for (std::int64_t q = 0; q < s.pencils; ++q) {
    const auto b = x.begin() + static_cast<std::ptrdiff_t>(s.first(q) * s.n);
    const auto e = x.begin() + static_cast<std::ptrdiff_t>(s.first(q + 1) * s.n);
    state_->pencils[q].send<&detail::pencil::set_rows>(std::vector<complex>(b, e), cb);
  }
  co_await done;
}

roam::task<std::vector<complex>> fft1d::get() {
  auto [done, cb] = roam::make_future_callback<std::vector<std::vector<complex>>>();
  state_->pencils.send<&detail::pencil::get_rows>(cb);
  std::vector<std::vector<complex>> parts = co_await done;
  std::vector<complex> all;
  all.reserve(size());
  for (auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  co_return all;
}

roam::task<double> fft1d::max_difference(std::uint64_t seed) {
  auto [done, cb] = roam::make_future_callback<double>();
  state_->pencils.send<&detail::pencil::difference>(seed, cb);
  co_return co_await done;
}

}  // namespace roam::fft
