#pragma once
/// Callbacks: serializable "where to deliver a result" values. A callback<T>
/// delivers one T (nothing for callback<void>) to an entry method of a chare,
/// array element, group member or nodegroup; as a broadcast to an array or a
/// group; to a future (through its promise); to a registered function on a
/// chosen PE; or nowhere (ignore). Reductions, quiescence detection and
/// libraries report through them.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <utility>

#include <roam/machine/ids.hpp>
#include <roam/msg/detail/control.hpp>
#include <roam/msg/names.hpp>
#include <roam/msg/pup.hpp>
#include <roam/sched/detail/post.hpp>
#include <roam/msg/future.hpp>

namespace roam {

namespace detail {

/// Room for a packed proxy: a collection's wire description (54 bytes) and a 6-D index.
inline constexpr std::size_t callback_target_bytes = 88;

/// How one kind of callback target delivers: unpack the target from bytes and send.
struct callback_ops {
  std::uint64_t id;
  std::string_view name;
  void (*deliver)(const std::byte* target, void* value);  ///< value: T*, or nullptr for void
};
bool register_callback_ops(const callback_ops* ops);
const callback_ops* find_callback_ops(std::uint64_t id) noexcept;

template <class Target>
Target read_target(const std::byte* bytes) {
  Target t{};
  auto p = pup_er::unpacker(bytes, callback_target_bytes);
  p | t;
  return t;
}

template <class T, class Proxy, auto M, bool Broadcast>
struct entry_callback {
  static void deliver(const std::byte* target, void* value) {
    Proxy p = read_target<Proxy>(target);
    if constexpr (std::is_void_v<T>) p.template send<M>();
    else p.template send<M>(std::move(*static_cast<T*>(value)));
  }
  static constexpr std::uint64_t id = stable_hash(
      type_name<decltype(M)>(),
      stable_hash(member_name<M>(), stable_hash(Broadcast ? "callback-bcast/" : "callback/", stable_hash(type_name<Proxy>()))));
  static constexpr callback_ops ops{id, member_name<M>(), &deliver};
  static inline const bool registered = register_callback_ops(&ops);
};

/// A proxy and a reference number delivered with the value: (ref, value).
template <class Proxy, class Ref>
struct tagged_target {
  Proxy proxy;
  Ref ref;
  void pup(pup_er& p) { p | proxy | ref; }
};

template <class T, class Proxy, class Ref, auto M, bool Broadcast>
struct tagged_entry_callback {
  static void deliver(const std::byte* target, void* value) {
    auto t = read_target<tagged_target<Proxy, Ref>>(target);
    if constexpr (std::is_void_v<T>) t.proxy.template send<M>(std::move(t.ref));
    else t.proxy.template send<M>(std::move(t.ref), std::move(*static_cast<T*>(value)));
  }
  static constexpr std::uint64_t id = stable_hash(
      type_name<decltype(M)>(),
      stable_hash(member_name<M>(),
                  stable_hash(type_name<Ref>(), stable_hash(Broadcast ? "callback-tagged-bcast/" : "callback-tagged/",
                                                            stable_hash(type_name<Proxy>())))));
  static constexpr callback_ops ops{id, member_name<M>(), &deliver};
  static inline const bool registered = register_callback_ops(&ops);
};

template <class T>
struct future_callback {
  static void deliver(const std::byte* target, void* value) {
    auto p = read_target<promise<T>>(target);
    if constexpr (std::is_void_v<T>) p.set_value();
    else p.set_value(std::move(*static_cast<T*>(value)));
  }
  static constexpr std::uint64_t id = stable_hash(type_name<T>(), stable_hash("callback-future/"));
  static constexpr callback_ops ops{id, "future", &deliver};
  static inline const bool registered = register_callback_ops(&ops);
};

template <auto Fn>
void run_function() {
  Fn();
}
template <class T, auto Fn>
void run_function_with(T value) {
  Fn(std::move(value));
}

template <class T, auto Fn>
struct function_callback {
  static void deliver(const std::byte* target, void* value) {
    auto pe = read_target<std::uint32_t>(target);
    if constexpr (std::is_void_v<T>) post_control<&run_function<Fn>, fn_key<Fn>>(pe, 0);
    else post_control<&run_function_with<T, Fn>, fn_key<Fn>>(pe, 0, std::move(*static_cast<T*>(value)));
  }
  static constexpr std::uint64_t id =
      stable_hash(type_name<fn_key<Fn>>(), stable_hash(type_name<T>(), stable_hash("callback-function/")));
  static constexpr callback_ops ops{id, member_name<Fn>(), &deliver};
  static inline const bool registered = register_callback_ops(&ops);
};

}  // namespace detail

/// A value naming where one result of type T goes (see the file comment).
/// Copyable and serializable; invoking it sends a message (or posts to a PE).
template <class T = void>
class callback {
 public:
  /// The ignore callback: delivering to it does nothing.
  callback() noexcept = default;
  static callback ignore() noexcept { return {}; }

  /// Delivers by sending entry `M` through `target` (a chare, element, group member or nodegroup proxy).
  template <auto M, class Proxy>
  static callback to(const Proxy& target) {
    return make<detail::entry_callback<T, Proxy, M, false>>(target);
  }
  /// Delivers by broadcasting entry `M` to `target` (an array or group proxy).
  template <auto M, class Proxy>
  static callback broadcast(const Proxy& target) {
    return make<detail::entry_callback<T, Proxy, M, true>>(target);
  }
  /// The same, with a reference number: delivers (`ref`, value), or `ref`
  /// alone for callback<void>, through entry or mailbox `M`. SDAG's
  /// reduction refnum: each element names its iteration in its contribution,
  /// `contribute(x, roam::sum, callback<double>::broadcast<&cell::sums>(this_array(), iter))`,
  /// and a task takes each result with `co_await sums.receive(iter)` however
  /// many reductions are in flight.
  template <auto M, class Proxy, class Ref>
  static callback to(const Proxy& target, Ref ref) {
    return make<detail::tagged_entry_callback<T, Proxy, Ref, M, false>>(
        detail::tagged_target<Proxy, Ref>{target, std::move(ref)});
  }
  template <auto M, class Proxy, class Ref>
  static callback broadcast(const Proxy& target, Ref ref) {
    return make<detail::tagged_entry_callback<T, Proxy, Ref, M, true>>(
        detail::tagged_target<Proxy, Ref>{target, std::move(ref)});
  }
  /// Delivers to the future of `p` (on the future's PE).
  static callback to_future(const promise<T>& p) { return make<detail::future_callback<T>>(p); }
  /// Delivers by running `Fn(value)` (or `Fn()`) on PE `pe`.
  template <auto Fn>
  static callback function(pe_id pe) {
    return make<detail::function_callback<T, Fn>>(pe.value());
  }

  bool is_ignore() const noexcept { return ops_ == nullptr; }

  /// Delivers `value` (callable on any PE).
  template <class U = T>
    requires(!std::is_void_v<T> && std::is_convertible_v<U&&, T>)
  void send(U&& value) const {
    if (!ops_) return;
    T v(std::forward<U>(value));
    ops_->deliver(target_.data(), &v);
  }
  void send() const
    requires std::is_void_v<T>
  {
    if (ops_) ops_->deliver(target_.data(), nullptr);
  }

  /// Travels as the target kind's stable id and the packed target.
  void pup(pup_er& p) {
    std::uint64_t id = ops_ ? ops_->id : 0;
    p | id;
    p.bytes(target_.data(), target_.size());
    if (p.is_unpacking()) {
      ops_ = id ? detail::find_callback_ops(id) : nullptr;
      if (id && !ops_) throw pup_error("callback names an unknown target kind");
    }
  }

 private:
  template <class Impl, class Target>
  static callback make(const Target& target) {
    (void)Impl::registered;
    callback c;
    c.ops_ = &Impl::ops;
    if (packed_size(target) > c.target_.size())
      throw std::length_error("roam: this proxy is too large to be a callback target (a section proxy?): " +
                              std::string(type_name<Target>()));
    auto p = pup_er::packer(c.target_.data(), c.target_.size());
    p | target;
    return c;
  }

  const detail::callback_ops* ops_ = nullptr;
  std::array<std::byte, detail::callback_target_bytes> target_{};
};

/// A future on the calling PE and a callback that fulfils it: the way for a
/// task to await a reduction's result or any other callback-reported event,
/// `auto [done, cb] = roam::make_future_callback<double>(); contribute(x, roam::sum, cb); co_await done;`.
template <class T = void>
std::pair<future<T>, callback<T>> make_future_callback() {
  auto [f, p] = make_future<T>();
  return {std::move(f), callback<T>::to_future(p)};
}

}  // namespace roam
