#pragma once
/// An LP chare: a block of LPs, an element of the simulation's array, so
/// that the runtime places LPs in groups and the load balancer moves them.
/// Its PE's manager runs its events (manager.hpp) and charges their time to
/// it. It moves only at the engine's balancing steps, when every LP has been
/// rolled back to GVT: it then carries its LPs (state, stream, send counter,
/// pending anti-messages) and their pending events, and hands them to the
/// manager of the PE it lands on.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include <roam/pdes/detail/manager.hpp>
#include <roam/roam.hpp>

namespace roam::pdes::detail {

template <class Model>
class lp_chare final : public element<lp_chare<Model>, index<1>> {
 public:
  using wire = wire_event<typename Model::message>;

  lp_chare(group_proxy<manager<Model>> managers, lp_id lps, lp_id per_chare) : managers_(managers) {
    const lp_id first = static_cast<lp_id>(this->this_index()[0]) * per_chare;
    records_.resize(static_cast<std::size_t>(std::min(per_chare, lps - first)));
    manager<Model>* m = local_manager();
    for (std::size_t i = 0; i < records_.size(); ++i) lp_access::setup(records_[i].ctx, first + i, m);
    m->attach(*this);
  }
  explicit lp_chare(migrating) {}
  lp_chare(const lp_chare&) = delete;
  lp_chare& operator=(const lp_chare&) = delete;

  std::vector<lp_record<Model>>& records() noexcept { return records_; }
  /// Pending events travelling with the chare (filled by the manager before a balancing step).
  std::vector<wire>& pending() noexcept { return pending_; }

  /// The manager's balancing step reached the point where chares may move.
  void at_balancing_point() { this->at_sync(); }
  /// After the balancer, on the PE the chare is now on.
  void resume_from_sync() { local_manager()->reattach(*this); }
  /// The simulation has finished (its manager has read the LPs' results).
  void retire() { this->destroy_self(); }
  /// Moving in the middle of the run would leave its manager's events behind.
  void before_migration() {
    if (!local_manager()->balancing())
      roam::abort("roam::pdes: pe " + std::to_string(my_pe().value()) + ", LP chare[" +
                  std::to_string(this->this_index()[0]) +
                  "]: LP chares move only at the engine's balancing steps (engine_options::balance_every); "
                  "+LBPeriod and roam::balance_now cannot move them");
  }

  /// The chare leaving the process (or +serialize): LPs and pending events.
  template <class P>
  void pup(P& p) {
    p | managers_;
    std::uint64_t n = records_.size();
    p | n;
    if (p.is_unpacking()) records_.resize(static_cast<std::size_t>(n));
    for (lp_record<Model>& r : records_) {
      lp_access::pup(r.ctx, p);
      p | r.state | r.cancelled | r.committed | r.past_end;
    }
    p | pending_;
  }

 private:
  manager<Model>* local_manager() const {
    manager<Model>* m = managers_.local();
    if (!m)
      throw std::logic_error("roam::pdes: pe " + std::to_string(my_pe().value()) + ", LP chare[" +
                             std::to_string(this->this_index()[0]) + "]: no manager on this PE");
    return m;
  }

  group_proxy<manager<Model>> managers_;
  std::vector<lp_record<Model>> records_;
  std::vector<wire> pending_;
};

}  // namespace roam::pdes::detail
