#pragma once
/// The PE manager of the parallel engine (one per PE, a group member): it
/// holds the pending events of its LP chares in one heap, runs them in
/// batches, rolls LPs back, sends and receives events and anti-messages, and
/// takes part in GVT rounds; at each GVT it commits and frees what lies below.
/// docs/design/pdes.md has the protocols and why they are correct.
///
/// This file holds the class, the event loop and sending; the member
/// functions of the other concerns are defined in manager_gvt.hpp (GVT
/// rounds, fossil collection, the end), manager_rollback.hpp (receiving,
/// rollback, cancellation, the rollback check) and manager_steps.hpp
/// (balancing and checkpoint steps, load charging), included at the end.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <optional>
#include <string>
#include <utility>
#include <type_traits>
#include <vector>

#include <roam/pdes/detail/event.hpp>
#include <roam/pdes/detail/optimism.hpp>
#include <roam/pdes/model.hpp>
#include <roam/pdes/options.hpp>
#include <roam/roam.hpp>

namespace roam::pdes::detail {

template <class Model>
class lp_chare;

/// One LP as the parallel engine keeps it (inside its chare).
template <class Model>
struct lp_record {
  lp<Model> ctx;
  typename Model::state state{};
  pointer_ring<event<typename Model::message>> processed;  ///< oldest first, keys ascending
  /// The key of processed.back(), below every key when nothing is processed:
  /// an arriving event is a straggler when it orders before it (read on every
  /// send and receive; the ring's back is a cache miss away).
  event_key last_key = lowest_key();
  static constexpr event_key lowest_key() noexcept { return {-infinite_time, 0, 0, 0}; }
  std::vector<event_key> cancelled;  ///< anti-messages for events still pending here (matched as they come out)
  std::uint32_t slot = 0;            ///< its chare's place in the manager's list (to charge event time)
  std::uint64_t committed = 0;       ///< its events committed (travels with it: exact across restarts)
  std::uint64_t past_end = 0;        ///< its committed events' sends dropped at the end time
};

/// A PE's part of a GVT round: messages of the closing epoch it sent and
/// received (cumulative, per epoch parity) and the least timestamp it can
/// still produce or receive from them.
struct gvt_vote {
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  sim_time min = infinite_time;
  template <class P>
  void pup(P& p) {
    p | sent | received | min;
  }
};
inline void merge_votes(gvt_vote& a, const gvt_vote& b) {
  a.sent += b.sent;
  a.received += b.received;
  if (b.min < a.min) a.min = b.min;
}
inline void merge_stats(run_stats& a, const run_stats& b) { a.add(b); }

template <class Model>
class manager final : public group_member<manager<Model>>, public event_sink<Model> {
 public:
  using message = typename Model::message;
  using state = typename Model::state;
  using event_type = event<message>;
  using record = lp_record<Model>;
  using wire = wire_event<message>;
  /// The model's summary type (a placeholder for models without one).
  using summary_type = typename decltype([] {
    if constexpr (has_summary<Model>) return std::type_identity<typename Model::summary>{};
    else return std::type_identity<char>{};
  }())::type;
  using summary_parts = std::vector<std::pair<lp_id, summary_type>>;
  static_assert(std::is_trivially_copyable_v<message>, "roam::pdes: a model's message must be trivially copyable");

  manager(Model model, engine_options options, callback<result_t<Model>> done)
      : model_(std::move(model)), o_(std::move(options)), done_(std::move(done)) {
    me_ = my_pe().value();
    local_.assign(o_.lps, nullptr);
    out_.resize(num_pes());
    optimism_ = optimism_control(o_);
  }
  /// Rebuilt from a checkpoint (pup below); resume_from_checkpoint makes it run.
  explicit manager(migrating) { out_.resize(num_pes()); }
  /// Checkpoints are taken at the engine's checkpoint steps only, when every
  /// LP is back at GVT and every pending event is in its chare: what is left
  /// here is the run's configuration and GVT.
  template <class P>
  void pup(P& p) {
    p | model_ | o_ | done_ | chares_ | gvt_ | epoch_ | stats_;
    if (p.is_unpacking()) {
      me_ = my_pe().value();
      local_.assign(o_.lps, nullptr);
      optimism_ = optimism_control(o_);
      begun_ = inited_ = true;
    }
  }
  manager(const manager&) = delete;
  manager& operator=(const manager&) = delete;

  /// An LP chare built on this PE hands over its LPs.
  void attach(lp_chare<Model>& c) {
    register_chare(c);
    ++attached_;
    maybe_init();
  }

  /// A chare back from a balancing step (moved here or not): its LPs and
  /// pending events are this PE's again; it reports where it is.
  void reattach(lp_chare<Model>& c);

  /// Whether a balancing step is under way (LP chares may move only then).
  bool balancing() const noexcept { return balancing_; }

  // ---- entries ----

  /// Starts the run on this PE once its chares are all here.
  void begin(array_proxy<lp_chare<Model>> chares) {
    chares_ = chares;
    const std::uint32_t n = o_.chares();
    pe_of_chare_.resize(n);
    pe_of_lp_.resize(o_.lps);
    for (std::uint32_t c = 0; c < n; ++c) {
      place_chare(c, chares[index<1>{static_cast<std::int32_t>(c)}].home_pe().value());
      expected_ += pe_of_chare_[c] == me_;
    }
    begun_ = true;
    maybe_init();
  }

  /// Every PE ran its LPs' init handlers: events may run.
  void go() {
    measuring_ = load_balancing_enabled();
    running_ = true;
    t0_ = std::chrono::steady_clock::now();
    schedule_batch();
  }

  /// Runs up to `batch` events, then lets arriving messages in.
  void run_batch() {
    batch_scheduled_ = false;
    if (!running_) return;
    sim_time limit = window_limit();
    std::uint32_t n = 0;
    bool blocked = false;
    // Optimism by work: at most two GVT intervals of batches per GVT. PE 0
    // cuts after one; when the round takes longer than the second, the PE
    // waits for it (still receiving). Without a bound a PE that pulls ahead
    // makes the other's messages stragglers, its rollbacks send anti-messages
    // that roll the other back in turn, and the run thrashes.
    if (batches_since_gvt_ >= 2 * o_.gvt_interval) {
      blocked = true;
      limit = -infinite_time;
    }
    const auto batch_start = measuring_ ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    const std::uint32_t batch = optimism_.batch();
    while (n < batch && !heap_.empty()) {
      event_type* top = heap_.top().e;
      if (top->status == event_status::cancelled) {
        pool_.release(heap_.pop());
        continue;
      }
      if (!(top->key.ts < limit) || uncommitted_ >= o_.max_uncommitted) {
        blocked = true;
        optimism_.held();
        break;
      }
      heap_.pop();
      record& r = record_of(*top);
      if (!r.cancelled.empty() && take_cancelled(r, top->key)) {
        pool_.release(top);
        continue;
      }
      execute(r, *top);
      ++n;
      if (measuring_) count_for(r.slot);
    }
    if (measuring_ && n > 0) charge_batch(std::chrono::steady_clock::now() - batch_start, n);
    flush_out();
    if (n > 0) {
      ++batches_since_round_;
      ++batches_since_gvt_;
      schedule_batch();
    }
    if (me_ == 0) {
      if (!round_active_ && (n == 0 || batches_since_round_ >= o_.gvt_interval)) start_round();
    } else if (blocked && requested_after_ != stats_.gvt_rounds) {
      requested_after_ = stats_.gvt_rounds;  // once per GVT
      this->this_group()[pe_id{0}].template send<&manager::request_round>();
    }
  }

  /// Events and anti-messages from another PE, sent in the sender's `epoch`.
  void receive(std::uint32_t epoch, std::vector<wire> events);

  /// PE 0 asks for a GVT round (another PE is blocked by its window or memory bound).
  void request_round();

  /// The cut of GVT round `epoch`: from here on this PE's messages belong to it.
  void cut(std::uint32_t epoch);

  /// A round's sums: balanced, its minimum is the new GVT; else vote again.
  void gvt_result(gvt_vote v);

  /// Balancing, step 2: every PE's sums of messages sent and received since
  /// the start; equal, nothing is in flight (no PE sends while paused).
  void drained(std::array<std::uint64_t, 2> sums);

  /// PE 0: the checkpoint is written (or the program restarted from it).
  void checkpointed(checkpoint_result r);

  /// Every PE after a checkpoint: the events go back into the heap and the
  /// run goes on. After a restart (any number of PEs), each manager first
  /// finds its chares, the counters restart at zero (nothing is in flight),
  /// and the managers learn where every chare is.
  void resume_from_checkpoint(bool restarted, std::uint32_t epoch, sim_time gvt);

  /// After a restart: every manager's chares, (chare, PE) pairs per PE.
  void restarted(std::vector<std::vector<std::vector<std::uint32_t>>> per_pe);

  /// Balancing, step 4: every chare is back; `where` is (chare, PE) pairs.
  void resume(std::vector<std::vector<std::uint32_t>> where);


 private:
  friend class lp_chare<Model>;

  void maybe_init() {
    if (!begun_ || attached_ != expected_ || inited_) return;
    inited_ = true;
    for (record* r : local_)
      if (r) model_.init(r->state, r->ctx);
    flush_out();
    if constexpr (requires(Model& m, state& st, lp<Model>& l) { m.pre_run(st, l); }) {
      this->contribute(callback<void>::broadcast<&manager::pre_run>(this->this_group()));
    } else {
      this->contribute(callback<void>::broadcast<&manager::go>(this->this_group()));
    }
  }

 public:
  /// Every PE ran its LPs' init handlers: the models' pre_run handlers (ROSS's), then go.
  void pre_run() {
    if constexpr (requires(Model& m, state& st, lp<Model>& l) { m.pre_run(st, l); }) {
      for (record* r : local_)
        if (r) model_.pre_run(r->state, r->ctx);
    }
    flush_out();
    this->contribute(callback<void>::broadcast<&manager::go>(this->this_group()));
  }

 private:

  void place_chare(std::uint32_t c, std::uint32_t pe) {
    pe_of_chare_[c] = pe;
    const lp_id per = o_.per_chare();
    const lp_id last = std::min<lp_id>(o_.lps, (lp_id{c} + 1) * per);
    for (lp_id g = lp_id{c} * per; g < last; ++g) pe_of_lp_[g] = pe;
  }

  void register_chare(lp_chare<Model>& c) {
    const auto slot = static_cast<std::uint32_t>(chares_here_.size());
    chares_here_.push_back(&c);
    events_of_.push_back(0);
    for (record& r : c.records()) {
      lp_access::set_sink(r.ctx, this);
      r.slot = slot;
      local_[r.ctx.gid()] = &r;
    }
  }

  // ---- load measurement: event time charged to the chares ----

  void count_for(std::uint32_t slot);
  /// A batch's time, split over the chares by their share of its events (a
  /// clock reading per batch, not per event).
  void charge_batch(std::chrono::steady_clock::duration took, std::uint32_t n);

  // ---- load balancing steps (docs/design/pdes.md) ----

  /// Step 1, on every PE at the same GVT: stop, roll every LP back to GVT
  /// (nothing uncommitted is left to move), send the anti-messages that
  /// takes, and wait until no message is in flight.
  void begin_balancing();

  void drain_vote();

  /// Processing starts again after a balancing or checkpoint step.
  void go_on();

  /// A checkpoint step, on every PE at the same GVT: as a balancing step, the
  /// LPs back to GVT and nothing in flight; then the events go into their
  /// chares (so the checkpoint holds them) and PE 0 asks for the checkpoint.
  void begin_checkpoint();
  void store_for_checkpoint();

  void move_pending_to_chares();

  void take_pending(lp_chare<Model>& c);

  /// Step 3: the pending events go into their chares (in arrival order, which
  /// orders equal keys), the LPs leave this PE's tables, and every chare
  /// calls at_sync; the balancer moves them, and each comes back through
  /// reattach on its PE.
  void hand_over();

  sim_time window_limit() const noexcept {
    if (o_.mode == synch::conservative) return gvt_ + o_.lookahead;
    if (o_.max_optimism != infinite_time) return gvt_ + o_.max_optimism;
    return gvt_ + optimism_.window();
  }

  record& record_of(const event_type& e) {
    record* r = local_[e.dest];
    if (!r) [[unlikely]]
      fail_at(e.dest, "has an event for LP " + std::to_string(e.dest) + ", which is not on this PE");
    return *r;
  }

  void execute(record& r, event_type& e) {
    lp_access::set_now(r.ctx, e.key.ts, e.key.depth);
    if (o_.mode == synch::optimistic_check) check_reverse(r, e);
    current_ = &e;
    model_.event(r.state, e.bf, e.message, r.ctx);
    current_ = nullptr;
    e.status = event_status::processed;
    r.processed.push_back(&e);
    r.last_key = e.key;
    if (e.key.ts > furthest_) furthest_ = e.key.ts;
    ++uncommitted_;
    ++stats_.processed;
    while (!stragglers_.empty()) {
      event_type* s = stragglers_.back();
      stragglers_.pop_back();
      if (s->status != event_status::cancelled) {
        record& to = record_of(*s);
        if (s->key < to.last_key) {
          ++stats_.primary_rollbacks;
          rollback(to, s->key, false);
        }
      }
      heap_.push(s);
    }
  }

  /// The rollback-check mode: the event forward and back on a copy of its
  /// message; the LP's state and stream must come back exactly.
  void check_reverse(record& r, event_type& e);

  static bool same_state(const state& a, const state& b);

  // ---- sending ----

  void send(lp<Model>& from, lp_id dest, sim_time offset, const message& m) override {
    if (trial_) return;  // the rollback check's trial run: nothing leaves
    if (dest >= o_.lps) [[unlikely]]
      fail_at(from.gid(), "sent an event to LP " + std::to_string(dest) + " of " + std::to_string(o_.lps));
    if (!(offset >= 0) || (o_.mode == synch::conservative && offset < o_.lookahead)) [[unlikely]]
      fail_at(from.gid(), "sent an event " + std::to_string(offset) + " ahead" +
                              (offset >= 0 ? ", below the lookahead " + std::to_string(o_.lookahead) +
                                                 " the conservative scheduler relies on"
                                           : std::string(" (into the past)")));
    const sim_time ts = from.now() + offset;
    if (ts >= o_.end) {
      if (current_) ++current_->past_end;
      else ++stats_.past_end;
      return;
    }
    const event_key key = lp_access::next_key(from, ts);
    const std::uint32_t pe = pe_of_lp_[dest];
    event_type* c;
    if (pe == me_) {
      c = pool_.make();
      c->key = key;
      c->dest = dest;
      c->message = m;
      record* to = local_[dest];
      if (to && key < to->last_key) stragglers_.push_back(c);
      else heap_.push(c);
    } else {
      out_[pe].push_back(wire{key, dest, 0, 0, m});
      ++stats_.remote_events;
      if (!current_) return;  // init's events are never rolled back: no stub
      c = pool_.make();
      c->key = key;
      c->dest = dest;
      c->status = event_status::stub;
    }
    if (current_) {
      event_type*& list = pe == me_ ? current_->first_child : current_->first_stub;
      c->next_sibling = list;
      list = c;
    }
  }

  void flush_out() {
    for (std::uint32_t p = 0; p < out_.size(); ++p) {
      if (out_[p].empty()) continue;
      ++sent_[epoch_ & 1];
      this->this_group()[pe_id{p}].template send<&manager::receive>(epoch_, std::move(out_[p]));
      out_[p].clear();
    }
  }

  void schedule_batch() {
    if (batch_scheduled_ || !running_) return;
    batch_scheduled_ = true;
    // Behind every message already queued: stragglers and anti-messages first.
    this->this_group()[pe_id{me_}].template send<&manager::run_batch>(priority(1));
  }

  // ---- receiving ----

  void on_event(const wire& w);

  /// An anti-message: the event, processed here, is rolled back through; it
  /// is then pending (or was, or has not arrived yet) and is dropped when it
  /// comes out of the heap.
  void on_anti(const wire& w);

  static bool take_cancelled(record& r, const event_key& k);

  // ---- rollback ----

  /// Undoes `r`'s processed events with keys above `k` (and `k` itself when
  /// `inclusive`), newest first; they go back to the heap.
  void rollback(record& r, const event_key& k, bool inclusive);

  /// Cancels what `e` sent; returns how many events that was.
  std::uint64_t cancel_children(event_type& e);

  // ---- GVT ----

  void start_round();

  sim_time least_pending();

  void vote();

  /// Commits and frees every processed event below `gvt`, oldest first per
  /// LP, with the stubs of its remote sends. Its local children are never
  /// read again (nothing committed is rolled back), so each event is freed
  /// at once, whatever order the parents and children are committed in.
  void fossil_collect(sim_time gvt);

  void finish();

 public:
  /// PE 0: the summed statistics (models with a summary).
  void collect_stats(run_stats s) {
    final_stats_ = s;
    deliver_result();
  }
  /// PE 0: every LP's summary part, one list per PE (models with a summary).
  void collect_parts(std::vector<summary_parts> per_pe) {
    summary_parts all;
    for (auto& l : per_pe) all.insert(all.end(), l.begin(), l.end());
    final_parts_ = std::move(all);
    deliver_result();
  }

 private:
  void deliver_result() {
    if constexpr (has_summary<Model>) {
      if (!final_stats_ || !final_parts_) return;
      auto& parts = *final_parts_;
      std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      result<Model> r;
      r.stats = *final_stats_;
      for (const auto& [gid, part] : parts) Model::merge(r.summary, part);
      done_.send(std::move(r));
    }
  }

  /// Ends the run: thrown out of the running entry, the runtime reports it
  /// with the PE, the manager and the entry, and the program exits with 1.
  [[noreturn]] void fail_at(lp_id gid, const std::string& what, const char* entry = nullptr) {
    if (!entry) entry = current_ ? "the model's event handler" : "pdes::manager";
    const lp_id per = o_.per_chare();
    throw std::runtime_error("roam::pdes: pe " + std::to_string(me_) + ", LP chare[" + std::to_string(gid / per) +
                             "], LP " + std::to_string(gid) + ", " + entry + ": " + what);
  }

  Model model_;
  engine_options o_;
  callback<result_t<Model>> done_;
  // PE 0, models with a summary: the two reductions' results as they come.
  std::optional<run_stats> final_stats_;
  std::optional<summary_parts> final_parts_;
  std::uint32_t me_ = 0;
  array_proxy<lp_chare<Model>> chares_;
  std::vector<std::uint32_t> pe_of_chare_;
  std::vector<std::uint32_t> pe_of_lp_;  ///< by gid (the same, without a division per send)
  std::vector<record*> local_;  ///< by gid: this PE's LPs, null elsewhere
  std::uint32_t expected_ = 0, attached_ = 0;
  bool begun_ = false, inited_ = false, running_ = false, batch_scheduled_ = false;
  bool measuring_ = false;  ///< load balancing is on: event time is charged to the chares
  bool balancing_ = false;  ///< in a balancing step (paused; chares may move)
  bool checkpointing_ = false;  ///< in a checkpoint step
  std::vector<lp_chare<Model>*> chares_here_;
  std::vector<std::uint32_t> events_of_;  ///< per chare slot: events in the running batch
  std::vector<std::uint32_t> touched_;    ///< slots with events in the running batch

  event_pool<message> pool_;
  pending_heap<message> heap_;
  std::vector<event_type*> stragglers_;  ///< local events that arrived behind their LP: rolled back after the handler
  std::vector<std::vector<wire>> out_;   ///< per PE, flushed after every batch
  event_type* current_ = nullptr;        ///< the event running now (its sends become its children)
  bool trial_ = false;
  std::uint64_t uncommitted_ = 0;

  // GVT (Mattern's cut with counters kept per epoch parity, never reset)
  std::uint32_t epoch_ = 0;
  std::uint64_t sent_[2] = {0, 0}, received_[2] = {0, 0};
  sim_time local_min_ = infinite_time, white_min_ = infinite_time;
  sim_time gvt_ = 0;
  optimism_control optimism_{engine_options{}};  ///< slice and window (optimism.hpp)
  sim_time furthest_ = 0;                 ///< the latest timestamp run so far
  bool round_active_ = false;  ///< PE 0 only
  std::uint32_t batches_since_round_ = 0;  ///< PE 0: since it last cut
  std::uint32_t batches_since_gvt_ = 0;    ///< since the last GVT (bounds optimism)
  std::uint64_t requested_after_ = ~std::uint64_t{0};

  run_stats stats_;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace roam::pdes::detail

#include <roam/pdes/detail/manager_gvt.hpp>
#include <roam/pdes/detail/manager_rollback.hpp>
#include <roam/pdes/detail/manager_steps.hpp>
