#pragma once
/// What a PDES model sees, under every scheduler (sequential.hpp,
/// simulation.hpp): the LP handle its handlers get, event order, the
/// forward handler's flags, and the run's statistics.
///
/// A model is a type with
///   using state = ...;    // one LP's state (pup-able; == or trivially copyable for the rollback check)
///   using message = ...;  // an event's payload (trivially copyable)
///   void init(state&, lp<M>&);
///   void event(state&, bitfield&, message&, lp<M>&);
///   void reverse(state&, bitfield&, message&, lp<M>&);  // undoes event(): every draw, every change
///   void commit(state&, bitfield&, message&, lp<M>&);   // once the event can no longer be rolled back
///   void final(state&, lp<M>&);
/// (ROSS's LP type: init/event/reverse/commit/final handlers). Optional:
///   void pre_run(state&, lp<M>&);       // after every LP's init, before events (ROSS's)
///   using summary = ...;                // the model's results (pup-able)
///   summary summarize(const state&, lp<M>&);           // one LP's part, after final
///   static void merge(summary& into, const summary&);  // applied in gid order
/// With a summary, the run's result is `result<M>` (statistics and the
/// merged summary, the same on any PE or process count: merged in gid
/// order on one PE), else `run_stats`. The model
/// object itself is copied to every PE (pup-able) and must not change during
/// the run: per-LP data belongs in `state`.
#include <algorithm>
#include <cstdint>
#include <limits>

#include <roam/pdes/rng.hpp>

namespace roam::pdes {

using lp_id = std::uint64_t;
using sim_time = double;
inline constexpr sim_time infinite_time = std::numeric_limits<sim_time>::infinity();

/// Per-event flags a forward handler sets for its reverse handler (ROSS's tw_bf).
struct bitfield {
  std::uint32_t c0 : 1 = 0, c1 : 1 = 0, c2 : 1 = 0, c3 : 1 = 0, c4 : 1 = 0, c5 : 1 = 0, c6 : 1 = 0, c7 : 1 = 0,
      c8 : 1 = 0, c9 : 1 = 0, c10 : 1 = 0, c11 : 1 = 0, c12 : 1 = 0, c13 : 1 = 0, c14 : 1 = 0, c15 : 1 = 0,
      c16 : 1 = 0, c17 : 1 = 0, c18 : 1 = 0, c19 : 1 = 0, c20 : 1 = 0, c21 : 1 = 0, c22 : 1 = 0, c23 : 1 = 0,
      c24 : 1 = 0, c25 : 1 = 0, c26 : 1 = 0, c27 : 1 = 0, c28 : 1 = 0, c29 : 1 = 0, c30 : 1 = 0, c31 : 1 = 0;
};

/// Event order: timestamp, then the tie depth, then the sending LP, then its
/// send counter: the same order under every scheduler and PE count, so runs
/// commit the same events. The depth is 0 for an event later than the one
/// that sent it and one more than its sender's for one at the same time, so
/// an event always orders after the event that caused it (with the source
/// alone, a zero-offset reply from a smaller LP would order before its own
/// cause: an optimistic run would roll the cause back for ever). The key
/// also names an event uniquely (for anti-messages): an LP's send counter is
/// restored on rollback, and a cancelled event's anti-message always reaches
/// its destination before the re-sent one.
struct event_key {
  sim_time ts = 0;
  std::uint32_t depth = 0;
  lp_id source = 0;
  std::uint64_t seq = 0;
  friend bool operator<(const event_key& a, const event_key& b) noexcept {
    if (a.ts != b.ts) return a.ts < b.ts;
    if (a.depth != b.depth) return a.depth < b.depth;
    if (a.source != b.source) return a.source < b.source;
    return a.seq < b.seq;
  }
  friend bool operator==(const event_key&, const event_key&) = default;
  template <class P>
  void pup(P& p) {
    p | ts | depth | source | seq;
  }
};

/// A run's statistics (summed over PEs; `seconds` the slowest PE's).
struct run_stats {
  std::uint64_t committed = 0;            ///< events committed (the result to compare)
  std::uint64_t processed = 0;            ///< forward executions, committed or not
  std::uint64_t rolled_back = 0;          ///< events undone by a reverse handler
  std::uint64_t primary_rollbacks = 0;    ///< rollbacks caused by a straggler
  std::uint64_t secondary_rollbacks = 0;  ///< rollbacks caused by an anti-message
  std::uint64_t anti_messages = 0;        ///< anti-messages sent
  std::uint64_t remote_events = 0;        ///< events sent to another PE
  std::uint64_t past_end = 0;             ///< sends dropped at or beyond the end time
  std::uint64_t gvt_rounds = 0;           ///< GVT computations (PE 0's count)
  std::uint64_t gvt_retries = 0;          ///< extra reductions while messages were in flight
  std::uint64_t checked = 0;              ///< events checked by the rollback-check mode
  std::uint64_t balancing_steps = 0;      ///< load balancing steps the engine took part in (PE 0's count)
  std::uint64_t chares_moved = 0;         ///< LP chares that changed PE at those steps
  std::uint64_t restored = 0;             ///< of `committed`, those committed before a restart (from the checkpoint)
  std::uint64_t slice_halvings = 0;       ///< times a PE halved its batch for its rollbacks (detail/optimism.hpp)
  std::uint64_t window_narrowings = 0;    ///< times a PE narrowed its window beyond GVT for its rollbacks
  sim_time final_window = infinite_time;  ///< the narrowest PE's window at the end (infinite: unbounded)
  double seconds = 0;                     ///< from the first event to the last commit

  /// 1 - rolled back / committed (ROSS's efficiency).
  double efficiency() const noexcept {
    const std::uint64_t here = committed - restored;
    return here == 0 ? 1.0 : 1.0 - static_cast<double>(rolled_back) / static_cast<double>(here);
  }
  /// Committed per second in this run (after a restart: since it).
  double events_per_second() const noexcept {
    return seconds > 0 ? static_cast<double>(committed - restored) / seconds : 0;
  }

  void add(const run_stats& o) noexcept {
    committed += o.committed;
    processed += o.processed;
    rolled_back += o.rolled_back;
    primary_rollbacks += o.primary_rollbacks;
    secondary_rollbacks += o.secondary_rollbacks;
    anti_messages += o.anti_messages;
    remote_events += o.remote_events;
    past_end += o.past_end;
    gvt_rounds = std::max(gvt_rounds, o.gvt_rounds);
    gvt_retries = std::max(gvt_retries, o.gvt_retries);
    checked += o.checked;
    restored += o.restored;
    balancing_steps = std::max(balancing_steps, o.balancing_steps);
    chares_moved = std::max(chares_moved, o.chares_moved);
    slice_halvings += o.slice_halvings;
    window_narrowings += o.window_narrowings;
    final_window = std::min(final_window, o.final_window);
    seconds = std::max(seconds, o.seconds);
  }
  template <class P>
  void pup(P& p) {
    p | committed | processed | rolled_back | primary_rollbacks | secondary_rollbacks | anti_messages | remote_events |
        past_end | gvt_rounds | gvt_retries | checked | balancing_steps | chares_moved | restored | slice_halvings |
        window_narrowings | final_window | seconds;
  }
};

/// A model with results of its own (see above).
template <class Model>
concept has_summary = requires { typename Model::summary; };

/// What a simulation returns: `run_stats`, or with a model summary both.
template <class Model>
struct result {
  run_stats stats;
  typename Model::summary summary{};
  template <class P>
  void pup(P& p) {
    p | stats | summary;
  }
};
template <class Model>
struct result_of {
  using type = run_stats;
};
template <has_summary Model>
struct result_of<Model> {
  using type = result<Model>;
};
template <class Model>
using result_t = typename result_of<Model>::type;

namespace detail {
template <class Model>
class event_sink;
struct lp_access;
}  // namespace detail

/// What a handler sees of its LP: its id, the current time, its random
/// stream, and sending.
template <class Model>
class lp {
 public:
  lp_id gid() const noexcept { return gid_; }
  sim_time now() const noexcept { return now_; }
  rng_stream& rng() noexcept { return rng_; }
  /// Sends `m` to LP `dest` at now() + offset (offset >= 0; under the
  /// conservative scheduler >= the lookahead). Dropped, and counted, when at
  /// or beyond the end time, as under ROSS.
  void send(lp_id dest, sim_time offset, const typename Model::message& m) { sink_->send(*this, dest, offset, m); }

 private:
  friend struct detail::lp_access;
  lp_id gid_ = 0;
  sim_time now_ = 0;
  std::uint32_t depth_ = 0;  ///< the running event's tie depth
  std::uint64_t sent_ = 0;  ///< events sent (restored on rollback): the key's seq
  rng_stream rng_;
  detail::event_sink<Model>* sink_ = nullptr;
};

namespace detail {

/// Where an LP's sends go: the engine running it.
template <class Model>
class event_sink {
 public:
  virtual void send(lp<Model>& from, lp_id dest, sim_time offset, const typename Model::message& m) = 0;

 protected:
  ~event_sink() = default;
};

/// The engines' access to an LP's private parts.
struct lp_access {
  template <class M>
  static void setup(lp<M>& l, lp_id gid, event_sink<M>* sink) {
    l.gid_ = gid;
    l.rng_ = make_stream(gid);
    l.sink_ = sink;
  }
  template <class M>
  static void set_sink(lp<M>& l, event_sink<M>* sink) noexcept {
    l.sink_ = sink;
  }
  /// Before a handler runs: the event's time (and tie depth, for the keys of its sends).
  template <class M>
  static void set_now(lp<M>& l, sim_time t, std::uint32_t depth = 0) noexcept {
    l.now_ = t;
    l.depth_ = depth;
  }
  /// The key of an event `from` sends for time `ts` (counts the send).
  template <class M>
  static event_key next_key(lp<M>& from, sim_time ts) noexcept {
    return {ts, ts == from.now_ ? from.depth_ + 1 : 0u, from.gid_, from.sent_++};
  }
  template <class M>
  static std::uint64_t& sent(lp<M>& l) noexcept {
    return l.sent_;
  }
  template <class M, class P>
  static void pup(lp<M>& l, P& p) {
    p | l.gid_ | l.now_ | l.depth_ | l.sent_ | l.rng_;
  }
};

}  // namespace detail

}  // namespace roam::pdes
