#pragma once
// Runtime control messages: a call of a registered free function on another
// PE, with typed arguments moved in (one process) or packed with pup (the
// wire). They replace ad-hoc closures wherever a message may one day cross
// processes: creation, destruction, future results, detection requests and
// waves. The function's name is its stable identity, as for entry methods.
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <roam/msg/detail/entry_ops.hpp>
#include <roam/msg/detail/packed_payload.hpp>
#include <roam/msg/names.hpp>
#include <roam/msg/pup.hpp>
#include <roam/msg/detail/wire.hpp>

namespace roam::detail {

template <class F>
struct function_traits;
template <class... A>
struct function_traits<void (*)(A...)> {
  using args_tuple = std::tuple<std::decay_t<A>...>;
};
template <class... A>
struct function_traits<void (*)(A...) noexcept> {
  using args_tuple = std::tuple<std::decay_t<A>...>;
};

/// Runs a control message's function with its arguments (the `run` of every control message).
void deliver_control(work_item* w, work_action a) noexcept;

/// Names a function for control-message identity when the function is itself
/// a template parameter (clang prints function template names without their arguments).
template <auto Fn>
struct fn_key {};

/// `Key` tells apart instantiations of a function template whose printed name
/// and signature would otherwise be the same (e.g. construct_chare<T, ...>).
template <auto Fn, class Key = void>
struct control_impl {
  using args_tuple = typename function_traits<decltype(Fn)>::args_tuple;
  static_assert([]<class... P>(std::type_identity<std::tuple<P...>>) {
    return (serializable<P> && ...);
  }(std::type_identity<args_tuple>{}),
                "roam: a control message's arguments must be serializable");

  static void invoke(message* m, void*) {
    if (m->payload == payload_kind::packed) {
      args_tuple args{};
      unpack_packed(m, args);
      std::apply(Fn, std::move(args));
    } else {
      std::apply(Fn, std::move(*static_cast<args_tuple*>(m->payload_ptr())));
    }
  }
  static void destroy(message* m) noexcept {
    if (m->payload == payload_kind::inline_args) std::destroy_at(static_cast<args_tuple*>(m->payload_ptr()));
    else if (m->payload == payload_kind::packed) release_packed_segments(m);
  }
  template <class P>
  static void pup_payload(P& p, const message* m) {
    if (m->payload == payload_kind::packed) pup_packed_payload(p, m);
    else p | *static_cast<const args_tuple*>(m->payload_ptr());
  }
  static constexpr std::uint64_t id = stable_hash(
      type_name<Key>(), stable_hash(type_name<decltype(Fn)>(), stable_hash(member_name<Fn>(), stable_hash("control/"))));
  static constexpr entry_ops ops{id,      member_name<Fn>(), "runtime", false, &invoke, &destroy,
                                 &packed_size_via<control_impl>, &pack_via<control_impl>};
  static inline const bool registered = register_entry(&ops);
};

template <auto Fn, class Key, class... A>
message* build_control(std::int32_t priority, A&&... a) {
  using impl = control_impl<Fn, Key>;
  (void)impl::registered;
  using args_tuple = typename impl::args_tuple;
  static_assert(std::is_constructible_v<args_tuple, A&&...>, "roam: arguments do not match the control function");
  message* m = allocate_message(sizeof(args_tuple));
  ::new (m->payload_ptr()) args_tuple(std::forward<A>(a)...);
  m->ops = &impl::ops;
  m->run = &deliver_control;
  m->priority = priority;
  m->target = target_kind::control;
  m->payload = payload_kind::inline_args;
  return m;
}

/// Runs `Fn(args...)` on PE `dst` as a counted message (through the wire format under +serialize).
template <auto Fn, class Key = void, class... A>
void post_control(std::uint32_t dst, std::int32_t priority, A&&... a) {
  message* m = build_control<Fn, Key>(priority, std::forward<A>(a)...);
  pe_state* me = tls_pe;
  m->dst_pe = dst;
  m->src_pe = me ? me->id() : 0;
  if (must_copy_through_wire(me)) [[unlikely]] m = roundtrip_through_wire(m);
  post(dst, m);
}

/// The same for control traffic quiescence detection must not count.
template <auto Fn, class Key = void, class... A>
void post_control_uncounted(std::uint32_t dst, A&&... a) {
  message* m = build_control<Fn, Key>(0, std::forward<A>(a)...);
  m->flags |= work_uncounted;
  pe_state* me = tls_pe;
  m->dst_pe = dst;
  m->src_pe = me ? me->id() : 0;
  if (must_copy_through_wire(me)) [[unlikely]] m = roundtrip_through_wire(m);
  if (me && me->id() == dst) me->enqueue_local(m);
  else route(*g_runtime.load(std::memory_order_acquire), dst, m);
}

}  // namespace roam::detail
