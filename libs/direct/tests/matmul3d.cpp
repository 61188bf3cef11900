// matmul3d: C = A·B for n×n single-precision matrices on a CX×CY×CZ grid of
// array elements (the CkDirect seed's §4.2; the 3-D algorithm of Charm++'s
// topology example), with its three exchanges done two ways:
//   message  every slice travels as an entry message (std::vector<float>)
//   channel  every slice is put through a roam::direct channel straight
//            into the place the receiver keeps it
// Element (x,y,z) holds block A(x,y) (bx×by), B(y,z) (by×bz) and computes the
// partial C(x,z) = A(x,y)·B(y,z); it starts with 1/CZ of A's rows and 1/CX of
// B's rows, gathers the rest from the elements that share the block (along
// z for A, along x for B), and after the product the partials are summed
// along y, element (x,y,z) keeping rows y of C(x,z) (a reduce-scatter).
// Iterations are separated by a reduction (as in the seed and in Charm++),
// which is what makes re-arming the channels after use safe.
//
//   matmul3d MODE N CXxCYxCZ ITERS [--check] [+p P ...]
//     MODE: message | channel | both (both runs, results compared bit for
//     bit: "matmul3d: identical"). --check: every element compares its rows
//     of C with a plain dot product and the largest scaled error
//     |C - C_ref| / (N ε) is printed and must be below 16.
// Prints "matmul3d: MODE N on CXxCYxCZ elements, P pes, ITERS iterations,
// X ms/iteration (after the first), G GFlop/s, hash H".
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <roam/direct/channel.hpp>
#include <roam/roam.hpp>

namespace {

struct params {
  int n = 64;
  std::array<int, 3> grid{2, 2, 2};  // elements along x, y, z
  bool channels = false;
  bool check = false;
  void pup(roam::pup_er& p) { p | n | grid | channels | check; }
  int bx() const { return n / grid[0]; }  // rows of A and C per block
  int by() const { return n / grid[1]; }  // columns of A, rows of B
  int bz() const { return n / grid[2]; }  // columns of B and C
  int a_rows() const { return bx() / grid[2]; }  // A rows each element owns
  int b_rows() const { return by() / grid[0]; }  // B rows each element owns
  int c_rows() const { return bx() / grid[1]; }  // C rows each element ends with
};

// The matrices, by global position: anyone can regenerate any entry.
float a_at(int i, int j) { return static_cast<float>((i * 31 + j * 17) % 101) / 101.0f - 0.5f; }
float b_at(int j, int k) { return static_cast<float>((j * 13 + k * 29) % 97) / 97.0f - 0.5f; }

using clock_type = std::chrono::steady_clock;
constexpr int kA = 0, kB = 1, kC = 2;

struct block : roam::element<block, roam::index<3>> {
  explicit block(params p) : cfg_(p) { init(); }
  explicit block(roam::migrating) {}

  int x() const { return this_index()[0]; }
  int y() const { return this_index()[1]; }
  int z() const { return this_index()[2]; }
  std::size_t a_slice() const { return static_cast<std::size_t>(cfg_.a_rows()) * static_cast<std::size_t>(cfg_.by()); }
  std::size_t b_slice() const { return static_cast<std::size_t>(cfg_.b_rows()) * static_cast<std::size_t>(cfg_.bz()); }
  std::size_t c_slice() const { return static_cast<std::size_t>(cfg_.c_rows()) * static_cast<std::size_t>(cfg_.bz()); }
  std::span<float> a_part(int k) { return std::span(a).subspan(static_cast<std::size_t>(k) * a_slice(), a_slice()); }
  std::span<float> b_part(int i) { return std::span(b).subspan(static_cast<std::size_t>(i) * b_slice(), b_slice()); }
  std::span<float> c_part(int j) { return std::span(c).subspan(static_cast<std::size_t>(j) * c_slice(), c_slice()); }

  void init() {
    const int bx = cfg_.bx(), by = cfg_.by(), bz = cfg_.bz();
    a.assign(static_cast<std::size_t>(bx) * static_cast<std::size_t>(by), 0.0f);
    b.assign(static_cast<std::size_t>(by) * static_cast<std::size_t>(bz), 0.0f);
    c.assign(static_cast<std::size_t>(bx) * static_cast<std::size_t>(bz), 0.0f);
    for (int r = z() * cfg_.a_rows(); r < (z() + 1) * cfg_.a_rows(); ++r)
      for (int j = 0; j < by; ++j) a[static_cast<std::size_t>(r * by + j)] = a_at(x() * bx + r, y() * by + j);
    for (int r = x() * cfg_.b_rows(); r < (x() + 1) * cfg_.b_rows(); ++r)
      for (int k = 0; k < bz; ++k) b[static_cast<std::size_t>(r * bz + k)] = b_at(y() * by + r, z() * bz + k);
    partial.assign(static_cast<std::size_t>(cfg_.grid[1]), std::vector<float>(c_slice(), 0.0f));
    // Sized here: a neighbour's connect may come before this element's connect_all.
    const auto g = cfg_.grid;
    in[kA].resize(static_cast<std::size_t>(g[2]));
    in[kB].resize(static_cast<std::size_t>(g[0]));
    in[kC].resize(static_cast<std::size_t>(g[1]));
    out[kA].resize(static_cast<std::size_t>(g[2]));
    out[kB].resize(static_cast<std::size_t>(g[0]));
    out[kC].resize(static_cast<std::size_t>(g[1]));
  }

  // Channel mode: a receiver for every slice this element is sent, each
  // into its final place (A's and B's rows) or a buffer per sender (C).
  void connect_all(int) {
    const auto g = cfg_.grid;
    for (int k = 0; k < g[2]; ++k) {
      if (k == z()) continue;
      in[kA][static_cast<std::size_t>(k)] = roam::direct::make_channel(*this, a_part(k), [this] { arrived(kA); });
      this_array()[roam::index<3>{x(), y(), k}].send<&block::connect>(kA, z(), roam::direct::channel(in[kA][static_cast<std::size_t>(k)]));
    }
    for (int i = 0; i < g[0]; ++i) {
      if (i == x()) continue;
      in[kB][static_cast<std::size_t>(i)] = roam::direct::make_channel(*this, b_part(i), [this] { arrived(kB); });
      this_array()[roam::index<3>{i, y(), z()}].send<&block::connect>(kB, x(), roam::direct::channel(in[kB][static_cast<std::size_t>(i)]));
    }
    for (int j = 0; j < g[1]; ++j) {
      if (j == y()) continue;
      in[kC][static_cast<std::size_t>(j)] =
          roam::direct::make_channel(*this, std::span(partial[static_cast<std::size_t>(j)]), [this] { arrived(kC); });
      this_array()[roam::index<3>{x(), j, z()}].send<&block::connect>(kC, y(), roam::direct::channel(in[kC][static_cast<std::size_t>(j)]));
    }
    check_connected();
  }
  // `to`: the coordinate (along the exchange's axis) of the element the channel fills.
  void connect(int what, int to, roam::direct::channel ch) {
    auto& c_out = out[what][static_cast<std::size_t>(to)];
    c_out = std::move(ch);
    if (what == kA) c_out.attach(std::span<const float>(a_part(z())));
    else if (what == kB) c_out.attach(std::span<const float>(b_part(x())));
    else c_out.attach(std::span<const float>(c_part(to)));
    ++connected;
    check_connected();
  }
  void check_connected() {
    const auto g = cfg_.grid;
    if (connected == (g[0] - 1) + (g[1] - 1) + (g[2] - 1) && !told_connected) {
      told_connected = true;
      contribute(roam::callback<>::function<&connected_all>(roam::pe_id{0}));
    }
  }
  static void connected_all();

  // One iteration: send this element's rows of A and B to the elements that share the blocks.
  void start(int it) {
    iter = it;
    const auto g = cfg_.grid;
    for (int k = 0; k < g[2]; ++k) {
      if (k == z()) continue;
      if (cfg_.channels) out[kA][static_cast<std::size_t>(k)].put();
      else this_array()[roam::index<3>{x(), y(), k}].send<&block::take>(kA, z(), std::vector<float>(a_part(z()).begin(), a_part(z()).end()));
    }
    for (int i = 0; i < g[0]; ++i) {
      if (i == x()) continue;
      if (cfg_.channels) out[kB][static_cast<std::size_t>(i)].put();
      else this_array()[roam::index<3>{i, y(), z()}].send<&block::take>(kB, x(), std::vector<float>(b_part(x()).begin(), b_part(x()).end()));
    }
    started = true;
    try_multiply();
  }

  // Message mode: a slice from the element at `from` along the exchange's axis.
  void take(int what, int from, std::vector<float> data) {
    std::span<float> to = what == kA ? a_part(from) : what == kB ? b_part(from) : std::span(partial[static_cast<std::size_t>(from)]);
    std::copy(data.begin(), data.end(), to.begin());
    arrived(what);
  }

  void arrived(int what) {
    ++count[what];
    if (what == kC) try_sum();
    else try_multiply();
  }

  void try_multiply() {
    const auto g = cfg_.grid;
    if (!started || count[kA] < g[2] - 1 || count[kB] < g[0] - 1) return;
    started = false;
    count[kA] = count[kB] = 0;
    multiply();
    if (cfg_.channels) {  // A's and B's rows are read: the next iteration may fill them
      for (int k = 0; k < g[2]; ++k)
        if (k != z()) in[kA][static_cast<std::size_t>(k)].ready();
      for (int i = 0; i < g[0]; ++i)
        if (i != x()) in[kB][static_cast<std::size_t>(i)].ready();
    }
    for (int j = 0; j < g[1]; ++j) {
      if (j == y()) continue;
      if (cfg_.channels) out[kC][static_cast<std::size_t>(j)].put();
      else this_array()[roam::index<3>{x(), j, z()}].send<&block::take>(kC, y(), std::vector<float>(c_part(j).begin(), c_part(j).end()));
    }
    multiplied = true;
    try_sum();
  }

  void multiply() {
    const int bx = cfg_.bx(), by = cfg_.by(), bz = cfg_.bz();
    std::fill(c.begin(), c.end(), 0.0f);
    for (int i = 0; i < bx; ++i) {
      float* __restrict cr = c.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(bz);
      for (int j = 0; j < by; ++j) {
        const float aij = a[static_cast<std::size_t>(i) * static_cast<std::size_t>(by) + static_cast<std::size_t>(j)];
        const float* __restrict br = b.data() + static_cast<std::size_t>(j) * static_cast<std::size_t>(bz);
        for (int k = 0; k < bz; ++k) cr[k] += aij * br[k];
      }
    }
  }

  // Rows y of C(x,z): the partials of every y', summed in y' order.
  void try_sum() {
    if (!multiplied || count[kC] < cfg_.grid[1] - 1) return;
    multiplied = false;
    count[kC] = 0;
    std::vector<float>& mine = partial[static_cast<std::size_t>(y())];
    std::span<const float> own = c_part(y());
    std::vector<float> sum(c_slice(), 0.0f);
    for (int j = 0; j < cfg_.grid[1]; ++j) {
      const float* p = j == y() ? own.data() : partial[static_cast<std::size_t>(j)].data();
      for (std::size_t e = 0; e < sum.size(); ++e) sum[e] += p[e];
    }
    mine = std::move(sum);  // partial[y] is never a channel's buffer: it keeps the result
    if (cfg_.channels)
      for (int j = 0; j < cfg_.grid[1]; ++j)
        if (j != y()) in[kC][static_cast<std::size_t>(j)].ready();
    std::uint64_t h = 1469598103934665603ull;
    for (float v : mine) {
      std::uint32_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      h = (h ^ bits) * 1099511628211ull;
    }
    // Integer sums (modulo 2^64): the same whatever order the elements' values meet in.
    contribute(std::array<std::uint64_t, 2>{h, cfg_.check ? error_millis() : 0}, roam::sum,
               roam::callback<std::array<std::uint64_t, 2>>::function<&iteration_done>(roam::pe_id{0}));
  }

  // The largest |C - C_ref| / (N ε) over this element's rows, in thousandths.
  std::uint64_t error_millis() const {
    const int bx = cfg_.bx(), bz = cfg_.bz();
    const std::vector<float>& mine = partial[static_cast<std::size_t>(y())];
    double worst = 0;
    for (int r = 0; r < cfg_.c_rows(); ++r)
      for (int k = 0; k < bz; ++k) {
        const int gi = x() * bx + y() * cfg_.c_rows() + r, gk = z() * bz + k;
        double ref = 0;
        for (int j = 0; j < cfg_.n; ++j) ref += static_cast<double>(a_at(gi, j)) * static_cast<double>(b_at(j, gk));
        const double got = mine[static_cast<std::size_t>(r) * static_cast<std::size_t>(bz) + static_cast<std::size_t>(k)];
        worst = std::max(worst, std::fabs(got - ref));
      }
    const double scaled = worst / (cfg_.n * static_cast<double>(std::numeric_limits<float>::epsilon()));
    return static_cast<std::uint64_t>(std::ceil(scaled * 1000.0));
  }
  static void iteration_done(std::array<std::uint64_t, 2> r);

  params cfg_;
  std::vector<float> a, b, c;
  std::vector<std::vector<float>> partial;  // C rows y from each y' (own result at [y])
  std::array<std::vector<roam::direct::receiver>, 3> in;
  std::array<std::vector<roam::direct::channel>, 3> out;
  int iter = 0, connected = 0;
  std::array<int, 3> count{0, 0, 0};
  bool started = false, multiplied = false, told_connected = false;
};

roam::promise<int> g_connected;  // PE 0, the run in progress
roam::promise<std::array<std::uint64_t, 2>> g_iteration;
void block::connected_all() { g_connected.set_value(1); }
void block::iteration_done(std::array<std::uint64_t, 2> r) { g_iteration.set_value(r); }

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    std::vector<std::string> pos;
    params base;
    for (std::size_t i = 1; i < a.size(); ++i) {
      if (a[i] == "--check") base.check = true;
      else pos.push_back(a[i]);
    }
    if (pos.size() != 4) {
      const bool help = pos.size() == 1 && (pos[0] == "--help" || pos[0] == "-h");
      std::fprintf(help ? stdout : stderr, "usage: matmul3d message|channel|both N CXxCYxCZ ITERS [--check]\n");
      roam::exit(help ? 0 : 2);
      co_return;
    }
    const std::string mode = pos[0];
    base.n = std::atoi(pos[1].c_str());
    const int iters = std::atoi(pos[3].c_str());
    int cx = 0, cy = 0, cz = 0;
    bool ok = (mode == "message" || mode == "channel" || mode == "both") &&
              std::sscanf(pos[2].c_str(), "%dx%dx%d", &cx, &cy, &cz) == 3 && cx > 0 && cy > 0 && cz > 0 && base.n > 0;
    if (ok) {
      base.grid = {cx, cy, cz};
      // Every block divides evenly, and so do the rows each element owns.
      ok = base.n % cx == 0 && base.n % cy == 0 && base.n % cz == 0 && base.bx() % cz == 0 && base.by() % cx == 0 &&
           base.bx() % cy == 0;
    }
    if (!ok || iters < 1) {
      std::fprintf(stderr, "matmul3d: MODE message|channel|both; N divisible by CX, CY, CZ, and N/CX by CY and CZ, N/CY "
                           "by CX; ITERS >= 1\n");
      roam::exit(2);
      co_return;
    }
    std::vector<std::string> runs = mode == "both" ? std::vector<std::string>{"message", "channel"} : std::vector<std::string>{mode};
    std::vector<std::uint64_t> hashes;
    bool accurate = true;
    for (const std::string& m : runs) {
      params p = base;
      p.channels = m == "channel";
      auto arr = roam::create_array<block>(roam::index<3>{cx, cy, cz}, p);
      if (p.channels) {
        auto [f, pr] = roam::make_future<int>();
        g_connected = pr;
        arr.send<&block::connect_all>(0);
        co_await f;
      }
      std::array<std::uint64_t, 2> r{};
      auto t0 = clock_type::now(), t1 = t0;
      for (int it = 0; it < iters; ++it) {
        auto [f, pr] = roam::make_future<std::array<std::uint64_t, 2>>();
        g_iteration = pr;
        arr.send<&block::start>(it);
        r = co_await f;
        if (it == 0) t1 = clock_type::now();  // the first iteration warms caches and pools
      }
      const auto t2 = clock_type::now();
      const double per = iters > 1 ? std::chrono::duration<double>(t2 - t1).count() / (iters - 1)
                                   : std::chrono::duration<double>(t2 - t0).count();
      const double flops = 2.0 * std::pow(static_cast<double>(p.n), 3);
      std::printf("matmul3d: %s %d on %dx%dx%d elements, %u pes, %d iterations, %.2f ms/iteration (after the first), "
                  "%.2f GFlop/s, hash %llx\n",
                  m.c_str(), p.n, cx, cy, cz, roam::num_pes(), iters, per * 1e3, flops / per * 1e-9,
                  static_cast<unsigned long long>(r[0]));
      if (p.check) {
        // Each element's worst, summed: an upper bound on the largest.
        const double err = static_cast<double>(r[1]) / 1000.0;
        std::printf("matmul3d: %s scaled error |C - C_ref| / (N eps) <= %.3f (threshold 16): %s\n", m.c_str(), err,
                    err < 16 ? "PASSED" : "FAILED");
        accurate = accurate && err < 16;
      }
      std::fflush(stdout);
      hashes.push_back(r[0]);
    }
    int rc = accurate ? 0 : 1;
    if (hashes.size() == 2) {
      std::printf(hashes[0] == hashes[1] ? "matmul3d: identical\n" : "matmul3d: DIFFERENT\n");
      if (hashes[0] != hashes[1]) rc = 1;
    }
    roam::exit(rc);
  });
}
