// amr: 2-D advection of a density blob by a constant velocity, first-order
// upwind, on the leaves of a quad-tree of blocks addressed by bit-vector
// indices (quad_index.hpp), elements of a sparse array (docs/design/amr.md).
// Every R steps the mesh adapts: each leaf wishes to refine or coarsen by
// its density jumps, neighbours raise their wishes until no two face
// neighbours would be more than one level apart (quiescence ends it), then
// leaves split into four or four siblings merge into their parent. Mass is
// conserved exactly: the fluxes on a face between levels are the finer
// side's. With --check (no remeshing) the field is compared with a serial
// run of the same scheme; --check-mesh checks the tiling and 2:1 balance
// after every remesh.
//
//   amr [--depth D] [--min-depth A] [--max-depth B] [--cells M] [--steps S] [--remesh-every R]
//       [--cfl C] [--mass-every K] [--check] [--check-mesh]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "amr.hpp"

namespace amr {
namespace {
roam::task<> quiet() {
  auto [f, p] = roam::make_future<>();
  roam::on_quiescence(roam::callback<>::to_future(p));
  co_await f;
}

}  // namespace

roam::task<> driver::run() {
  const settings& s = s_;
  const std::uint32_t side = 1u << s.depth;
  if (!made_) {
    made_ = true;
    blocks_ = roam::create_sparse_array<block>(roam::sparse_options<quad_index>(roam::custom_map<&curve_map>()));
    for (std::uint32_t y = 0; y < side; ++y)
      for (std::uint32_t x = 0; x < side; ++x) blocks_.insert(quad_index::at(s.depth, x, y), s);
    blocks_.done_inserting();
    std::printf("amr: %u x %u blocks of %d x %d cells (depth %u, %u to %u), %d steps, remesh every %d, on %u pes\n", side, side,
                s.cells, s.cells, s.depth, s.min_depth, s.max_depth, s.steps, s.remesh_every, roam::num_pes());
  }
  auto blocks = blocks_;
  const auto t0 = std::chrono::steady_clock::now();
  const int first_step = start_;  // the rate counts the steps run here (after a restart, from it)
  const double updates_before = cell_updates_, remesh_before = remesh_seconds_;
  const bool balance = roam::load_balancing_enabled();
  while (start_ < s.steps) {
    if (!asked_) {
      const int until = s.remesh_every > 0 ? std::min(s.steps, start_ + s.remesh_every) : s.steps;
      blocks.send<&block::run>(this_proxy(), until, remeshed_at_);
      if (remeshed_at_ != 0) {
        const auto l = std::get<1>(co_await latencies.receive(start_));
        latencies_.insert(latencies_.end(), l.begin(), l.end());
      }
      for (;; next_mass_ = next_mass_ == 0 ? s.mass_every : next_mass_ + s.mass_every) {  // the masses of this segment
        const int at = std::min(next_mass_, s.steps);
        if (at > until) break;
        const double m = std::get<1>(co_await masses.receive(at))[0];
        if (m0_ < 0) m0_ = m;
        last_mass_ = m;
        worst_ = std::max(worst_, std::abs(m - m0_) / m0_);
        if (at == s.steps) break;
      }
      const segment_stats st = std::get<1>(co_await segments.receive(until));
      cell_updates_ += st[0] * s.cells * s.cells * (until - start_);
      start_ = until;
      std::printf("amr: step %d: %ld blocks%s (%s)\n", start_, static_cast<long>(st[0]), start_ < s.steps ? " before the remesh" : "",
                  levels(st).c_str());
      if (s.image_every > 0 && (start_ % s.image_every == 0 || start_ == s.steps)) {
        auto [cells, ccb] = roam::make_future_callback<std::vector<std::vector<double>>>();
        blocks.send<&block::snapshot>(ccb);
        const auto all = co_await cells;
        const int size = static_cast<int>(std::min<std::uint64_t>(1024, (std::uint64_t{1} << s.max_depth) * static_cast<std::uint64_t>(s.cells)));
        char name[32];
        std::snprintf(name, sizeof name, "-%06d.png", start_);
        std::string error;
        if (write_image(s.image_prefix + name, all, s.cells, size, error))
          std::printf("amr: image %s%s (%d x %d)\n", s.image_prefix.c_str(), name, size, size);
        else
          std::printf("amr: image NOT written: %s\n", error.c_str());
      }
      if (start_ >= s.steps) break;
      if (start_ == s.checkpoint_at) {  // every block idle between segments: the runtime waits for quiet anyway
        asked_ = true;
        roam::checkpoint(s.checkpoint_dir, roam::callback<roam::checkpoint_result>::to<&driver::saved>(this_proxy(), start_));
      }
    }
    if (asked_) {
      const roam::checkpoint_result r = std::get<1>(co_await saved.receive(start_));
      asked_ = false;
      if (!r.ok)
        std::printf("amr: step %d: checkpoint FAILED (the run goes on): %s\n", start_, r.error.c_str());
      else
        std::printf("amr: step %d: %s %s (%llu objects)\n", start_, r.restarted ? "restarted from" : "checkpoint", r.path.c_str(),
                    static_cast<unsigned long long>(r.objects));
      std::fflush(stdout);
    }
    // Remesh: wishes until quiet, then the change until quiet.
    const auto r0 = std::chrono::steady_clock::now();
    remeshed_at_ = std::chrono::duration_cast<std::chrono::nanoseconds>(r0.time_since_epoch()).count();
    blocks.send<&block::decide>();
    co_await quiet();
    blocks.send<&block::apply>();
    co_await quiet();
    if (balance) {  // the blocks move by their measured loads
      auto [moved, mcb] = roam::make_future_callback<void>();
      blocks.send<&block::balance>(mcb);
      co_await moved;
    }
    ++remeshes_;
    // Every leaf's place (one reduction): for the equal split along the
    // curve, and for the checks.
    auto [leaves, cb] = roam::make_future_callback<std::vector<std::vector<double>>>();
    blocks.send<&block::describe>(cb);
    const auto mesh = co_await leaves;
    if (s.curve_balance && roam::num_pes() > 1) {
      std::vector<std::uint64_t> keys;
      keys.reserve(mesh.size());
      for (const auto& l : mesh)
        keys.push_back(curve_key(quad_index::at(static_cast<std::uint32_t>(l[0]), static_cast<std::uint32_t>(l[1]), static_cast<std::uint32_t>(l[2]))));
      std::sort(keys.begin(), keys.end());
      std::vector<std::uint64_t> cuts;
      for (std::uint32_t p = 1; p < roam::num_pes(); ++p) cuts.push_back(keys[keys.size() * p / roam::num_pes()]);
      blocks.send<&block::move_along_curve>(cuts);
      co_await quiet();
    }
    remesh_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - r0).count();
    if (s.check_mesh) {
      std::string problem = mesh_problem(mesh);
      // One level per remesh: the blob's edge is at the deepest depth once enough remeshes have run.
      if (problem.empty() && static_cast<std::uint32_t>(remeshes_) >= s.max_depth - s.depth) problem = blob_edge_problem(mesh, s, start_);
      if (!problem.empty() && mesh_error_.empty()) mesh_error_ = "after the remesh at step " + std::to_string(start_) + ": " + problem;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double remeshing = remesh_seconds_ - remesh_before, updates = cell_updates_ - updates_before;
  const bool conserved = worst_ < 1e-10;
  std::printf("amr: %.6f s (remeshing %.6f s in %d remeshes), %.3f M cell updates per second; mass %.12f, largest relative drift %.2e: %s\n",
              seconds, remeshing, remeshes_, updates / seconds * 1e-6, m0_, worst_, conserved ? "conserved" : "NOT CONSERVED");
  bool ok = conserved;
  if (!latencies_.empty()) {
    std::sort(latencies_.begin(), latencies_.end());
    auto at = [&](double q) { return latencies_[static_cast<std::size_t>(q * static_cast<double>(latencies_.size() - 1))] * 1e3; };
    const double step_ms = (seconds - remeshing) / (s.steps - first_step) * 1e3;
    std::printf("amr: remeshing latency per block, ms: min %.3f, 5%% %.3f, median %.3f, 95%% %.3f, max %.3f (%zu samples; a step %.3f ms)\n",
                at(0), at(0.05), at(0.5), at(0.95), at(1), latencies_.size(), step_ms);
  }
  if (s.check_mesh) {
    std::printf("amr: mesh after every remesh: %s\n",
                mesh_error_.empty() ? "tiles the domain, 2:1 balanced, the blob's edge at the deepest depth" : mesh_error_.c_str());
    ok = ok && mesh_error_.empty();
  }
  {  // The final mesh, the same whatever the PEs and restarts: leaves and a sum of their curve places.
    auto [leaves, cb] = roam::make_future_callback<std::vector<std::vector<double>>>();
    blocks.send<&block::describe>(cb);
    const auto mesh = co_await leaves;
    std::uint64_t sum = 0;  // of each leaf's (depth, x, y) mixed (splitmix64): any order gives the same
    for (const auto& l : mesh) {
      std::uint64_t z = (static_cast<std::uint64_t>(l[0]) << 58) ^ (static_cast<std::uint64_t>(l[1]) << 29) ^ static_cast<std::uint64_t>(l[2]);
      z += 0x9e3779b97f4a7c15ull;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      sum += z ^ (z >> 31);
    }
    std::printf("amr: final mesh: %zu leaves, places %016llx; mass %.12f\n", mesh.size(), static_cast<unsigned long long>(sum),
                last_mass_);
  }
  if (s.check) {
    const auto got = std::get<1>(co_await fields.receive(0));
    const std::vector<double> ref = serial_run(s);
    const int n = static_cast<int>(side) * s.cells;
    double diff = 0;
    for (const auto& b : got) {
      const auto bx = static_cast<int>(b[0]), by = static_cast<int>(b[1]);
      for (int j = 0; j < s.cells; ++j)
        for (int i = 0; i < s.cells; ++i) {
          const int gi = bx * s.cells + i, gj = by * s.cells + j;
          diff = std::max(diff, std::abs(b[static_cast<std::size_t>(2 + j * s.cells + i)] - ref[cell(n, gi, gj)]));
        }
    }
    const bool same = diff == 0.0 && got.size() == static_cast<std::size_t>(side) * side;
    std::printf("amr: against the serial run of the same scheme: largest difference %.3g over %zu blocks: %s\n", diff, got.size(),
                same ? "identical" : "DIFFERENT");
    ok = ok && same;
  }
  std::printf("{\"bench\":\"amr\",\"depth\":%u,\"max_depth\":%u,\"cells\":%d,\"steps\":%d,\"remesh_every\":%d,\"pes\":%u,\"seconds\":%.6f,"
              "\"remesh_seconds\":%.6f,\"cell_updates_per_second\":%.1f}\n",
              s.depth, s.max_depth, s.cells, s.steps, s.remesh_every, roam::num_pes(), seconds, remeshing, updates / seconds);
  roam::exit(ok ? 0 : 1);
}

namespace {
int usage(bool help) {
  std::fprintf(help ? stdout : stderr,
               "usage: amr [--depth D] [--min-depth A] [--max-depth B] [--cells M] [--steps S] [--remesh-every R] [--order 1|2]\n"
               "           [--cfl C] [--mass-every K] [--check] [--check-mesh] [--no-curve-balance] [--checkpoint-at S DIR]\n"
               "           [--image-every K PREFIX]\n"
               "  2-D advection of a blob, first-order upwind (--order 2: MUSCL with minmod slopes in space), on\n"
               "  quad-tree blocks of M x M cells (M even, at least 4), starting\n"
               "  with every leaf at depth D (default 4, M 16, 100 steps, CFL 0.4); every R steps (0: never, the\n"
               "  default) the mesh adapts between depths A and B; the mass is checked every K steps (default 10);\n"
               "  --check: the field against a serial run (fixed mesh); --check-mesh: after every remesh, the leaves\n"
               "  tile the domain, are 2:1 balanced and are of depth B where the blob's edge is; after each remesh the\n"
               "  blocks are split evenly along the space-filling curve (unless --no-curve-balance); --checkpoint-at:\n"
               "  a checkpoint in DIR after step S (restart it with amr +restart DIR, on any number of PEs); --image-every:\n"
               "  PREFIX-STEP.png of density and mesh after segments ending at multiples of K, and at the end\n"
               "example: amr --depth 4 --max-depth 6 --remesh-every 10 --steps 200 +p2\n");
  return help ? 0 : 2;
}

}  // namespace
}  // namespace amr

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) {
    amr::settings s;
    double min_depth = -1, max_depth = -1;
    for (std::size_t i = 1; i < a.size(); ++i) {
      const std::string& w = a[i];
      const bool has = i + 1 < a.size();
      auto number = [&](double lo, double hi, double& out) {
        char* end = nullptr;
        out = std::strtod(a[++i].c_str(), &end);
        if (*end != '\0' || !(out >= lo && out <= hi)) {
          std::fprintf(stderr, "amr: %s takes a number from %g to %g, not '%s'\n", w.c_str(), lo, hi, a[i].c_str());
          return false;
        }
        return true;
      };
      double x = 0;
      bool ok = true;
      if (w == "--depth" && has) {
        ok = number(0, 12, x);
        s.depth = static_cast<std::uint32_t>(x);
      } else if (w == "--min-depth" && has) {
        ok = number(0, 12, min_depth);
      } else if (w == "--max-depth" && has) {
        ok = number(0, 15, max_depth);
      } else if (w == "--cells" && has) {
        ok = number(4, 4096, x);
        s.cells = static_cast<int>(x) / 2 * 2;
      } else if (w == "--steps" && has) {
        ok = number(1, 1e9, x);
        s.steps = static_cast<int>(x);
      } else if (w == "--remesh-every" && has) {
        ok = number(0, 1e9, x);
        s.remesh_every = static_cast<int>(x);
      } else if (w == "--order" && has) {
        ok = number(1, 2, x);
        s.order = static_cast<int>(x);
      } else if (w == "--cfl" && has) {
        ok = number(1e-6, 1, s.cfl);
      } else if (w == "--mass-every" && has) {
        ok = number(1, 1e9, x);
        s.mass_every = static_cast<int>(x);
      } else if (w == "--check") {
        s.check = true;
      } else if (w == "--check-mesh") {
        s.check_mesh = true;
      } else if (w == "--image-every" && i + 2 < a.size()) {
        ok = number(1, 1e9, x);
        s.image_every = static_cast<int>(x);
        s.image_prefix = a[++i];
      } else if (w == "--no-curve-balance") {
        s.curve_balance = false;
      } else if (w == "--checkpoint-at" && i + 2 < a.size()) {
        ok = number(1, 1e9, x);
        s.checkpoint_at = static_cast<int>(x);
        s.checkpoint_dir = a[++i];
      } else {
        if (w != "--help" && w != "-h") std::fprintf(stderr, "amr: unknown option '%s'\n", w.c_str());
        roam::exit(amr::usage(w == "--help" || w == "-h"));
        return;
      }
      if (!ok) {
        roam::exit(2);
        return;
      }
    }
    s.min_depth = min_depth >= 0 ? static_cast<std::uint32_t>(min_depth) : std::min<std::uint32_t>(s.depth, 2);
    s.max_depth = max_depth >= 0 ? static_cast<std::uint32_t>(max_depth) : s.depth;
    if (s.min_depth > s.depth || s.max_depth < s.depth) {
      std::fprintf(stderr, "amr: the depths must satisfy min-depth <= depth <= max-depth\n");
      roam::exit(2);
      return;
    }
    if (s.check && s.remesh_every > 0) {
      std::fprintf(stderr, "amr: --check compares a fixed mesh with a serial run: not with --remesh-every\n");
      roam::exit(2);
      return;
    }
    if (s.checkpoint_at >= 0 && (s.remesh_every == 0 || s.checkpoint_at % s.remesh_every != 0 || s.checkpoint_at >= s.steps)) {
      std::fprintf(stderr, "amr: --checkpoint-at takes a step before the last that ends a segment (a multiple of --remesh-every)\n");
      roam::exit(2);
      return;
    }
    auto d = roam::create_chare_on<amr::driver>(roam::pe_id{0}, s);
    d.send<&amr::driver::run>();
  });
}
