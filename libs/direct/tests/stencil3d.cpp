// stencil3d: Jacobi relaxation of a 3-D 7-point stencil (the CkDirect seed's
// §4.1) on an N^3 grid split into B^3 blocks, one array element each, with
// the halo exchange done two ways:
//   message  each face travels as an entry message (std::vector<double>)
//   channel  each face is put through a roam::direct channel into the
//            neighbour's ghost buffer
// No barrier between iterations: ghosts are double-buffered by iteration
// parity (a neighbour is at most one iteration ahead), and a block re-arms
// parity p's channels as soon as it has copied them into its halo, which is
// before it sends the faces that let the neighbour go two iterations on.
//
//   stencil3d MODE N B ITERS [--move-every K] [+p P ...]
//     MODE: message | channel | both (message, then channel, then the two
//     results compared bit for bit: "stencil3d: identical")
//     --move-every K: every K iterations each block moves to the next PE.
//   (B may be BXxBYxBZ: N is then the cells per block side.)
// Prints "stencil3d: MODE BXxBYxBZ blocks of n^3 on P pes, ITERS iterations,
// X us/iteration, hash H" (wall time from start to the last block's result;
// H: a sum of per-block hashes of every cell's bits).
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <roam/direct/channel.hpp>
#include <roam/roam.hpp>

namespace {

struct params {
  int n = 32;      // cells per block side
  std::array<int, 3> blocks{2, 2, 2};  // blocks per dimension
  int iters = 10;
  int move_every = 0;
  bool channels = false;
  void pup(roam::pup_er& p) { p | n | blocks | iters | move_every | channels; }
};

using clock_type = std::chrono::steady_clock;
struct result {
  std::uint64_t hash = 0;
  double seconds = 0;
  void pup(roam::pup_er& p) { p | hash | seconds; }
};

constexpr int opposite(int f) { return f ^ 1; }  // faces: -x +x -y +y -z +z

struct block : roam::element<block, roam::index<3>> {
  explicit block(params p) : cfg_(p) { init(); }
  explicit block(roam::migrating) {}

  int n() const { return cfg_.n; }
  std::size_t at(int x, int y, int z) const {
    const std::size_t s = static_cast<std::size_t>(n() + 2);
    return (static_cast<std::size_t>(z) * s + static_cast<std::size_t>(y)) * s + static_cast<std::size_t>(x);
  }
  bool has(int f) const {
    const int d = f / 2, c = this_index()[d];
    return (f & 1) ? c + 1 < cfg_.blocks[static_cast<std::size_t>(d)] : c > 0;
  }
  roam::index<3> neighbour(int f) const {
    roam::index<3> i = this_index();
    i[f / 2] += (f & 1) ? 1 : -1;
    return i;
  }

  void init() {
    const std::size_t cells = static_cast<std::size_t>(n() + 2) * static_cast<std::size_t>(n() + 2) *
                              static_cast<std::size_t>(n() + 2);
    grid.assign(cells, 0.0);
    next.assign(cells, 0.0);
    // A hot spot per block (deterministic), the global boundary held at 0.
    for (int z = 1; z <= n(); ++z)
      for (int y = 1; y <= n(); ++y)
        for (int x = 1; x <= n(); ++x)
          grid[at(x, y, z)] = static_cast<double>(((x * 7 + y * 13 + z * 17 + this_index()[0] * 3 + this_index()[1] * 5 +
                                                   this_index()[2] * 11) % 97)) / 97.0;
    const std::size_t face = static_cast<std::size_t>(n()) * static_cast<std::size_t>(n());
    for (auto& parity : ghost)
      for (auto& g : parity) g.assign(face, 0.0);
    for (auto& e : edge) e.assign(face, 0.0);
  }

  // Channel mode: each ghost buffer's receiver goes to the neighbour that fills it.
  void connect_all(roam::promise<int> ready) {
    ready_ = ready;
    for (int f = 0; f < 6; ++f) {
      if (!has(f)) continue;
      for (int p = 0; p < 2; ++p) {
        in[p][f] = roam::direct::make_channel(*this, std::span(ghost[p][f]), [this, p] { ghost_in(p); });
        this_array()[neighbour(f)].send<&block::connect>(p, opposite(f), roam::direct::channel(in[p][f]));
      }
    }
    check_connected();
  }
  void connect(int p, int f, roam::direct::channel c) {
    out[p][f] = std::move(c);
    out[p][f].attach(std::span(edge[f]));
    ++connected;
    check_connected();
  }
  void check_connected() {
    int need = 0;
    for (int f = 0; f < 6; ++f) need += has(f) ? 2 : 0;
    if (connected == need && ready_armed) {
      ready_armed = false;
      contribute(roam::callback<>::function<&connected_all>(roam::pe_id{0}));
    }
  }
  static void connected_all();

  void start(roam::promise<result> done) {
    done_ = done;
    t0 = clock_type::now();
    send_faces();
  }

  // Message mode: a neighbour's face for iteration `it`.
  void face(int it, int f, std::vector<double> data) {
    ghost[it & 1][f] = std::move(data);
    ghost_in(it & 1);
  }
  void ghost_in(int p) {
    ++arrived[p];
    try_compute();
  }

  void send_faces() {
    const int nn = n();
    for (int f = 0; f < 6; ++f) {
      if (!has(f)) continue;
      std::vector<double>& e = edge[f];
      const int d = f / 2, c = (f & 1) ? nn : 1;
      std::size_t k = 0;
      for (int b = 1; b <= nn; ++b)
        for (int a = 1; a <= nn; ++a) {
          const int x = d == 0 ? c : a, y = d == 1 ? c : (d == 0 ? a : b), z = d == 2 ? c : b;
          e[k++] = grid[at(x, y, z)];
        }
      if (cfg_.channels) out[iter & 1][f].put();
      else this_array()[neighbour(f)].send<&block::face>(iter, opposite(f), e);
    }
  }

  void try_compute() {
    int need = 0;
    for (int f = 0; f < 6; ++f) need += has(f) ? 1 : 0;
    const int p = iter & 1;
    if (arrived[p] < need || iter >= cfg_.iters) return;
    arrived[p] = 0;
    const int nn = n();
    // Ghosts into the halo, then this parity's buffers are free again.
    for (int f = 0; f < 6; ++f) {
      if (!has(f)) continue;
      const std::vector<double>& g = ghost[p][f];
      const int d = f / 2, c = (f & 1) ? nn + 1 : 0;
      std::size_t k = 0;
      for (int b = 1; b <= nn; ++b)
        for (int a = 1; a <= nn; ++a) {
          const int x = d == 0 ? c : a, y = d == 1 ? c : (d == 0 ? a : b), z = d == 2 ? c : b;
          grid[at(x, y, z)] = g[k++];
        }
      if (cfg_.channels) in[p][f].ready();
    }
    for (int z = 1; z <= nn; ++z)
      for (int y = 1; y <= nn; ++y)
        for (int x = 1; x <= nn; ++x)
          next[at(x, y, z)] = (grid[at(x - 1, y, z)] + grid[at(x + 1, y, z)] + grid[at(x, y - 1, z)] +
                               grid[at(x, y + 1, z)] + grid[at(x, y, z - 1)] + grid[at(x, y, z + 1)] +
                               grid[at(x, y, z)]) *
                              (1.0 / 7.0);
    std::swap(grid, next);
    ++iter;
    if (iter == cfg_.iters) {
      std::uint64_t h = 1469598103934665603ull;
      for (int z = 1; z <= nn; ++z)
        for (int y = 1; y <= nn; ++y)
          for (int x = 1; x <= nn; ++x) {
            std::uint64_t bits;
            std::memcpy(&bits, &grid[at(x, y, z)], sizeof bits);
            h = (h ^ bits) * 1099511628211ull;
          }
      const double s = std::chrono::duration<double>(clock_type::now() - t0).count();
      // Integer sums (modulo 2^64): the same whatever order the blocks' values meet in.
      contribute(std::array<std::uint64_t, 2>{h, static_cast<std::uint64_t>(s * 1e9)}, roam::sum,
                 roam::callback<std::array<std::uint64_t, 2>>::function<&finished>(roam::pe_id{0}));
      return;
    }
    send_faces();
    if (cfg_.move_every > 0 && iter % cfg_.move_every == 0)
      migrate_to(roam::pe_id{(roam::my_pe().value() + 1) % roam::num_pes()});
    try_compute();  // the next parity's ghosts may all be here
  }
  static void finished(std::array<std::uint64_t, 2> r);

  void after_migration() {
    for (int f = 0; f < 6; ++f) {
      if (!has(f) || !cfg_.channels) continue;
      for (int p = 0; p < 2; ++p) {
        in[p][f].rebind(*this, std::span(ghost[p][f]), [this, p] { ghost_in(p); });
        out[p][f].attach(std::span(edge[f]));
      }
    }
  }
  void pup(roam::pup_er& p) {
    p | cfg_ | grid | next | ghost | edge | iter | arrived | connected;
    for (auto& parity : in)
      for (auto& r : parity) p | r;
    for (auto& parity : out)
      for (auto& c : parity) p | c;
  }

  params cfg_;
  std::vector<double> grid, next;
  std::array<std::array<std::vector<double>, 6>, 2> ghost;
  std::array<std::vector<double>, 6> edge;
  std::array<std::array<roam::direct::receiver, 6>, 2> in;
  std::array<std::array<roam::direct::channel, 6>, 2> out;
  int iter = 0, connected = 0;
  std::array<int, 2> arrived{0, 0};
  bool ready_armed = true;
  roam::promise<int> ready_;
  roam::promise<result> done_;
  clock_type::time_point t0;
};

roam::promise<int> g_connected;      // PE 0, the run in progress
roam::promise<result> g_finished;
void block::connected_all() { g_connected.set_value(1); }
void block::finished(std::array<std::uint64_t, 2> r) {
  // Sums over blocks: of the hashes, and of the nanoseconds (averaged by the caller).
  g_finished.set_value(result{r[0], static_cast<double>(r[1]) * 1e-9});
}

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    std::vector<std::string> pos;
    params base;
    for (std::size_t i = 1; i < a.size(); ++i) {
      if (a[i] == "--move-every" && i + 1 < a.size()) base.move_every = std::atoi(a[++i].c_str());
      else pos.push_back(a[i]);
    }
    if (pos.size() != 4) {
      const bool help = pos.size() == 1 && (pos[0] == "--help" || pos[0] == "-h");
      std::fprintf(help ? stdout : stderr,
                   "usage: stencil3d message|channel|both N B|BXxBYxBZ ITERS [--move-every K] (N: cells per side, "
                   "or per block side with BXxBYxBZ)\n");
      roam::exit(help ? 0 : 2);
      co_return;
    }
    const std::string mode = pos[0];
    const int N = std::atoi(pos[1].c_str());
    base.iters = std::atoi(pos[3].c_str());
    int bx = 0, by = 0, bz = 0;
    bool ok = mode == "message" || mode == "channel" || mode == "both";
    if (std::sscanf(pos[2].c_str(), "%dx%dx%d", &bx, &by, &bz) == 3) {  // N: cells per block side
      base.blocks = {bx, by, bz};
      base.n = N;
      ok = ok && bx > 0 && by > 0 && bz > 0 && N > 0;
    } else {  // N: cells per side of the grid, B^3 blocks
      const int b = std::atoi(pos[2].c_str());
      base.blocks = {b, b, b};
      ok = ok && b > 0 && N % b == 0;
      base.n = ok ? N / b : 0;
    }
    if (!ok || base.iters < 1) {
      std::fprintf(stderr, "stencil3d: MODE message|channel|both; N a multiple of B (or B given as BXxBYxBZ, N then the "
                           "cells per block side); ITERS >= 1\n");
      roam::exit(2);
      co_return;
    }
    std::vector<std::string> runs = mode == "both" ? std::vector<std::string>{"message", "channel"} : std::vector<std::string>{mode};
    std::vector<std::uint64_t> hashes;
    for (const std::string& m : runs) {
      params p = base;
      p.channels = m == "channel";
      auto arr = roam::create_array<block>(roam::index<3>{p.blocks[0], p.blocks[1], p.blocks[2]}, p);
      if (p.channels) {
        auto [f, pr] = roam::make_future<int>();
        g_connected = pr;
        arr.send<&block::connect_all>(roam::promise<int>{});
        co_await f;
      }
      auto [f, pr] = roam::make_future<result>();
      g_finished = pr;
      const auto t0 = clock_type::now();
      arr.send<&block::start>(roam::promise<result>{});
      result r = co_await f;
      const double wall = std::chrono::duration<double>(clock_type::now() - t0).count();
      std::printf("stencil3d: %s %dx%dx%d blocks of %d^3 on %u pes, %d iterations, %.2f us/iteration, hash %llx\n",
                  m.c_str(), p.blocks[0], p.blocks[1], p.blocks[2], p.n, roam::num_pes(), p.iters, wall / p.iters * 1e6,
                  static_cast<unsigned long long>(r.hash));
      std::fflush(stdout);
      hashes.push_back(r.hash);
    }
    if (hashes.size() == 2) {
      std::printf(hashes[0] == hashes[1] ? "stencil3d: identical\n" : "stencil3d: DIFFERENT\n");
      roam::exit(hashes[0] == hashes[1] ? 0 : 1);
      co_return;
    }
    roam::exit(0);
  });
}
