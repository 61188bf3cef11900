// The serial reference the parallel forces are checked against (physics.hpp).
#include <algorithm>

#include "physics.hpp"

namespace leanmd {

double serial_forces(const config& conf, std::vector<probe>& all) {
  const constants k(conf);
  std::sort(all.begin(), all.end(), [](const probe& p, const probe& q) { return p.id < q.id; });
  double box[3];
  for (int d = 0; d < 3; ++d) box[d] = conf.cells[d] * conf.cell_width();
  for (probe& p : all) std::fill(std::begin(p.acc), std::end(p.acc), 0.0);
  double u = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    for (std::size_t j = i + 1; j < all.size(); ++j) {
      double d[3], r2 = 0;
      for (int c = 0; c < 3; ++c) {
        d[c] = all[i].pos[c] - all[j].pos[c];
        d[c] -= box[c] * std::nearbyint(d[c] / box[c]);
        r2 += d[c] * d[c];
      }
      if (r2 >= k.rc2 || r2 < too_close2) continue;
      const double r = std::sqrt(r2);
      const double s = k.ka / std::pow(r, 13) - k.kb / std::pow(r, 7);
      u += k.ka11 / std::pow(r, 11) - k.kb5 / std::pow(r, 5) - k.ushift;
      for (int c = 0; c < 3; ++c) {
        all[i].acc[c] += s * d[c];
        all[j].acc[c] -= s * d[c];
      }
    }
  }
  return u;
}

}  // namespace leanmd
