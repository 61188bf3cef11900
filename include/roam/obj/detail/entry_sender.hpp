#pragma once
// The send/call surface shared by every proxy that names one destination
// (a chare, an array element, a group member, a nodegroup). The proxy
// supplies three hooks, which this mixin calls in order:
//   bool resolve<M>(std::uint32_t& pe)  validate and pick the PE (false: already reported)
//   void address(message*)              fill the envelope's target fields
//   void dispatch(message*, pe)         hand the message over
#include <cstdint>
#include <utility>

#include <roam/obj/detail/objects.hpp>

namespace roam::detail {

template <class Proxy, class T>
class entry_sender {
 public:
  friend constexpr bool operator==(const entry_sender&, const entry_sender&) noexcept { return true; }

  /// Sends `M(args...)` (asynchronous; returns at once). Misuse found here is a
  /// fatal error naming the PE, the object and the entry; nothing is sent then.
  template <auto M, class... A>
  void send(A&&... a) const {
    send<M>(send_options{}, std::forward<A>(a)...);
  }
  template <auto M, class... A>
  void send(send_options o, A&&... a) const {
    static_assert(check_entry<T, M, A...>());
    const Proxy& self = static_cast<const Proxy&>(*this);
    std::uint32_t pe = 0;
    if (!self.template resolve<M>(pe)) return;
    message* m = build_entry_message<T, M, false>(o, std::forward<A>(a)...);
    self.address(m);
    self.dispatch(m, pe);
  }

  /// Invokes `M(args...)` and returns a future of its result, or of the
  /// exception it threw (rethrown where the future is awaited).
  template <auto M, class... A>
  auto call(A&&... a) const {
    return call<M>(send_options{}, std::forward<A>(a)...);
  }
  template <auto M, class... A>
  auto call(send_options o, A&&... a) const {
    static_assert(check_entry<T, M, A...>());
    const Proxy& self = static_cast<const Proxy&>(*this);
    std::uint32_t pe = 0;
    bool ok = self.template resolve<M>(pe);
    return call_entry<T, M>(o, [&](message* m) {
      self.address(m);
      if (ok) {
        self.dispatch(m, pe);
      } else {
        m->ops->destroy(m);
        free_message(m);
      }
    }, std::forward<A>(a)...);
  }
};

/// The send surface of proxies that name many members (an array or group
/// broadcast, a section multicast). Hooks:
///   bool fan_out_root(std::uint32_t& pe)  where the fan-out enters its tree (false: nobody to reach)
///   void address(message*)                fill the envelope's target fields
template <class Proxy, class T>
class fan_out_sender {
 public:
  /// Sends `M(args...)` to every member exactly once; each member gets its own
  /// copy of by-value parameters, and all members see one order of fan-outs.
  template <auto M, class... A>
  void send(A&&... a) const {
    send<M>(send_options{}, std::forward<A>(a)...);
  }
  template <auto M, class... A>
  void send(send_options o, A&&... a) const {
    static_assert(check_entry<T, M, A...>());
    const Proxy& self = static_cast<const Proxy&>(*this);
    std::uint32_t root = 0;
    if (!self.fan_out_root(root)) return;
    fan_out_entry<T, M>(root, o, [&self](message* m) { self.address(m); }, std::forward<A>(a)...);
  }
  friend constexpr bool operator==(const fan_out_sender&, const fan_out_sender&) noexcept { return true; }
};

}  // namespace roam::detail
