// The picture of density and mesh (amr.hpp).
#include "amr.hpp"

#include <algorithm>
#include <cmath>

#include "png.hpp"

namespace amr {

// Density (blue 0.1 to red 1) on a size×size picture, the leaves' edges in
// white where they are 4 pixels or more; false with `error` if not written.
bool write_image(const std::string& path, const std::vector<std::vector<double>>& blocks, int cells, int size, std::string& error) {
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(size) * static_cast<std::size_t>(size) * 3, 0);
  for (const auto& b : blocks) {
    const double side = std::ldexp(1.0, -static_cast<int>(b[0]));
    const int x0 = static_cast<int>(b[1] * side * size), x1 = static_cast<int>((b[1] + 1) * side * size);
    const int y0 = static_cast<int>(b[2] * side * size), y1 = static_cast<int>((b[2] + 1) * side * size);
    const bool outline = x1 - x0 >= 4;
    for (int py = y0; py < y1; ++py)
      for (int px = x0; px < x1; ++px) {
        const int ci = std::min(cells - 1, (px - x0) * cells / std::max(1, x1 - x0));
        const int cj = std::min(cells - 1, (py - y0) * cells / std::max(1, y1 - y0));
        const double t = std::clamp((b[3 + static_cast<std::size_t>(cj * cells + ci)] - 0.1) / 0.9, 0.0, 1.0);
        auto* p = rgb.data() + (static_cast<std::size_t>(size - 1 - py) * static_cast<std::size_t>(size) + static_cast<std::size_t>(px)) * 3;
        const bool edge = outline && (px == x0 || py == y0);
        p[0] = edge ? 255 : static_cast<std::uint8_t>(255 * t);
        p[1] = edge ? 255 : static_cast<std::uint8_t>(60 * (1 - t));
        p[2] = edge ? 255 : static_cast<std::uint8_t>(255 * (1 - t));
      }
  }
  return write_png(path, size, size, rgb, error);
}

}  // namespace amr
