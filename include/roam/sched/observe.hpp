#pragma once
// Runtime observers: the extension point tracing and load balancing subscribe
// to. Every entry method that runs, every coroutine task resumption and every
// slice of a threaded entry is bracketed by entry_begin/entry_end on the PE
// that runs it; entry messages sent and received, and each PE's idle periods,
// are reported too. Any number of observers may subscribe (up to
// max_observers); each sees every event, in subscription order.
//
// Cost when nobody subscribes: one relaxed load and a predictable branch at
// each point. Observers are called on PE threads, concurrently from several
// PEs: they must be thread-safe (per-PE state indexed by `pe` is the usual
// way) and must not send messages or block. Subscribe before `roam::run`
// (or from main, before the work to observe); an observer must outlive the
// run or be removed once no PE runs.
#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

#include <roam/sched/clock.hpp>

namespace roam {

/// What kind of object an event concerns.
enum class object_kind : std::uint8_t { none, chare, array_element, group_member, nodegroup_member };

/// Which object: enough to name it in a trace and to find it again on its PE.
struct object_identity {
  object_kind kind = object_kind::none;
  std::uint8_t dims = 0;                  ///< array elements: meaningful index coordinates
  std::uint32_t collection = 0;           ///< arrays, groups, nodegroups: the collection id
  std::array<std::int32_t, 6> index{};    ///< array elements: the index; group members: the PE in [0]
  std::uint64_t chare_id = 0;             ///< singleton chares
  friend bool operator==(const object_identity&, const object_identity&) = default;
};

/// What runs between entry_begin and entry_end.
enum class run_kind : std::uint8_t {
  entry,        ///< an entry method invoked by a message (every member of a broadcast: one each)
  task_resume,  ///< a suspended coroutine task resumed (a future, mailbox or timer it awaited is ready)
  thread,       ///< a slice of a threaded entry, from its start or resumption to its end or blocking
};

struct entry_event {
  object_identity object;
  std::uint64_t entry = 0;          ///< the entry's stable id; 0 for task resumptions (not recorded)
  std::string_view entry_name;      ///< "cell::recv"; empty when `entry` is 0
  const void* obj = nullptr;        ///< the object's address on this PE (null: none)
  std::uint32_t pe = 0;
  run_kind how = run_kind::entry;
  std::uint64_t ticks = 0;          ///< event clock (roam/sched/clock.hpp); see observer_needs for when it is 0
  /// entry_end only: the begin's reading (0: the begin was not timed), so that an observer that times
  /// entries needs no entry_begin call (need_begin_calls) and keeps no stack of open entries.
  std::uint64_t begin_ticks = 0;
  /// entry_end only: it ran inside another entry on this thread (which goes on after it).
  bool nested = false;
};

struct message_event {
  std::uint32_t pe = 0;             ///< the PE sending, or receiving
  std::uint32_t peer = 0;           ///< sent: the destination PE (or node); received: the source PE
  bool to_node = false;             ///< sent to a node's queue (nodegroups): `peer` is the node, or ~0u for all
  /// Envelope plus the payload's serialized size (need_message_bytes; else as held in memory).
  std::uint64_t bytes = 0;
  std::uint64_t entry = 0;          ///< the entry's stable id
  /// Links a send to its receipt: numbered per sending PE (20 bits, wrapping), carried by the message
  /// (and by each copy a broadcast or multicast tree makes, each copy being a send of its own).
  /// A receipt's (peer, flow) names the send; a message passed on towards a migrated element keeps it.
  std::uint32_t flow = 0;
  /// Received: when (event clock), if any observer needs begin times; the entry the message starts
  /// begins at the same reading. Sent: when, if any observer needs send times. Else 0.
  std::uint64_t ticks = 0;
  /// Sent, if any observer needs targets: the object addressed (an array element, a chare, a group
  /// member; `kind` none for broadcasts and runtime messages). Else empty.
  object_identity to{};
};

/// Runtime phases, reported by the layer that completes them.
enum class phase_kind : std::uint8_t {
  reduction_done,  ///< a reduction completed at its root: `collection`, `number` = reduction number
  quiescence,      ///< quiescence was detected (on the PE that detected it)
  load_balance,    ///< a load-balancing step (reported by the lb layer)
  checkpoint,      ///< a checkpoint (declared for the ft layer; not reported yet)
};

struct phase_event {
  std::uint32_t pe = 0;
  phase_kind kind = phase_kind::reduction_done;
  std::uint32_t collection = 0;
  std::uint64_t number = 0;
  std::uint64_t ticks = 0;
};

/// What an observer needs measured. The runtime measures the union of what
/// its subscribers need, so that an observer that only counts, or that times
/// entries coarsely, does not pay for clock readings it would ignore.
enum observer_needs : std::uint32_t {
  /// entry_begin carries a clock reading (and so does message_received: the same one).
  need_begin_times = 1u << 0,
  /// entry_end carries a clock reading. Without it, an entry not nested in
  /// another ends with `ticks` 0: it lasted until the PE's next timed event
  /// (the next begin, idle_begin, pe_stopped), scheduler work in between included.
  need_end_times = 1u << 1,
  /// message_sent carries a clock reading.
  need_send_times = 1u << 2,
  /// entry events name their object (else `object` is left empty).
  need_identity = 1u << 3,
  /// entry_begin is called. Without it an observer hears of an entry only at
  /// its end, whose event carries the begin's reading and whether it was nested.
  need_begin_calls = 1u << 4,
  /// Sends are numbered (message_event::flow), linking each receipt to its send. Else flow is 0.
  need_flows = 1u << 5,
  /// message_event::bytes is what the message carries, however it holds it (a sizing pass of the
  /// entry's pup per send and receipt). Else it is the envelope plus the payload as held in memory:
  /// a roam::buffer or std::vector argument counts its handle, not its contents.
  need_message_bytes = 1u << 7,
  need_everything = need_begin_times | need_end_times | need_send_times | need_identity | need_begin_calls | need_flows |
                    need_message_bytes,
  /// message_sent names the object addressed (message_event::to). Not part of need_everything: only a
  /// load balancer building the communication graph wants it.
  need_targets = 1u << 6,
};

class runtime_observer {
 public:
  virtual ~runtime_observer() = default;
  /// Asked once, when the observer subscribes.
  virtual std::uint32_t needs() const noexcept { return need_everything; }
  virtual void entry_begin(const entry_event&) noexcept {}
  virtual void entry_end(const entry_event&) noexcept {}
  /// An entry message left this PE (for any PE, this one included).
  virtual void message_sent(const message_event&) noexcept {}
  /// An entry message is about to be delivered on this PE.
  virtual void message_received(const message_event&) noexcept {}
  /// The PE found no work and starts waiting for some (spin, then sleep).
  virtual void idle_begin(std::uint32_t /*pe*/, std::uint64_t /*ticks*/) noexcept {}
  virtual void idle_end(std::uint32_t /*pe*/, std::uint64_t /*ticks*/) noexcept {}
  virtual void phase(const phase_event&) noexcept {}
  /// The PE stopped running messages (the program is ending).
  virtual void pe_stopped(std::uint32_t /*pe*/, std::uint64_t /*ticks*/) noexcept {}
};

inline constexpr std::size_t max_observers = 16;

/// Subscribes `o` (false: already subscribed, or max_observers reached).
bool add_observer(runtime_observer& o) noexcept;
/// Unsubscribes `o`; its slot is reused. Events already being delivered to it on other PEs may still arrive.
void remove_observer(runtime_observer& o) noexcept;


namespace detail {

/// Fixed slots, so PEs read the list without a lock while subscribers come and go.
template <class T>
struct subscriber_list {
  std::atomic<std::uint32_t> active{0};  ///< non-null slots; the hot paths test only this
  std::atomic<std::uint32_t> high{0};    ///< slots at or above this were never used
  std::array<std::atomic<T*>, max_observers> slots{};

  bool any() const noexcept { return active.load(std::memory_order_relaxed) != 0; }
  template <class F>
  void for_each(F&& fn) noexcept {
    const std::uint32_t n = high.load(std::memory_order_acquire);
    for (std::uint32_t i = 0; i < n; ++i)
      if (T* o = slots[i].load(std::memory_order_acquire)) fn(*o);
  }
  /// Both serialised by one process-wide mutex (subscription is rare).
  bool add(T& o) noexcept;
  void remove(T& o) noexcept;
};
/// The mutex subscriber_list::add/remove take.
void lock_subscriptions() noexcept;
void unlock_subscriptions() noexcept;

template <class T>
bool subscriber_list<T>::add(T& o) noexcept {
  lock_subscriptions();
  bool added = false, present = false;
  for (auto& s : slots) present |= s.load(std::memory_order_relaxed) == &o;
  for (std::uint32_t i = 0; i < max_observers; ++i) {
    if (present || slots[i].load(std::memory_order_relaxed)) continue;
    slots[i].store(&o, std::memory_order_release);
    if (i >= high.load(std::memory_order_relaxed)) high.store(i + 1, std::memory_order_release);
    active.fetch_add(1, std::memory_order_release);
    added = true;
    break;
  }
  unlock_subscriptions();
  return added;
}
template <class T>
void subscriber_list<T>::remove(T& o) noexcept {
  lock_subscriptions();
  for (auto& s : slots)
    if (s.load(std::memory_order_relaxed) == &o) {
      s.store(nullptr, std::memory_order_release);
      active.fetch_sub(1, std::memory_order_release);
      break;
    }
  unlock_subscriptions();
}

inline subscriber_list<runtime_observer> g_observers;
/// The union of the subscribers' needs() (kept by add_observer/remove_observer).
inline std::atomic<std::uint32_t> g_observer_needs{0};
inline std::uint32_t observer_needs_now() noexcept { return g_observer_needs.load(std::memory_order_relaxed); }
/// Entries (of every run kind) begun and not ended on this thread: an entry
/// that ends inside another is always timed.
inline constinit thread_local int tls_observed_depth = 0;

/// The one branch every observation point pays when nobody subscribes.
inline bool observed() noexcept { return g_observers.any(); }

/// Tells observers that this thread's PE stopped running messages.
void report_pe_stopped() noexcept;
/// Tells observers about a runtime phase completed on this thread's PE.
[[gnu::cold]] void report_phase_observed(phase_kind kind, std::uint32_t collection, std::uint64_t number) noexcept;
inline void report_phase(phase_kind kind, std::uint32_t collection, std::uint64_t number) noexcept {
  if (observed()) [[unlikely]]
    report_phase_observed(kind, collection, number);
}

/// Calls `fn(observer&)` for every subscribed observer.
template <class F>
void for_each_observer(F&& fn) noexcept {
  g_observers.for_each(fn);
}

/// entry_begin to every observer (unless none needs begin calls), keeping tls_observed_depth.
inline void dispatch_entry_begin(const entry_event& e) noexcept {
  ++tls_observed_depth;
  if (observer_needs_now() & need_begin_calls) for_each_observer([&](runtime_observer& o) { o.entry_begin(e); });
}
/// entry_end to every observer: `e` (as it began) now ends at `end_ticks`.
inline void dispatch_entry_end(entry_event& e, std::uint64_t end_ticks) noexcept {
  e.begin_ticks = e.ticks;
  e.ticks = end_ticks;
  e.nested = --tls_observed_depth > 0;
  for_each_observer([&](runtime_observer& o) { o.entry_end(e); });
}

/// The entry being invoked on this thread while observers are subscribed
/// (set by the object layer around each invocation), so that what it starts
/// (a threaded entry) can name the same object and entry.
inline constinit thread_local const entry_event* tls_observed_entry = nullptr;

/// Carried by a threaded entry's thread: the invoking entry's event, so that
/// each slice of the thread is observed as `run_kind::thread`.
struct thread_observation {
  entry_event event;
  bool on = false;
  /// At spawn, inside the invoking entry.
  static thread_observation capture() noexcept {
    thread_observation t;
    if (observed() && tls_observed_entry) [[unlikely]] {
      t.event = *tls_observed_entry;
      t.event.how = run_kind::thread;
      t.on = true;
    }
    return t;
  }
  /// First thing on the thread / last thing on it.
  void begin() noexcept;
  void end() noexcept;
};

}  // namespace detail
}  // namespace roam
