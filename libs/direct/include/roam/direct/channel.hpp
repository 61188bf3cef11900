#pragma once
/// \file
/// roam::direct: persistent one-sided channels (CkDirect). A receiver owns a
/// buffer and makes a channel for it; the sender attaches its source once
/// and then, every iteration, puts the whole source straight into the
/// receiver's buffer: no message payload, no copy on the receiving side, no
/// scheduler queueing of a message. The receiver's callback runs on its PE
/// once the data is in place; the receiver re-arms the channel with ready()
/// when it has used the data. The application's own synchronisation (an
/// iteration's barrier or data dependencies) must order each put after the
/// receiver's ready(): a put on a channel that is not ready is an error, never
/// an overwrite. docs/design/direct.md has the paths and the rules.
///
/// ```cpp
/// struct block : roam::element<block, int> {
///   std::vector<double> ghost = std::vector<double>(n);
///   roam::direct::receiver in;
///   roam::direct::channel out;
///   void start() {
///     in = roam::direct::make_channel(*this, std::span(ghost), [this] { ghost_arrived(); });
///     left.send<&block::connect>(roam::direct::channel(in));  // the handle, to the sender
///   }
///   void connect(roam::direct::channel c) { out = c; out.attach(std::span(edge)); }
///   void step() { out.put(); }                 // each iteration
///   void ghost_arrived() { use(ghost); in.ready(); }
///   void after_migration() { in.rebind(*this, std::span(ghost), [this] { ghost_arrived(); }); out.attach(std::span(edge)); }
///   void pup(roam::pup_er& p) { p | ghost | edge | in | out; }
/// };
/// ```
///
/// Migration: a receiver or sender that moves within its process as itself
/// (the default for array elements) keeps its channels as they are. One
/// that moves through pup (to another process, under +serialize or with
/// pup_on_migration) must rebind its receivers and re-attach its senders in
/// after_migration(), since its buffers have new addresses; puts that
/// arrive meanwhile wait at the channel's home PE and land exactly once.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <sstream>
#include <span>
#include <string>
#include <type_traits>

#include <roam/msg/names.hpp>
#include <roam/msg/pup.hpp>

namespace roam::direct {

namespace detail {
struct endpoint;
/// What travels when a receiver moves or is checkpointed (pup).
struct receiver_record {
  std::uint64_t id = 0;
  std::uint64_t bytes = 0;
  std::uint32_t epoch = 0;
  std::uint32_t state = 0;  ///< armed / polling / landed bits (endpoint.hpp)
  std::uint32_t from_pe = 0;  ///< where it was when packed
  std::string owner;          ///< the receiver's name, for errors
  void pup(roam::pup_er& p) { p | id | bytes | epoch | state | from_pe | owner; }
};
/// How a sender in another process of the receiver's host reaches it
/// directly (src/host.hpp): the receiver process's shared segment, the
/// state word's slot in it, the buffer's address there.
struct host_view {
  std::uint32_t node = ~0u;  ///< the receiver's process; ~0u: none
  std::int32_t pid = 0;
  std::int32_t fd = -1;
  std::uint64_t token = 0;
  std::uint32_t slot = 0;
  std::uint32_t pe = 0;
  std::uint32_t epoch = 0;
  std::uint64_t staging = 0;  ///< the receiver's staging area's offset in the segment (0: none)
  std::uint64_t address = 0;
  bool valid() const noexcept { return node != ~0u; }
  void pup(roam::pup_er& p) { p | node | pid | fd | token | slot | pe | epoch | staging | address; }
};
std::shared_ptr<endpoint> open(const void* owner, std::string owner_name, std::span<std::byte> buffer,
                               std::function<void()> on_arrival);
std::shared_ptr<endpoint> reopen(const receiver_record& from, const void* owner, std::span<std::byte> buffer,
                                 std::function<void()> on_arrival);
receiver_record record_of(const endpoint& e);
void close(const std::shared_ptr<endpoint>& e) noexcept;
void ready_mark(endpoint& e);
void ready_poll(endpoint& e);
void ready(endpoint& e);
bool arrived(endpoint& e) noexcept;
std::uint32_t home_of(std::uint64_t id) noexcept;

template <class O>
std::string owner_name(const O& owner) {
  std::string name(roam::type_name<O>());
  if constexpr (requires(std::ostream& os) { os << owner.this_index(); }) {
    std::ostringstream os;
    os << owner.this_index();
    const std::string index = os.str();
    name += index.starts_with('[') ? index : '[' + index + ']';
  }
  return name;
}
}  // namespace detail

class channel;

/// The receiving side: made by make_channel, kept by the receiving object
/// (pup it with the object), movable, not copyable. Destroying it (or
/// close()) ends the channel: later puts are reported as errors.
class receiver {
 public:
  receiver() = default;
  receiver(receiver&& o) noexcept;
  receiver& operator=(receiver&& o) noexcept;
  receiver(const receiver&) = delete;
  receiver& operator=(const receiver&) = delete;
  ~receiver();

  /// Ready for the next put, with the callback on (the usual form): the
  /// data of the last put has been used. Call it on the receiver's PE.
  void ready();
  /// Ready for the next put, callback off: a put lands but nothing runs
  /// until ready_poll(); arrived() tells whether it has landed.
  void ready_mark();
  /// The callback on: runs soon (from the scheduler) if a put has already
  /// landed since ready_mark(), else when one lands.
  void ready_poll();
  /// Whether a put has landed since the last ready()/ready_mark() (its
  /// data is then in the buffer). Call it on the receiver's PE.
  bool arrived() noexcept;
  /// After a move through pup: the buffer's new place and the callback.
  /// Same size as before; puts that waited meanwhile land now.
  /// `owner`: the receiving object at its new place.
  template <class O, class T, std::size_t N, class F>
  void rebind(O& owner, std::span<T, N> buffer, F&& on_arrival) {
    rebind_bytes(&owner, std::as_writable_bytes(buffer), std::function<void()>(std::forward<F>(on_arrival)));
  }
  void rebind_bytes(const void* owner, std::span<std::byte> buffer, std::function<void()> on_arrival);
  /// Ends the channel now.
  void close() noexcept;

  std::uint64_t id() const noexcept;
  std::size_t bytes() const noexcept;
  explicit operator bool() const noexcept { return ep_ != nullptr || record_.id != 0; }

  void pup(roam::pup_er& p);

 private:
  template <class O, class T, std::size_t N, class F>
  friend receiver make_channel(O& owner, std::span<T, N> buffer, F&& on_arrival);
  friend class channel;
  detail::endpoint& bound(const char* what) const;
  std::shared_ptr<detail::endpoint> ep_;
  detail::receiver_record record_;  ///< unpacked, waiting for rebind (ep_ null)
};

/// The sending side: a small serialisable handle, copied to the sender like
/// any value (from a receiver: `roam::direct::channel(in)`).
class channel {
 public:
  channel() = default;
  explicit channel(const receiver& r);

  /// The source each put() copies from, once (again after a move through
  /// pup). Its size must be the receiver's buffer size.
  template <class T, std::size_t N>
  void attach(std::span<T, N> source) {
    attach_bytes(std::as_bytes(source));
  }
  void attach_bytes(std::span<const std::byte> source);
  /// Copies the whole source into the receiver's buffer (the source may be
  /// reused when put returns) and has the receiver's callback run there.
  /// The receiver must be ready (its ready() ordered before this put by the
  /// application's synchronisation): otherwise std::logic_error.
  void put();

  std::uint64_t id() const noexcept { return id_; }
  std::size_t bytes() const noexcept { return bytes_; }
  const std::string& receiver_name() const noexcept { return receiver_; }
  explicit operator bool() const noexcept { return id_ != 0; }

  void pup(roam::pup_er& p) {
    p | id_ | bytes_ | pe_ | receiver_ | view_;
    if (p.is_unpacking()) {
      source_ = nullptr;
      cached_.reset();
      peer_state_ = nullptr;
      peer_bell_ = nullptr;
      peer_staging_ = nullptr;
    }
  }

 private:
  void put_by_message();
  bool put_to_peer();
  std::uint64_t id_ = 0;
  std::uint64_t bytes_ = 0;
  std::uint32_t pe_ = 0;  ///< where the receiver was last known to be
  std::string receiver_;
  const std::byte* source_ = nullptr;       ///< not serialised: attach again after a move through pup
  std::shared_ptr<detail::endpoint> cached_;  ///< the receiver's endpoint when it is in this process
  detail::host_view view_;                    ///< the receiver in another process of this host
  void* peer_state_ = nullptr;                ///< view_'s state word, mapped here (not serialised)
  void* peer_bell_ = nullptr;
  void* peer_staging_ = nullptr;
};

/// Makes a channel into `buffer`, owned by `owner` (the receiving object:
/// an array element, chare or group member; its moves are followed). The
/// channel starts ready: the first put may come at once. `on_arrival` runs
/// on the owner's PE after each put has landed (a plain call, not an entry
/// method: it may send messages and call ready(), and should not block).
template <class O, class T, std::size_t N, class F>
receiver make_channel(O& owner, std::span<T, N> buffer, F&& on_arrival) {
  static_assert(std::is_trivially_copyable_v<T>, "roam::direct: a channel's buffer holds trivially copyable values");
  receiver r;
  r.ep_ = detail::open(&owner, detail::owner_name(owner), std::as_writable_bytes(buffer),
                       std::function<void()>(std::forward<F>(on_arrival)));
  return r;
}

}  // namespace roam::direct
