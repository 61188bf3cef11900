#pragma once
/// Message aggregation and routing (the TRAM / Mesh Streamer idea) on roam's
/// public API. Many small items for many destinations are buffered per next
/// hop of a virtual mesh of PEs (mesh.hpp) and travel as one message per
/// buffer; on the destination PE each item is handed to a member function of
/// the destination object: a group member, or an array element wherever it
/// lives now.
///
/// ```cpp
/// struct table : roam::group_member<table> {
///   void update(std::uint64_t ran) { t[ran & mask] ^= ran; }
///   ...
/// };
/// auto tables = roam::create_group<table>(...);
/// auto agg = roam::make_aggregator<&table::update>(tables);   // once, on any PE
/// // a producer (a task of any object), on any PE:
/// agg.start(producers, roam::callback<>::...);   // once per streaming step, anywhere
/// for (...) co_await agg.insert(roam::pe_id{dest}, ran);       // waits when too much is in flight
/// agg.done();                                                  // this producer is finished
/// ```
///
/// - A buffer goes out when it holds `items_per_buffer` items, when its PE
///   goes idle, after `flush_delay` (if set), on `flush()` and on `done()`.
/// - Completion: `start(n, cb)` arms a streaming step for `n` producers; `cb`
///   fires once every producer called `done()` and every item inserted before
///   its producer's `done()` has been handed to its destination. Steps may
///   follow one another (start again after the callback).
/// - Back-pressure: `co_await agg.insert(...)` suspends the producing task
///   while the peer its item went to has `max_buffers_in_flight` buffers
///   from this PE unacknowledged (a receiver acknowledges a buffer once it
///   has handed on its items, and holds the acknowledgement while its own
///   next hops are full), so producers cannot outrun the network and the
///   receivers: memory stays bounded. A plain `agg.insert(...)` outside a
///   task never waits (it only buffers).
/// - Items to an array element that moved are passed along to where it is
///   (by the aggregator, along the element's location), and counted delivered
///   only once its handler ran.
/// - Handlers run inside the aggregator's own entry on the destination PE:
///   their time is measured as the aggregator's load, not the element's.
/// docs/design/aggregation.md has the design, buffer sizes and memory bound.
#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include <roam/aggregation/detail/command_line.hpp>
#include <roam/aggregation/mesh.hpp>
#include <roam/roam.hpp>

namespace roam {

/// How an aggregator buffers and routes.
struct aggregation_options {
  /// Items per buffer: a full buffer goes out at once (0: the default, 1024 or +agg_buffer).
  std::uint32_t items_per_buffer = 0;
  /// Dimensions of the virtual mesh (1-3; 0: +agg_dims, else automatic, mesh.hpp).
  std::uint32_t dims = 0;
  /// Explicit mesh extents (product = the number of PEs); overrides `dims`.
  std::vector<std::uint32_t> mesh;
  /// With several PEs per process: route between processes first, one buffer per remote process.
  bool node_aware = true;
  /// Also send partly filled buffers this long after their first item (0: only when idle, flushed or full).
  std::chrono::microseconds flush_delay{0};
  /// Send partly filled buffers when the PE goes idle (turn off only with a flush_delay, or flush by hand).
  bool flush_when_idle = true;
  /// Buffers this PE may have sent to one peer and not had acknowledged before
  /// `co_await insert` waits for that peer (0: the default, 8 or +agg_in_flight).
  std::uint32_t max_buffers_in_flight = 0;

  template <class P>
  void pup(P& p) {
    std::int64_t delay = flush_delay.count();
    p | items_per_buffer | dims | mesh | node_aware | delay | flush_when_idle | max_buffers_in_flight;
    flush_delay = std::chrono::microseconds(delay);
  }
};

/// Counters of one PE's aggregator instance (for tests, tuning and reports).
struct aggregation_stats {
  std::uint64_t inserted = 0;          ///< items inserted on this PE
  std::uint64_t delivered = 0;         ///< items handed to a handler on this PE
  std::uint64_t forwarded = 0;         ///< items passed on towards another PE (mesh hops and moved elements)
  std::uint64_t buffers_sent = 0;      ///< buffers (messages) this PE sent
  std::uint64_t items_sent = 0;        ///< items in them
  std::uint64_t full_sends = 0;        ///< buffers sent because they were full
  std::uint64_t waits = 0;             ///< times a producer task waited for acknowledgements
  std::uint32_t peak_in_flight = 0;    ///< most buffers unacknowledged at once (all peers)
  std::uint64_t deferred_acks = 0;     ///< acknowledgements held back while the next hops were full
  std::uint64_t peak_buffered = 0;     ///< most items held in this PE's buffers at once
  template <class P>
  void pup(P& p) {
    p | inserted | delivered | forwarded | buffers_sent | items_sent | full_sends | waits | peak_in_flight | peak_buffered |
        deferred_acks;
  }
};

namespace aggregation::detail {

template <class M>
struct member_traits;
template <class T, class R, class A>
struct member_traits<R (T::*)(A)> {
  using object = T;
  using item = std::remove_cvref_t<A>;
};
template <class T, class R, class A>
struct member_traits<R (T::*)(A) noexcept> : member_traits<R (T::*)(A)> {};

template <class T>
concept group_type = std::is_base_of_v<group_member<T>, T>;
template <class T>
concept array_type = requires { typename T::index_type; } && std::is_base_of_v<roam::element<T, typename T::index_type>, T>;

/// Where an item goes: a PE (group members) or an element index (arrays).
template <class T>
struct destination_of {
  using type = pe_id;
};
template <array_type T>
struct destination_of<T> {
  using type = typename T::index_type;
};

/// One item on the wire with its final PE (and element index for arrays).
template <class T, class Item>
struct packet {
  std::uint32_t pe = 0;
  Item item{};
  template <class P>
  void pup(P& p) {
    p | pe | item;
  }
};
template <array_type T, class Item>
struct packet<T, Item> {
  std::uint32_t pe = 0;
  typename T::index_type index{};
  Item item{};
  template <class P>
  void pup(P& p) {
    p | pe | index | item;
  }
};

/// The PE-local instance: buffers, routing, counting. A group: one per PE.
template <auto Handler>
class node : public group_member<node<Handler>> {
 public:
  using traits = member_traits<decltype(Handler)>;
  using target_type = typename traits::object;
  using item_type = typename traits::item;
  using destination = typename destination_of<target_type>::type;
  using packet_type = packet<target_type, item_type>;
  using target_proxy = std::conditional_t<group_type<target_type>, group_proxy<target_type>, array_proxy<target_type>>;

  node(target_proxy target, aggregation_options options, completion_detector detector)
      : target_(target), options_(std::move(options)), detector_(detector) {
    const std::uint32_t pes = num_pes();
    // What the program left at 0 takes this run's +agg_* default.
    const detail::aggregation_defaults& defaults = detail::command_line_defaults();
    if (options_.dims == 0) options_.dims = defaults.dims;
    if (options_.items_per_buffer == 0) options_.items_per_buffer = defaults.items_per_buffer;
    if (options_.max_buffers_in_flight == 0) options_.max_buffers_in_flight = defaults.buffers_in_flight;
    mesh_ = options_.mesh.empty()
                ? aggregation::virtual_mesh::automatic(pes, options_.dims, pes / num_nodes(), options_.node_aware)
                : aggregation::virtual_mesh(options_.mesh);
    if (mesh_.size() != pes)
      throw std::invalid_argument("roam::aggregator: mesh " + mesh_.describe() + " has " + std::to_string(mesh_.size()) +
                                  " PEs, the program " + std::to_string(pes));
    me_ = my_pe().value();
    peers_ = mesh_.peers(me_);
    slot_of_.assign(pes, no_slot);
    for (std::uint32_t i = 0; i < peers_.size(); ++i) slot_of_[peers_[i]] = i;
    out_.resize(peers_.size());
    in_flight_.assign(peers_.size(), 0);
    for (std::uint32_t p : peers_) slot_dim_.push_back(mesh_.dimension_between(me_, p));
    window_ = options_.max_buffers_in_flight;
    last_used() = {this->this_group().id(), this};
  }
  ~node() {
    if (last_used().instance == this) last_used() = {};
  }
  node(const node&) = delete;
  node& operator=(const node&) = delete;

  /// The instance this PE thread used last, so that `aggregator::insert` does
  /// not look its instance up per item. Set when an instance is built (a new
  /// run on a reused thread replaces a stale entry before it can be used).
  struct cache_entry {
    std::uint32_t id = 0;
    node* instance = nullptr;
  };
  static cache_entry& last_used() noexcept {
    thread_local cache_entry c;
    return c;
  }

  /// Buffers `item` for the next hop towards `to` (items for this PE in a batch of their own).
  void insert(const destination& to, item_type item) {
    ++stats_.inserted;
    last_slot_ = no_slot;
    if constexpr (group_type<target_type>) {
      const std::uint32_t pe = to.value();
      if (pe >= mesh_.size())
        roam::abort("roam::aggregator::insert: destination pe " + std::to_string(pe) + " outside [0," +
                    std::to_string(mesh_.size()) + ")");
      if (pe == me_) return keep_for_self(std::move(item));
      ++unreported_;
      last_slot_ = route(packet_type{pe, std::move(item)});
    } else {
      const std::uint32_t pe = target_[to].last_known_pe().value();
      if (pe == me_) return keep_for_self(packet_type{pe, to, std::move(item)});
      ++unreported_;
      last_slot_ = route(packet_type{pe, to, std::move(item)});
    }
  }

  /// Sends every partly filled buffer now (and hands over the items kept for this PE).
  void flush() {
    deliver_self();
    report_produced();
    for (std::uint32_t s = 0; s < out_.size(); ++s)
      if (!out_[s].empty()) send_slot(s, false);
  }

  /// One producer finished: its items go out now, then the detector hears of it.
  void done() {
    flush();
    detector_.done();
  }

  void start(std::uint64_t producers, callback<void> finished) { detector_.start(producers, std::move(finished)); }

  /// The last insert went to a peer with a full window.
  bool must_wait() const noexcept { return last_slot_ != no_slot && in_flight_[last_slot_] >= window_; }
  /// A future fulfilled once that peer is back under its window.
  future<void> wait_for_room() {
    ++stats_.waits;
    auto [f, p] = make_future<void>();
    waiters_.push_back({last_slot_, std::move(p)});
    return std::move(f);
  }

  const aggregation_stats& stats() const noexcept { return stats_; }
  const aggregation::virtual_mesh& mesh() const noexcept { return mesh_; }

  // ---- entries (sent by other instances) ----

  /// A buffer from `from`: hand over what is for here, pass on the rest, acknowledge.
  void receive(std::uint32_t from, std::vector<packet_type> items) {
    std::uint64_t handled = 0;  // counted consumed once, after their handlers ran
    if constexpr (!group_type<target_type>) forget_found();
    for (packet_type& p : items) {
      if (p.pe == me_) {
        if constexpr (group_type<target_type>) {
          deliver_here(std::move(p.item));
          ++handled;
        } else {
          handled += deliver_or_follow(std::move(p), true);
        }
      } else {
        ++stats_.forwarded;
        route(std::move(p));
      }
    }
    if (handled != 0) detector_.consume(handled);
    // The items went on along lower dimensions only (routing takes the
    // highest first). While one of those next hops is full, the sender's
    // acknowledgement waits: back-pressure reaches the producers upstream, and
    // since a wait only ever depends on lower dimensions, no cycle of PEs can
    // wait on each other.
    const std::uint32_t dim = slot_dim_[slot_of_[from]];
    if (full_below(dim)) {
      ++stats_.deferred_acks;
      deferred_.push_back({from, dim});
    } else {
      this->this_group()[pe_id{from}].template send<&node::acknowledge>(me_);
    }
  }

  /// `peer` has handed on one of the buffers this PE sent it.
  void acknowledge(std::uint32_t peer) {
    const std::uint32_t s = slot_of_[peer];
    if (in_flight_[s] > 0) {
      --in_flight_[s];
      --total_in_flight_;
    }
    if (in_flight_[s] >= window_) return;
    for (std::size_t i = 0; i < deferred_.size();) {
      if (full_below(deferred_[i].dim)) {
        ++i;
        continue;
      }
      this->this_group()[pe_id{deferred_[i].from}].template send<&node::acknowledge>(me_);
      deferred_[i] = deferred_.back();
      deferred_.pop_back();
    }
    for (std::size_t i = 0; i < waiters_.size();) {
      if (in_flight_[waiters_[i].slot] >= window_) {
        ++i;
        continue;
      }
      waiters_[i].ready.set_value();
      waiters_[i] = std::move(waiters_.back());
      waiters_.pop_back();
    }
  }

 private:
  static constexpr std::uint32_t no_slot = ~0u;

  /// Routes `p` into the buffer of its next hop; returns that slot.
  std::uint32_t route(packet_type&& p) {
    const std::uint32_t hop = mesh_.next_hop(me_, p.pe);
    const std::uint32_t s = slot_of_[hop];
    auto& buf = out_[s];
    if (buf.empty()) {
      if (buf.capacity() == 0) buf.reserve(options_.items_per_buffer);
      arm_flush();
    }
    buf.push_back(std::move(p));
    ++buffered_;
    if (buffered_ > stats_.peak_buffered) stats_.peak_buffered = buffered_;
    if (buf.size() >= options_.items_per_buffer) {
      report_produced();
      send_slot(s, true);
    }
    return s;
  }

  bool full_below(std::uint32_t dim) const noexcept {
    for (std::uint32_t s = 0; s < in_flight_.size(); ++s)
      if (slot_dim_[s] < dim && in_flight_[s] >= window_) return true;
    return false;
  }

  void send_slot(std::uint32_t s, bool full) {
    std::vector<packet_type> items;
    items.reserve(options_.items_per_buffer);
    items.swap(out_[s]);
    buffered_ -= items.size();
    ++stats_.buffers_sent;
    stats_.items_sent += items.size();
    stats_.full_sends += full;
    ++in_flight_[s];
    if (++total_in_flight_ > stats_.peak_in_flight) stats_.peak_in_flight = total_in_flight_;
    this->this_group()[pe_id{peers_[s]}].template send<&node::receive>(me_, std::move(items));
  }

  /// Items inserted here are counted as produced before any of them can be
  /// counted consumed elsewhere: before each send.
  void report_produced() {
    if (unreported_ != 0) {
      detector_.produce(unreported_);
      unreported_ = 0;
    }
  }

  /// Items for this PE are kept and handed over in batches: a tight loop of
  /// handlers overlaps their cache misses (a table update each, in Random
  /// Access), where one call per insert, between the producer's own work,
  /// does not.
  template <class Kept>
  void keep_for_self(Kept&& kept) {
    if (self_.empty()) {
      if (self_.capacity() == 0) self_.reserve(options_.items_per_buffer);
      arm_flush();
    }
    self_.push_back(std::forward<Kept>(kept));
    if (self_.size() >= options_.items_per_buffer) deliver_self();
  }

  void deliver_self() {
    if (self_.empty()) return;
    // A handler may insert again (into self_): the batch is taken out first.
    self_kind batch;
    batch.swap(self_);
    if constexpr (group_type<target_type>) {
      if (target_type* t = member_here()) [[likely]] {
        for (item_type& it : batch) (t->*Handler)(std::move(it));  // the tight loop
        stats_.delivered += batch.size();
      } else {
        for (item_type& it : batch) deliver_here(std::move(it));
      }
    } else {
      forget_found();
      for (packet_type& p : batch) deliver_or_follow(std::move(p), false);
    }
    batch.clear();
    if (self_.empty()) self_.swap(batch);  // keep the capacity
  }

  /// Groups: this PE's member, or null while it is not built here yet.
  /// Members never move: it is looked up once.
  target_type* member_here() {
    if (!local_target_) [[unlikely]]
      local_target_ = target_.local();
    return local_target_;
  }

  void deliver_here(item_type&& item) {
    if (target_type* t = member_here()) [[likely]] {
      (t->*Handler)(std::move(item));
    } else {
      target_[pe_id{me_}].template send<Handler>(std::move(item));  // the runtime holds it until the member exists
    }
    ++stats_.delivered;
  }

  /// Arrays: elements already found during the running entry. No element
  /// moves or is destroyed while an entry runs (both happen between
  /// messages), so the pointers hold until it returns; each batch starts
  /// afresh (forget_found). Eight entries: a PE's few elements, or the ones a
  /// batch hits most.
  struct found_element {
    destination index{};
    target_type* element = nullptr;
  };
  std::array<found_element, 8> found_{};
  std::uint32_t found_count_ = 0, found_next_ = 0;
  void forget_found() noexcept { found_count_ = found_next_ = 0; }
  target_type* find_element(const destination& index) {
    for (std::uint32_t i = 0; i < found_count_; ++i)
      if (found_[i].index == index) return found_[i].element;
    target_type* t = target_[index].local();
    if (t) {
      const std::uint32_t slot = found_count_ < found_.size() ? found_count_++ : found_next_++ % found_.size();
      found_[slot] = {index, t};
    }
    return t;
  }

  /// Hands `p` to its element if it is here (1), else sends it on (0): along
  /// the mesh after an element that moved, or through the runtime to one
  /// expected here but not built yet (counted when its handler has run).
  /// `counted`: the item was reported produced (it came in a buffer); a kept
  /// one (inserted here) that has to go on is reported now.
  std::uint64_t deliver_or_follow(packet_type&& p, bool counted) {
    if (target_type* t = find_element(p.index)) {
      (t->*Handler)(std::move(p.item));
      ++stats_.delivered;
      return 1;
    }
    ++stats_.forwarded;
    if (!counted) ++unreported_;
    const std::uint32_t where = target_[p.index].last_known_pe().value();
    if (where != me_) {
      p.pe = where;
      route(std::move(p));
      return 0;
    }
    report_produced();
    this->this_group()[pe_id{me_}].template send<&node::late>(std::move(p.index), std::move(p.item));
    return 0;
  }

 public:
  task<> late(destination index, item_type item) {
    co_await target_[index].template call<Handler>(std::move(item));
    ++stats_.delivered;
    detector_.consume(1);
  }

 private:
  void arm_flush() {
    if (options_.flush_when_idle && !idle_armed_) {
      idle_armed_ = true;
      when_idle([this] {
        idle_armed_ = false;
        flush();
      });
    }
    if (options_.flush_delay.count() > 0 && !timer_armed_) {
      timer_armed_ = true;
      after(options_.flush_delay, [this] {
        timer_armed_ = false;
        flush();
      });
    }
  }

  target_proxy target_;
  target_type* local_target_ = nullptr;  ///< groups: this PE's member, once built
  aggregation_options options_;
  completion_detector detector_;
  aggregation::virtual_mesh mesh_;
  std::uint32_t me_ = 0;
  std::vector<std::uint32_t> peers_;
  std::vector<std::uint32_t> slot_of_;
  std::vector<std::vector<packet_type>> out_;
  /// Items inserted for this PE, handed over in batches (arrays keep their index).
  using self_kind = std::conditional_t<group_type<target_type>, std::vector<item_type>, std::vector<packet_type>>;
  self_kind self_;
  std::uint64_t buffered_ = 0;
  std::uint64_t unreported_ = 0;
  std::vector<std::uint32_t> in_flight_;  ///< per peer: buffers sent, not acknowledged
  std::vector<std::uint32_t> slot_dim_;   ///< per peer: the mesh dimension it lies along
  std::uint32_t total_in_flight_ = 0;
  std::uint32_t window_ = 8;
  std::uint32_t last_slot_ = no_slot;     ///< where the last insert went (no_slot: handed over here)
  struct waiter {
    std::uint32_t slot;
    promise<void> ready;
  };
  std::vector<waiter> waiters_;
  struct deferred_ack {
    std::uint32_t from;
    std::uint32_t dim;
  };
  std::vector<deferred_ack> deferred_;
  bool idle_armed_ = false;
  bool timer_armed_ = false;
  aggregation_stats stats_;
};

}  // namespace aggregation::detail

/// Packets of plain items travel as raw bytes (one copy per buffer).
template <class T, class Item>
  requires(std::is_arithmetic_v<Item> || bitwise_serializable<Item>)
inline constexpr bool bitwise_serializable<aggregation::detail::packet<T, Item>> = true;

/// What `co_await aggregator::insert(...)` waits on: nothing while this PE has
/// room in its window, else the acknowledgements that make room. Not awaited
/// (a plain `insert` call), it does nothing.
template <class Node>
class insert_pacing {
 public:
  explicit insert_pacing(Node* n) noexcept : node_(n) {}
  bool await_ready() const noexcept { return !node_->must_wait(); }
  bool await_suspend(std::coroutine_handle<> h) {
    aw_.emplace(node_->wait_for_room().operator co_await());
    if (aw_->await_ready()) return false;
    aw_->await_suspend(h);
    return true;
  }
  void await_resume() {
    if (aw_) aw_->await_resume();
  }

 private:
  Node* node_;
  std::optional<decltype(std::declval<future<void>>().operator co_await())> aw_;
};

/// A handle to an aggregator: a plain value, copied into objects and
/// messages; every call acts on the calling PE's instance.
template <auto Handler>
class aggregator {
  using node_type = aggregation::detail::node<Handler>;

 public:
  using item_type = typename node_type::item_type;
  using destination = typename node_type::destination;
  using target_proxy = typename node_type::target_proxy;

  aggregator() noexcept = default;
  explicit aggregator(group_proxy<node_type> nodes) noexcept : nodes_(nodes) {}

  /// Buffers `item` for the object at `to` (a PE for a group, an index for an
  /// array). `co_await` the result in a task to wait while too many buffers
  /// are in flight; ignoring it never waits.
  insert_pacing<node_type> insert(const destination& to, item_type item) const {
    node_type& n = local();
    n.insert(to, std::move(item));
    return insert_pacing<node_type>(&n);
  }
  /// Sends this PE's partly filled buffers now.
  void flush() const { local().flush(); }
  /// One producer is finished (call once per producer, on its PE, after its last insert).
  void done() const { local().done(); }
  /// Arms a streaming step of `producers` producers; `finished` fires once they
  /// all called done() and all their items were handed over. Call once per step, on any PE.
  void start(std::uint64_t producers, callback<void> finished) const { local().start(producers, std::move(finished)); }

  /// This PE's counters.
  const aggregation_stats& stats() const { return local().stats(); }
  /// The virtual mesh in use.
  const aggregation::virtual_mesh& mesh() const { return local().mesh(); }
  /// The group of per-PE instances (e.g. to gather their stats with a reduction).
  group_proxy<node_type> instances() const noexcept { return nodes_; }

  template <class P>
  void pup(P& p) {
    p | nodes_;
  }

 private:
  node_type& local() const {
    auto& c = node_type::last_used();
    if (c.id == nodes_.id() && c.instance) [[likely]]
      return *c.instance;
    node_type* n = nodes_.local();
    if (!n) roam::abort("roam::aggregator used on pe " + std::to_string(my_pe().value()) + " before its instance was built there");
    c = {nodes_.id(), n};
    return *n;
  }
  group_proxy<node_type> nodes_;
};

/// Makes an aggregator whose items go to `Handler` (a member function taking
/// one item) of the members of `target` (a group) or its elements (an array).
/// Call once, on any PE; the returned value may be copied anywhere.
template <auto Handler, class Target>
aggregator<Handler> make_aggregator(Target target, aggregation_options options = {}) {
  using node_type = aggregation::detail::node<Handler>;
  static_assert(std::is_same_v<Target, typename node_type::target_proxy>,
                "roam::make_aggregator<&T::handler>(target): target must be the group_proxy<T> or array_proxy<T> of "
                "the handler's class");
  auto nodes = create_group<node_type>(target, std::move(options), completion_detector::create());
  return aggregator<Handler>(nodes);
}

}  // namespace roam
