#pragma once
// The load balancing layer's state: per PE, the measurements of the period
// since the last step and where the PE is in the step protocol; on global PE
// 0, the coordinator of the steps (protocol.cpp). docs/design/load-balancing.md.
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <roam/lb/dump.hpp>
#include <roam/lb/strategy.hpp>
#include <roam/msg/pup.hpp>
#include <roam/obj/lifecycle.hpp>
#include <roam/sched/observe.hpp>

#include "meta.hpp"

namespace roam::detail {
struct runtime_state;
}

namespace roam::lb::detail {

/// Objects compared whole (identity has no hash of its own).
struct identity_key {
  object_identity id;
  friend bool operator<(const identity_key& a, const identity_key& b) noexcept {
    return std::tie(a.id.kind, a.id.collection, a.id.index, a.id.chare_id) <
           std::tie(b.id.kind, b.id.collection, b.id.index, b.id.chare_id);
  }
};

/// An object identity on the wire.
struct wire_identity {
  object_identity id;
  template <class P>
  void pup(P& p) {
    auto kind = static_cast<std::uint8_t>(id.kind);
    p | kind | id.dims | id.collection | id.index | id.chare_id;
    id.kind = static_cast<object_kind>(kind);
  }
};

enum class step_kind : std::uint8_t { sync, any };

/// One object of a PE's report.
struct object_report {
  wire_identity who;
  double load = 0;  ///< seconds in the period
  bool migratable = false;
  template <class P>
  void pup(P& p) {
    p | who | load | migratable;
  }
};

/// Messages from one object of a PE's report to another object (anywhere).
struct edge_report {
  wire_identity from, to;
  std::uint64_t messages = 0, bytes = 0;
  template <class P>
  void pup(P& p) {
    p | from | to | messages | bytes;
  }
};

/// What a PE tells the coordinator at a step.
struct pe_report {
  std::uint32_t pe = 0;
  double background = 0;  ///< seconds busy with what no reported object accounts for
  double idle = 0;
  double period = 0;      ///< seconds since the PE's last step
  double speed = 1;       ///< the share of its core the PE had while busy (other processes took the rest)
  std::vector<object_report> objects;
  std::vector<edge_report> edges;  ///< only when the strategy needs the communication graph
  template <class P>
  void pup(P& p) {
    p | pe | background | idle | period | speed | objects | edges;
  }
};

struct comm_total {
  std::uint64_t messages = 0, bytes = 0;
};

/// One object to move.
struct move_order {
  wire_identity who;
  std::uint32_t to = 0;
  template <class P>
  void pup(P& p) {
    p | who | to;
  }
};

/// An object offered by one group to another (distributed hierarchical steps).
struct offered_object {
  wire_identity who;
  double load = 0;
  std::uint32_t pe = 0;  ///< where it is now
  template <class P>
  void pup(P& p) {
    p | who | load | pe;
  }
};

/// Load to send from one group to another.
struct group_transfer {
  std::uint32_t to_group = 0;
  double load = 0;
  template <class P>
  void pup(P& p) {
    p | to_group | load;
  }
};

/// A group leader's part of a distributed hierarchical step (groups.cpp).
struct group_work {
  std::optional<std::pair<step_kind, std::uint32_t>> step;
  std::vector<pe_report> reports;
  bool quota_known = false;
  std::vector<group_transfer> sends;
  std::uint32_t offers_expected = 0;
  std::vector<group_transfer> cross_sends;    ///< three levels: to other super-groups, through ours
  std::uint32_t forwarded_expected = 0;       ///< three levels: 1 (what our super-group received, for us)
  std::vector<offered_object> offers;         ///< objects other groups send here
  std::uint32_t offer_lists = 0;              ///< offer messages received
  std::vector<offered_object> given;          ///< objects this group sends away
  std::vector<move_order> placed;             ///< where the receivers put them (one each)
  bool placed_inside = false;                 ///< the inner strategy ran
  std::vector<std::vector<move_order>> out;   ///< per group PE (local index)
  std::vector<std::vector<wire_identity>> in;
};

/// A thread's scheduling times, ns: on a CPU, and runnable but waiting for one (-1: unknown).
struct run_times {
  std::int64_t on_cpu = -1;
  std::int64_t waiting = -1;
};

/// A group's total work and size, for planning transfers between groups.
struct group_load {
  std::uint32_t group = 0;
  double load = 0;
  std::uint32_t pes = 0;
};

/// A super-group leader's part of a three-level step (groups of groups, groups.cpp).
struct super_work {
  std::optional<std::pair<step_kind, std::uint32_t>> step;
  std::vector<group_load> leaves;             ///< its groups' summaries
  double max_pe = 0;
  std::uint32_t objects = 0;
  bool quota_known = false;
  std::vector<group_transfer> cross_out;      ///< to other super-groups
  std::uint32_t cross_in_expected = 0, cross_in_received = 0;
  std::vector<offered_object> cross_in;       ///< objects other super-groups send here
  std::vector<std::pair<double, std::uint32_t>> room;  ///< (deficit left, group) of its receiving groups
  std::uint32_t leaf_cross_expected = 0, leaf_cross_received = 0;
  std::map<std::uint32_t, std::vector<offered_object>> outgoing;  ///< by destination super-group
  bool forwarded = false;
};

/// A PE's measurements since its last step (written by its own thread only).
struct pe_meter {
  std::unordered_map<const void*, std::uint64_t> ticks;  ///< per object: time in its entries
  const void* last_obj = nullptr;                         ///< one-entry cache of the map
  std::uint64_t* last_ticks = nullptr;
  std::uint64_t idle_ticks = 0;
  std::uint64_t idle_since = 0;
  std::uint64_t charged_away = 0;  ///< ticks of the running entry charge_load gave to other objects
  std::unordered_map<const void*, std::uint64_t> set_ticks;  ///< set_load's: replaces the measured ticks
  std::uint64_t period_start = 0;
  // The communication graph (when a strategy needs it): the objects running here, innermost last,
  // and per sending object what it sent to whom.
  std::vector<const void*> running;
  std::vector<std::uint64_t> cpu_begin;  ///< +LBCpuTime: the thread's CPU time at each open entry's begin
  run_times run_start;  ///< the thread's run times when the period began
  std::unordered_map<const void*, std::map<identity_key, comm_total>> sent;
};

/// A PE's place in the step protocol (its own thread only).
struct pe_sync {
  std::uint32_t sync_step = 0;               ///< the sync step its objects are in
  std::unordered_set<const void*> synced;    ///< objects that called at_sync in this step
  /// Objects that called at_sync on another PE in this step and then moved here (a step at any
  /// time moved them): by identity, since the message saying so may come before they do.
  std::set<identity_key> synced_elsewhere;
  std::size_t participants = 0;              ///< the count the last walk found
  /// Objects that left here before calling at_sync: counted here until the PE they went to says
  /// they called it there (or ended), so that no step ends while one is on its way.
  std::set<identity_key> departed;
  /// Objects here (or on their way here) whose at_sync another PE waits to hear about: by identity,
  /// the PE that waits.
  std::map<identity_key, std::uint32_t> owed;
  /// at_sync of objects that are already in a later step (`ahead`): they arrived (moved by hand)
  /// from a PE that finished this step first and resumed them. Applied when this PE begins that
  /// step (counting them now would end them a step early, and this PE's finish would resume them
  /// a second time).
  std::vector<std::pair<void*, std::string_view>> early;
  /// Objects here (or on their way) that are in a later step than this PE: by identity, that step.
  std::map<identity_key, std::uint32_t> ahead;
  bool membership_changed = false;           ///< an object was born, arrived, left or died since
  bool woke = false;                         ///< told the coordinator this step began here
  std::optional<std::uint32_t> polled;       ///< the coordinator asked for this sync step's report
  bool grouped = false;                      ///< ... to be sent to the group's leader (distributed hierarchical)
  bool reported = false;
  // Migration phase of the current step (sync or any):
  bool moves_known = false;
  std::set<identity_key> incoming;           ///< objects the step sends here
  std::set<identity_key> arrived;            ///< objects that arrived since the report
  bool done_sent = false;
  std::optional<std::pair<step_kind, std::uint32_t>> current;  ///< the step being carried out here
  std::deque<std::function<void()>> balance_now_done;  ///< callbacks of balance_now() calls made here
};

struct pe_lb {
  std::uint32_t pe = 0;
  pe_meter meter;
  pe_sync sync;
  group_work group;  ///< on group leaders
  super_work super;  ///< on super-group leaders (three-level steps)
  std::uint32_t steps_done = 0;
};

/// The steps, run one at a time by global PE 0.
struct coordinator {
  std::optional<std::pair<step_kind, std::uint32_t>> active;
  std::optional<std::uint32_t> sync_wanted;  ///< a sync step some PE began
  std::uint32_t next_sync = 0;               ///< sync steps before this one are finished
  std::vector<std::uint32_t> any_requesters; ///< PEs whose balance_now() the next any-step serves
  std::vector<std::uint32_t> serving;        ///< ... and those the active one serves
  std::uint32_t any_steps = 0;
  std::uint32_t steps = 0;                   ///< all steps run (Rotate, Random's seed)
  std::uint32_t balancings = 0;              ///< steps a strategy ran in (the +balancer list's position)
  meta_balancer meta;                        ///< +MetaLB's history
  std::chrono::steady_clock::time_point moves_sent;
  bool timing_moves = false;                 ///< +MetaLB: measuring how long the last moves took
  std::vector<pe_report> reports;
  bool grouped = false;                      ///< the active step is a distributed hierarchical one
  struct group_summary {
    std::uint32_t group = 0;
    double load = 0;       ///< all work in the group, seconds
    double max_pe = 0;     ///< its most loaded PE's
    std::uint32_t pes = 0;
    std::uint32_t objects = 0;
  };
  std::vector<group_summary> summaries;
  std::vector<std::pair<double, std::uint32_t>> group_results;  ///< per group: max PE load after, moves
  std::uint32_t done = 0;
  bool step_balanced = false;  ///< a strategy ran in the active step (what load_balancing_steps counts)
  double strategy_seconds = 0;
  /// A sync step that cannot finish (stuck_sync.cpp): two rounds of counts
  /// from every PE, a second apart or more, while a sync step waits.
  struct sync_probe {
    bool armed = false;            ///< a probe is due or in flight
    std::uint32_t step = 0;        ///< the sync step being probed
    std::uint32_t round = 0;       ///< 1, then 2 when round 1 found everything quiet
    std::uint32_t replies = 0;
    std::uint64_t created = 0, processed = 0, timers = 0;
    std::uint64_t first_created = 0, first_processed = 0;  ///< round 1's totals
    std::vector<std::string> missing;  ///< round 2: "pe P: object" that never called at_sync
    std::size_t missing_total = 0;
  } probe;
};

/// The process's load balancing state (built by setup.cpp when a run starts).
struct lb_state {
  bool measuring = false;        ///< a strategy will run: measure loads
  bool debug = false;
  std::vector<std::string> strategies;  ///< +balancer, in order
  bool meta = false;
  bool comm = false;             ///< collect the communication graph (a listed strategy needs it)
  bool cpu_time = false;         ///< +LBCpuTime: objects' loads in thread CPU time, not wall time
  std::uint32_t group_pes = 1;   ///< PEs per group of a distributed hierarchical step (+LBGroupPEs; default: a process)
  std::uint32_t fanout = 64;     ///< groups per super-group when there are more groups than this (+LBGroupFanout)
  std::string inner = "GreedyRefine";  ///< what balances inside a group
  std::unique_ptr<dump_writer> dump;    ///< +LBDump, on the coordinator's process
  std::uint32_t num_pes = 0;
  std::uint32_t first_pe = 0;
  std::vector<std::unique_ptr<pe_lb>> pes;  ///< this process's PEs
  std::unique_ptr<coordinator> coord;       ///< on the process of global PE 0
  double ticks_per_second = 1e9;

  pe_lb* of(std::uint32_t pe) noexcept {
    const std::uint32_t i = pe - first_pe;
    return i < pes.size() ? pes[i].get() : nullptr;
  }
};

/// Null when no run is going on.
lb_state* state() noexcept;
/// The calling PE's state (a PE thread of a running program).
pe_lb& this_pe_lb(const char* what);

/// Measures object loads and idle time (subscribed while `measuring`).
class load_meter final : public runtime_observer, public lifecycle_observer {
 public:
  explicit load_meter(lb_state& s) : s_(s) {}
  std::uint32_t needs() const noexcept override {
    return need_begin_times | need_end_times | (s_.comm ? need_begin_calls | need_targets | need_message_bytes : 0u) |
           (s_.cpu_time ? need_begin_calls : 0u);
  }
  void entry_begin(const entry_event& e) noexcept override;
  void entry_end(const entry_event& e) noexcept override;
  void message_sent(const message_event& e) noexcept override;
  void idle_begin(std::uint32_t pe, std::uint64_t ticks) noexcept override;
  void idle_end(std::uint32_t pe, std::uint64_t ticks) noexcept override;
  void leaving(const object_event& e) noexcept override;
  void died(const object_event& e) noexcept override;

 private:
  lb_state& s_;
};

// The protocol's control messages (protocol.cpp).
void on_wake(std::uint32_t sync_step);
void on_request_any(std::uint32_t requester);
void on_poll(std::uint8_t kind, std::uint32_t number, bool grouped);
void on_report(std::uint8_t kind, std::uint32_t number, pe_report r);
void on_moves(std::uint8_t kind, std::uint32_t number, std::vector<move_order> out, std::vector<wire_identity> in);
void on_done(std::uint8_t kind, std::uint32_t number);
void on_finish(std::uint8_t kind, std::uint32_t number, std::vector<std::uint32_t> served, bool balanced);
void on_synced_elsewhere(std::uint32_t sync_step, wire_identity who);
void on_expect_sync(wire_identity who, std::uint32_t waiting_pe, std::uint32_t step);
void on_synced_away(wire_identity who);
/// An object here died: it no longer takes part in the step (its PE may now be complete).
void note_died(pe_lb& p, const object_event& e);
void on_membership_recheck();
// A sync step that cannot finish (stuck_sync.cpp).
/// On PE 0 when a sync step starts: probe it later unless a probe is due already.
void arm_sync_probe(coordinator& c);
void on_sync_probe(std::uint32_t step, std::uint32_t round);
void on_sync_probe_reply(std::uint32_t step, std::uint32_t round, std::uint64_t created, std::uint64_t processed,
                         std::uint64_t timers, std::uint64_t missing_here, std::vector<std::string> missing);
// Distributed hierarchical steps (groups.cpp).
void on_group_report(std::uint8_t kind, std::uint32_t number, pe_report r);
void on_group_summary(std::uint8_t kind, std::uint32_t number, std::uint32_t group, double load, double max_pe,
                      std::uint32_t pes, std::uint32_t objects);
void on_quota(std::uint8_t kind, std::uint32_t number, std::vector<group_transfer> sends,
              std::vector<group_transfer> cross_sends, std::uint32_t offers_expected, std::uint32_t forwarded_expected);
void on_offer(std::uint8_t kind, std::uint32_t number, std::vector<offered_object> objects);
void on_leaf_summary(std::uint8_t kind, std::uint32_t number, std::uint32_t group, double load, double max_pe,
                     std::uint32_t pes, std::uint32_t objects);
void on_super_quota(std::uint8_t kind, std::uint32_t number, double per_pe, std::vector<group_transfer> cross_out,
                    std::uint32_t cross_in_expected);
void on_cross_up(std::uint8_t kind, std::uint32_t number, std::uint32_t to_super, std::vector<offered_object> objects);
void on_cross_bundle(std::uint8_t kind, std::uint32_t number, std::vector<offered_object> objects);
void on_placed(std::uint8_t kind, std::uint32_t number, std::vector<move_order> orders);
void on_group_result(std::uint8_t kind, std::uint32_t number, std::uint32_t group, double max_after, std::uint32_t moved);
/// What each of `count` groups sends to which (overloaded to underloaded, largest first), and how
/// many offers each group will receive (`offers_to`).
/// `per_pe` (when >= 0) is the average to aim at instead of the groups' own; what stays unmatched
/// is left in `donors_left` / `receivers_left` as (amount, group) when given.
std::vector<std::vector<group_transfer>> plan_transfers(const std::vector<group_load>& groups, std::uint32_t count,
                                                        std::vector<std::uint32_t>& offers_to, double per_pe = -1,
                                                        std::vector<std::pair<double, std::uint32_t>>* donors_left = nullptr,
                                                        std::vector<std::pair<double, std::uint32_t>>* receivers_left = nullptr);
/// A donor's objects for each transfer: the heaviest that fit its amount.
std::vector<std::vector<offered_object>> pick_offers(std::vector<offered_object> candidates,
                                                     const std::vector<group_transfer>& sends);
/// The coordinator, once every group summary is in: the transfers between groups.
void plan_between_groups(coordinator& c);
std::uint32_t group_count(const lb_state& s);
/// "array T[i,j]", "chare T #id", or `type`: an object for an error message.
std::string describe_object(const object_identity& id, std::string_view type);
/// An object that called at_sync is leaving for `to`: its being synchronised goes with it.
void note_leaving(pe_lb& p, const object_event& e);

/// Objects born, arriving, leaving or dying: the count of those taking part is
/// stale (always subscribed while a run goes: such events are rare).
class membership_watch final : public lifecycle_observer {
 public:
  explicit membership_watch(lb_state& s) : s_(s) {}
  void born(const object_event& e) noexcept override { changed(e); }
  void arrived(const object_event& e) noexcept override;
  void leaving(const object_event& e) noexcept override;
  void died(const object_event& e) noexcept override;

 private:
  void changed(const object_event& e) noexcept {
    if (pe_lb* p = s_.of(e.pe)) p->sync.membership_changed = true;
  }
  lb_state& s_;
};

/// Arrivals during a step, whether or not anything is measured.
void note_arrival(pe_lb& p, const object_identity& who);
/// The hook element::at_sync / chare::at_sync call.
void at_sync(void* obj, std::string_view type_name);
/// The calling thread's time on a CPU and runnable but waiting for one, ns (Linux schedstat; -1: unknown).
run_times thread_run_times() noexcept;
/// Starts the period of measurement anew.
void restart_period(pe_lb& p);
/// roam::charge_load on PE `pe`: `t` of the running entry is `object`'s load.
void charge(std::uint32_t pe, const void* object, std::chrono::nanoseconds t) noexcept;
/// set_load: the load `object` reports at the next step, replacing what is measured.
void set(std::uint32_t pe, const void* object, std::chrono::nanoseconds t) noexcept;

}  // namespace roam::lb::detail
