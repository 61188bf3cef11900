// amr1d: adaptive refinement of a 1-D mesh as a sparse chare array.
//
// The unit interval is covered by blocks indexed by (level, position): block
// (l, p) covers [p / 2^l, (p + 1) / 2^l) and holds `cells` integer masses.
// A feature moves across the interval. Each step, blocks near it split (two
// children inserted, the block destroyed; each cell's mass is divided
// exactly) and, level by level from the finest, pairs of blocks whose parent
// is far from it merge back (the left one re-inserts the parent with its
// half, the right one sends its half there). Quiescence detection separates
// the phases; a reduction checks after each step that the total mass (the
// "volume") is conserved exactly and reports the mesh. Blocks also migrate
// to spread the work.
//   amr1d [steps=12] [+p N]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <roam/roam.hpp>

#include "command_line.hpp"

namespace {

constexpr int cells = 4;
constexpr std::uint32_t base_level = 2, max_level = 7;

struct block_id {
  std::uint32_t level = 0;
  std::uint32_t pos = 0;
  friend bool operator==(const block_id&, const block_id&) = default;
};

double feature_at(int step) { return 0.1 + 0.06 * step; }
// Distance from the feature to the interval of block (level, pos).
double distance(std::uint32_t level, std::uint32_t pos, double x) {
  double w = 1.0 / static_cast<double>(1u << level), lo = pos * w, hi = lo + w;
  return x < lo ? lo - x : x > hi ? x - hi : 0.0;
}
bool wants_split(const block_id& b, double x) { return b.level < max_level && distance(b.level, b.pos, x) < 0.02; }
bool parent_far(const block_id& b, double x) {
  return b.level > base_level && distance(b.level - 1, b.pos / 2, x) > 0.1;
}

struct block : roam::element<block, block_id> {
  explicit block(std::vector<std::int64_t> m) : mass(std::move(m)) {}
  explicit block(roam::migrating) {}

  void refine(int step) {
    if (!wants_split(this_index(), feature_at(step))) return;
    std::vector<std::int64_t> left, right;
    for (std::int64_t v : mass) {  // each cell becomes two: halves that add up exactly
      std::int64_t a = v / 2, b = v - a;
      (left.size() < cells ? left : right).push_back(a);
      (left.size() < cells ? left : right).push_back(b);
    }
    block_id me = this_index();
    this_array().insert(block_id{me.level + 1, me.pos * 2}, left);
    this_array().insert(block_id{me.level + 1, me.pos * 2 + 1}, right);
    destroy_self();
  }
  void coarsen(int step, std::uint32_t level) {
    block_id me = this_index();
    if (me.level != level || !parent_far(me, feature_at(step))) return;
    std::vector<std::int64_t> half(cells / 2);
    for (int i = 0; i < cells; ++i) half[static_cast<std::size_t>(i / 2)] += mass[static_cast<std::size_t>(i)];
    block_id parent{me.level - 1, me.pos / 2};
    if (me.pos % 2 == 0) {
      half.resize(cells, 0);
      this_array().insert(parent, half);
    } else {
      this_array()[parent].send<&block::absorb>(half);  // waits at its home until the parent is inserted
    }
    destroy_self();
  }
  void absorb(std::vector<std::int64_t> right) {
    for (int i = 0; i < cells / 2; ++i) mass[static_cast<std::size_t>(cells / 2 + i)] = right[static_cast<std::size_t>(i)];
  }
  void spread(int step) {
    block_id me = this_index();
    std::uint32_t pe = (me.pos * 7 + me.level + static_cast<std::uint32_t>(step)) % roam::num_pes();
    migrate_to(roam::pe_id{pe});
  }
  void census(roam::callback<std::vector<std::int64_t>> cb) {
    std::int64_t total = 0;
    for (std::int64_t v : mass) total += v;
    std::vector<std::int64_t> r(4 + max_level, 0);  // [3 + level] for every level up to max_level
    r[0] = total;
    r[1] = 1;
    r[2] = static_cast<std::int64_t>(roam::my_pe().value() + 1);  // summed: a spread check
    r[3 + this_index().level] = 1;
    contribute(r, roam::sum, cb);
  }
  void pup(roam::pup_er& p) { p | mass; }

  std::vector<std::int64_t> mass;
};

roam::task<> settle() {
  auto [f, p] = roam::make_future<>();
  roam::on_quiescence(roam::callback<>::to_future(p));
  co_await f;
}

constexpr examples::usage_text usage{"amr1d", "[STEPS in 0..100000]",
                                     "  STEPS         steps of the moving feature: refine, coarsen, spread (default 12)\n",
                                     "amr1d 40 +p4"};

}  // namespace

int main(int argc, char** argv) {
  return roam::run(argc, argv, [](const roam::args& a) -> roam::task<> {
    const std::optional<int> parsed = examples::read_command_line(
        a, usage, 1, {}, [](const examples::command_line& c) { return c.whole(1, "STEPS", 12, 0, 100'000); });
    if (!parsed) co_return;  // the usage is printed and the program ends
    const int steps = *parsed;
    auto blocks = roam::create_sparse_array<block>();
    const std::int64_t cell_mass = 1 << 20;
    for (std::uint32_t p = 0; p < (1u << base_level); ++p)
      blocks.insert(block_id{base_level, p}, std::vector<std::int64_t>(cells, cell_mass));
    blocks.done_inserting();
    const std::int64_t total = (std::int64_t{1} << base_level) * cells * cell_mass;
    bool ok = true;
    for (int step = 0; step < steps; ++step) {
      blocks.send<&block::refine>(step);
      co_await settle();
      for (std::uint32_t level = max_level; level > base_level; --level) {
        blocks.send<&block::coarsen>(step, level);
        co_await settle();
      }
      blocks.send<&block::spread>(step);
      co_await settle();
      auto [f, p] = roam::make_future<std::vector<std::int64_t>>();
      blocks.send<&block::census>(roam::callback<std::vector<std::int64_t>>::to_future(p));
      std::vector<std::int64_t> c = co_await f;
      std::printf("step %2d: feature at %.2f, %3lld blocks, mass %lld%s, per level:", step, feature_at(step),
                  static_cast<long long>(c[1]), static_cast<long long>(c[0]), c[0] == total ? "" : " (NOT CONSERVED)");
      std::int64_t counted = 0;
      for (std::uint32_t l = base_level; l <= max_level; ++l) {
        std::printf(" %lld", static_cast<long long>(c[3 + l]));
        counted += c[3 + l];
      }
      std::printf("%s\n", counted == c[1] ? "" : " (LEVELS DISAGREE)");
      ok = ok && c[0] == total && counted == c[1];
    }
    std::printf("amr1d: %s\n", ok ? "mass conserved" : "FAILED");
    roam::exit(ok ? 0 : 1);
  });
}
