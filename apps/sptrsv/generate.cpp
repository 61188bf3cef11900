// Generated matrices (generate.hpp).
#include "generate.hpp"

#include <algorithm>

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
    const std::int64_t w = std::max<std::int64_t>(1, n / 16), h = std::max<std::int64_t>(1, n / 8);
    const std::int64_t c0 = static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(std::max<std::int64_t>(1, n / 2 - w)));
    const std::int64_t r0 = c0 + w + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(std::max<std::int64_t>(1, n - c0 - w - h)));
    for (std::int64_t c = c0; c < c0 + w; ++c)
      for (std::int64_t r = r0; r < std::min(n, r0 + h); ++r) t.add(r, c, (unit(next()) - 0.5) * scale / static_cast<double>(w));
  }
  return compress(t);
}

}  // namespace sptrsv
