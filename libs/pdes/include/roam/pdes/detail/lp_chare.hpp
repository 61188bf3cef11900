#pragma once
/// An LP chare: a block of LPs, an element of the simulation's array, so
/// that the runtime can place (and, later, move) LPs in groups. Its PE's
/// manager runs its events (manager.hpp).
#include <algorithm>
#include <string>
#include <vector>

#include <roam/pdes/detail/manager.hpp>
#include <roam/roam.hpp>

namespace roam::pdes::detail {

template <class Model>
class lp_chare final : public element<lp_chare<Model>, index<1>> {
 public:
  lp_chare(group_proxy<manager<Model>> managers, lp_id lps, lp_id per_chare) {
    const lp_id first = static_cast<lp_id>(this->this_index()[0]) * per_chare;
    records_.resize(static_cast<std::size_t>(std::min(per_chare, lps - first)));
    manager<Model>* m = managers.local();
    if (!m)
      roam::abort("roam::pdes: pe " + std::to_string(my_pe().value()) + ", LP chare[" +
                  std::to_string(this->this_index()[0]) + "]: built before its PE's manager");
    for (std::size_t i = 0; i < records_.size(); ++i) lp_access::setup(records_[i].ctx, first + i, m);
    m->attach(*this);
  }
  lp_chare(const lp_chare&) = delete;
  lp_chare& operator=(const lp_chare&) = delete;

  std::vector<lp_record<Model>>& records() noexcept { return records_; }

 private:
  std::vector<lp_record<Model>> records_;
};

}  // namespace roam::pdes::detail
