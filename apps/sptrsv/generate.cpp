// Generated matrices (generate.hpp).
#include "generate.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace sptrsv {
namespace {
std::uint64_t mix(std::uint64_t z) {  // splitmix64
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
double unit(std::uint64_t bits) { return static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0); }
}  // namespace

triplets laplacian(int dims, std::int64_t k) {
  triplets t;
  const std::int64_t plane = dims == 3 ? k * k : 1, n = dims == 3 ? k * k * k : k * k;
  t.n = n;
  for (std::int64_t p = 0; p < n; ++p) {
    const std::int64_t x = p % k, y = (p / k) % k, z = dims == 3 ? p / plane : 0;
    t.add(p, p, dims == 3 ? 6.0 : 4.0);
    if (x > 0) t.add(p, p - 1, -1.0);
    if (x + 1 < k) t.add(p, p + 1, -1.0);
    if (y > 0) t.add(p, p - k, -1.0);
    if (y + 1 < k) t.add(p, p + k, -1.0);
    if (dims == 3 && z > 0) t.add(p, p - plane, -1.0);
    if (dims == 3 && z + 1 < k) t.add(p, p + plane, -1.0);
  }
  return t;
}

triplets random_geometric(std::int64_t n, std::uint64_t seed, int degree) {
  std::uint64_t state = mix(seed ^ 0x6a09e667f3bcc909ull);
  std::vector<double> px(static_cast<std::size_t>(n)), py(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    px[static_cast<std::size_t>(i)] = unit(state = mix(state));
    py[static_cast<std::size_t>(i)] = unit(state = mix(state));
  }
  const double radius = std::sqrt(static_cast<double>(std::max(1, degree)) / (3.141592653589793 * static_cast<double>(n)));
  const auto cells = std::max<std::int64_t>(1, static_cast<std::int64_t>(1.0 / radius));
  auto cell_of = [&](double v) { return std::min(cells - 1, static_cast<std::int64_t>(v * static_cast<double>(cells))); };
  std::vector<std::vector<std::int64_t>> grid(static_cast<std::size_t>(cells * cells));
  for (std::int64_t i = 0; i < n; ++i)
    grid[static_cast<std::size_t>(cell_of(px[static_cast<std::size_t>(i)]) * cells + cell_of(py[static_cast<std::size_t>(i)]))].push_back(i);
  triplets t;
  t.n = n;
  std::vector<double> diag(static_cast<std::size_t>(n), 1.0);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto x = px[static_cast<std::size_t>(i)], y = py[static_cast<std::size_t>(i)];
    const std::int64_t cx = cell_of(x), cy = cell_of(y);
    for (std::int64_t gx = std::max<std::int64_t>(0, cx - 1); gx <= std::min(cells - 1, cx + 1); ++gx)
      for (std::int64_t gy = std::max<std::int64_t>(0, cy - 1); gy <= std::min(cells - 1, cy + 1); ++gy)
        for (std::int64_t j : grid[static_cast<std::size_t>(gx * cells + gy)]) {
          if (j <= i) continue;
          const double dx = px[static_cast<std::size_t>(j)] - x, dy = py[static_cast<std::size_t>(j)] - y;
          if (dx * dx + dy * dy >= radius * radius) continue;
          t.add(i, j, -1.0);
          t.add(j, i, -1.0);
          diag[static_cast<std::size_t>(i)] += 1.0;
          diag[static_cast<std::size_t>(j)] += 1.0;
        }
  }
  for (std::int64_t i = 0; i < n; ++i) t.add(i, i, diag[static_cast<std::size_t>(i)]);
  return t;
}

csc random_lower(std::int64_t n, std::uint64_t seed, int per_column, int regions) {
  triplets t;
  t.n = n;
  std::uint64_t state = mix(seed);
  auto next = [&] { return state = mix(state); };
  const double scale = 1.0 / std::max(1, per_column);
  for (std::int64_t c = 0; c < n; ++c) {
    t.add(c, c, 1.0 + unit(next()));
    if (c + 1 == n) continue;
    const auto count = static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(2 * per_column + 1));  // 0 .. 2·per_column
    for (std::int64_t q = 0; q < count; ++q) {
      const std::int64_t r = c + 1 + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(n - c - 1));
      t.add(r, c, (unit(next()) - 0.5) * scale);
    }
  }
  // Dense rectangles: columns [c0, c0 + w), rows [r0, r0 + h) with r0 ≥ c0 + w.
  for (int g = 0; g < regions && n >= 8; ++g) {
    const std::int64_t w = std::clamp<std::int64_t>(n / 16, 1, 200), h = std::clamp<std::int64_t>(n / 8, 1, 2000);
    const std::int64_t c0 = static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(std::max<std::int64_t>(1, n / 2 - w)));
    const std::int64_t r0 = c0 + w + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(std::max<std::int64_t>(1, n - c0 - w - h)));
    for (std::int64_t c = c0; c < c0 + w; ++c)
      for (std::int64_t r = r0; r < std::min(n, r0 + h); ++r) t.add(r, c, (unit(next()) - 0.5) * scale / static_cast<double>(w));
  }
  return compress(t);
}

}  // namespace sptrsv
