// The computes: forces between the atoms of two cells, or within one (leanmd.hpp).
#include "leanmd.hpp"

namespace leanmd {

roam::task<> compute::run() {
  const constants k(*cfg);
  const auto& i = this_index();
  const cell_index a{i[0], i[1], i[2]};
  const cell_index b{wrap(i[3], cfg->cells[0]), wrap(i[4], cfg->cells[1]), wrap(i[5], cfg->cells[2])};
  const std::array<int, 3> d{i[3] - i[0], i[4] - i[1], i[5] - i[2]};
  const bool self = d == std::array<int, 3>{};
  const double w = cfg->cell_width();
  const double shift[3] = {(i[3] - b[0]) * w, (i[4] - b[1]) * w, (i[5] - b[2]) * w};
  for (;; ++step_) {
    if (!synced_) {
      if (step_ == 0 && cfg->reduce_forces) {
        for (int n = 0; n < (self ? 1 : 2); ++n) {
          auto [from, section] = co_await joined;
          (from == number_of(a) ? of_a_ : of_b_) = section;
        }
      }
      auto [s1, from1, p1] = co_await positions.receive(step_);
      roam::buffer<double> p2;  // the second cell's positions (a pair compute)
      if (!self) {
        auto [s2, from2, second] = co_await positions.receive(step_);
        p2 = std::move(second);
        if (from1 != number_of(a)) std::swap(p1, p2);
      }
      const auto t0 = busy_clock::now();
      if (self) {
        const int n = static_cast<int>(p1.size() / 3);
        roam::buffer<double> f(p1.size());
        const double u = self_forces(k, p1.data(), n, f.mutable_data());
        busy_ += std::chrono::duration<double>(busy_clock::now() - t0).count();
        if (cfg->reduce_forces)
          reduce(of_a_, a, f, u);
        else
          cells_[a].send<&cell::forces>(step_, slot_of({0, 0, 0}), std::move(f), u);
      } else {
        const int na = static_cast<int>(p1.size() / 3), nb = static_cast<int>(p2.size() / 3);
        roam::buffer<double> fa(p1.size()), fb(p2.size());
        const double u = pair_forces(k, p1.data(), na, p2.data(), nb, shift, fa.mutable_data(), fb.mutable_data());
        busy_ += std::chrono::duration<double>(busy_clock::now() - t0).count();
        if (cfg->reduce_forces) {
          reduce(of_a_, a, fa, u);
          reduce(of_b_, b, fb, 0.0);
        } else {
          cells_[a].send<&cell::forces>(step_, slot_of(d), std::move(fa), u);
          cells_[b].send<&cell::forces>(step_, slot_of({-d[0], -d[1], -d[2]}), std::move(fb), 0.0);
        }
      }
      if (report_step(step_))
        contribute(busy_by_pe(busy_), roam::sum,
                   roam::callback<std::vector<double>>::to<&driver::loads>(driver_, step_));
      if (step_ == cfg->steps) break;
      if (sync_after(step_)) {
        synced_ = true;
        at_sync();
      }
    }
    if (synced_) {
      co_await resumed.receive(step_);
      synced_ = false;
    }
  }
}

// --forces reduction: a sum over the cell's section instead of a message to
// the cell (combined on each PE first; not in a fixed order).
void compute::reduce(const roam::section_proxy<compute>& to, const cell_index& c, const roam::buffer<double>& f,
                     double u) {
  using sums = std::tuple<std::vector<double>, double>;
  contribute(to, sums{std::vector<double>(f.begin(), f.end()), u}, roam::tuple_of(roam::sum, roam::sum),
             roam::callback<sums>::to<&cell::summed>(cells_[c], step_));
}

}  // namespace leanmd
