#pragma once
// Entry methods: compile-time traits of a member-function pointer, and the
// per-(class, entry) operations table that delivers a message's payload to an
// object whichever way it is held (moved-in arguments, a shared broadcast
// payload, or pup bytes).
#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include <roam/msg/detail/entry_ops.hpp>
#include <roam/msg/detail/message.hpp>
#include <roam/msg/detail/packed_payload.hpp>
#include <roam/msg/names.hpp>
#include <roam/msg/pup.hpp>
#include <roam/msg/future.hpp>
#include <roam/msg/detail/threaded.hpp>
#include <roam/sched/runtime.hpp>
#include <roam/sched/task.hpp>

namespace roam::detail {

template <class M>
struct member_traits {
  static constexpr bool is_member_function = false;
};

#define ROAM_I_MEMBER_TRAITS(QUAL)                                   \
  template <class C, class R, class... A>                            \
  struct member_traits<R (C::*)(A...) QUAL> {                        \
    static constexpr bool is_member_function = true;                 \
    using class_type = C;                                            \
    using result = R;                                                \
    using params = std::tuple<A...>;                                 \
    using args_tuple = std::tuple<std::decay_t<A>...>;               \
  };
ROAM_I_MEMBER_TRAITS()
ROAM_I_MEMBER_TRAITS(const)
ROAM_I_MEMBER_TRAITS(noexcept)
ROAM_I_MEMBER_TRAITS(const noexcept)
#undef ROAM_I_MEMBER_TRAITS

/// A data member that takes messages like an entry method (a roam::mailbox):
/// its type lists the message's parameters as `entry_params` (a std::tuple)
/// and has `deliver(params...)`.
template <class C, class D>
  requires requires { typename D::entry_params; }
struct member_traits<D C::*> {
  static constexpr bool is_member_function = true;  // addressable like an entry method
  using class_type = C;
  using result = void;
  using params = typename D::entry_params;
  using args_tuple = typename D::entry_params;
};

template <class R>
struct unwrap_task {
  using type = R;
};
template <class U>
struct unwrap_task<task<U>> {
  using type = U;
};
/// What `call` on an entry returning R delivers: R, or U for `task<U>`.
template <class R>
using call_result_t = typename unwrap_task<R>::type;

/// Reference count of a fan-out payload: one reference per message pointing at it.
struct shared_payload_base {
  std::atomic<std::uint32_t> refs;
};

/// A payload shared, read-only, by every delivery of a fan-out.
template <class Args>
struct shared_payload : shared_payload_base {
  template <class... A>
  explicit shared_payload(std::uint32_t r, A&&... a) : shared_payload_base{r}, args(std::forward<A>(a)...) {}
  Args args;
};

/// Opt-in list of nodegroup entries that run exclusively: `using exclusive_entries = roam::entry_list<&T::f>;`
template <auto... Members>
struct entry_list {
  template <auto M>
  static constexpr bool contains() {
    return (same_member<M, Members>() || ...);
  }

 private:
  // Member pointers of different types do not compare: only equal types are compared.
  template <auto A, auto B>
  static constexpr bool same_member() {
    if constexpr (std::is_same_v<decltype(A), decltype(B)>) return A == B;
    else return false;
  }
};

/// An entry is exclusive when T lists it, either as `static constexpr auto exclusive_entries() { return
/// roam::entry_list<&T::f>{}; }` (usable anywhere in the class) or as a member alias declared after the entries.
template <class T, auto M>
constexpr bool entry_is_exclusive() {
  if constexpr (requires { T::exclusive_entries(); }) return decltype(T::exclusive_entries())::template contains<M>();
  else if constexpr (requires { typename T::exclusive_entries; }) return T::exclusive_entries::template contains<M>();
  else return false;
}

/// T names a restart entry, as `static constexpr auto restart_entry() { return &T::run; }`
/// (usable anywhere in the class) or `static constexpr auto restart_entry = &T::run;`
/// after run's declaration: tasks it started by a send restart after a packed move.
template <class T>
concept has_restart_entry = requires { T::restart_entry; };
template <class T>
  requires has_restart_entry<T>
constexpr auto restart_entry_of() {
  if constexpr (requires { T::restart_entry(); }) return T::restart_entry();
  else return T::restart_entry;
}
template <auto M>
struct entry_tag {};
template <class T, auto M>
constexpr bool entry_is_restart() {
  if constexpr (has_restart_entry<T>) {
    // Template-argument identity, not ==: GCC will not compare pointers to
    // two different member functions in a constant expression at -O2.
    return std::is_same_v<entry_tag<M>, entry_tag<restart_entry_of<T>()>>;
  } else {
    return false;
  }
}

template <class T, auto M>
struct entry_impl {
  using traits = member_traits<decltype(M)>;
  using C = typename traits::class_type;
  using R = typename traits::result;
  using V = call_result_t<R>;
  using args_tuple = typename traits::args_tuple;
  using shared = shared_payload<args_tuple>;
  struct call_payload {
    args_tuple args;
    promise<V> reply;
  };
  static constexpr bool threaded = entry_is_threaded<T, M>();
  static_assert(!(threaded && is_task_v<R>),
                "roam: a threaded entry method cannot also be a coroutine (roam::task<>): a task already suspends "
                "without a thread; remove it from threaded_entries() or make it return a plain value");
  static_assert(!(threaded && entry_is_exclusive<T, M>()),
                "roam: a nodegroup entry cannot be both exclusive and threaded: its lock would be released the "
                "moment the thread first blocks");

  template <class Tuple>
  static decltype(auto) apply(T* self, Tuple&& args) {
    if constexpr (std::is_member_object_pointer_v<decltype(M)>) {  // a mailbox
      (self->*M).deliver_tuple(std::forward<Tuple>(args));
    } else {
      return std::apply([self](auto&&... a) -> decltype(auto) { return (self->*M)(std::forward<decltype(a)>(a)...); },
                        std::forward<Tuple>(args));
    }
  }

  template <class Tuple>
  static void run_send(T* self, Tuple&& args, const message& m) {
    if constexpr (threaded) {
      // The arguments move into the thread (a broadcast's shared ones are copied).
      start_threaded_entry(
          self, context_of(m),
          [self, a = args_tuple(std::forward<Tuple>(args))]() mutable { apply(self, std::move(a)); },
          [](std::exception_ptr e, const delivery_context& ctx) { report_task_failure(e, describe_delivery(ctx)); });
    } else if constexpr (is_task_v<R>) {
      auto t = apply(self, std::forward<Tuple>(args));
      if constexpr (entry_is_restart<T, M>()) tls_spawn_restartable = true;
      spawn(std::move(t), [ctx = context_of(m)](std::exception_ptr e, auto*...) {
        if (e) report_task_failure(e, describe_delivery(ctx));
      });
    } else {
      apply(self, std::forward<Tuple>(args));
    }
  }

  // An exception is handed to the promise only after this thread's last
  // reference to it is gone (moved, never copied): the caller's PE may free it.
  static void run_call(T* self, args_tuple&& args, const promise<V>& reply, const message& m) {
    if constexpr (threaded) {
      start_threaded_entry(
          self, context_of(m),
          [self, a = std::move(args), reply]() mutable {
            if constexpr (std::is_void_v<R>) {
              apply(self, std::move(a));
              reply.set_value();
            } else {
              reply.set_value(apply(self, std::move(a)));
            }
          },
          [reply](std::exception_ptr e, const delivery_context&) { reply.set_exception(std::move(e)); });
      return;
    }
    std::exception_ptr error;
    try {
      if constexpr (is_task_v<R>) {
        spawn(apply(self, std::move(args)), [reply](std::exception_ptr e, auto*... v) {
          if (e) reply.set_exception(std::move(e));
          else if constexpr (std::is_void_v<V>) reply.set_value();
          else (reply.set_value(std::move(*v)), ...);
        });
      } else if constexpr (std::is_void_v<R>) {
        apply(self, std::move(args));
        reply.set_value();
      } else {
        reply.set_value(apply(self, std::move(args)));
      }
    } catch (...) {
      error = std::current_exception();
    }
    if (error) reply.set_exception(std::move(error));
  }

  static void invoke(message* m, void* obj) {
    T* self = static_cast<T*>(obj);
    switch (m->payload) {
      case payload_kind::inline_args:
        if (m->is_call) {
          auto& p = *static_cast<call_payload*>(m->payload_ptr());
          run_call(self, std::move(p.args), p.reply, *m);
        } else {
          run_send(self, std::move(*static_cast<args_tuple*>(m->payload_ptr())), *m);
        }
        return;
      case payload_kind::shared_args: {
        const auto* sp = *static_cast<shared* const*>(m->payload_ptr());
        if constexpr (std::is_copy_constructible_v<args_tuple>) {
          run_send(self, sp->args, *m);  // const lvalues: each member gets its own copy of by-value parameters
        }
        return;
      }
      case payload_kind::packed: {
        args_tuple args{};
        if (m->is_call) {
          promise<V> reply;
          unpack_packed(m, args, reply);
          run_call(self, std::move(args), reply, *m);
        } else {
          unpack_packed(m, args);
          run_send(self, std::move(args), *m);
        }
        return;
      }
    }
  }

  static void destroy(message* m) noexcept {
    switch (m->payload) {
      case payload_kind::inline_args:
        if (m->is_call) std::destroy_at(static_cast<call_payload*>(m->payload_ptr()));
        else std::destroy_at(static_cast<args_tuple*>(m->payload_ptr()));
        return;
      case payload_kind::shared_args: {
        shared* sp = *static_cast<shared**>(m->payload_ptr());
        if (sp->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
          std::destroy_at(sp);
          free_item(sp);
        }
        return;
      }
      case payload_kind::packed:
        release_packed_segments(m);
        return;
    }
  }

  template <class P>
  static void pup_payload(P& p, const message* m) {
    switch (m->payload) {
      case payload_kind::inline_args:
        if (m->is_call) {
          const auto& cp = *static_cast<const call_payload*>(m->payload_ptr());
          p | cp.args | cp.reply;
        } else {
          p | *static_cast<const args_tuple*>(m->payload_ptr());
        }
        return;
      case payload_kind::shared_args:
        p | (*static_cast<shared* const*>(m->payload_ptr()))->args;
        return;
      case payload_kind::packed:
        pup_packed_payload(p, m);
        return;
    }
  }

  // Class, member name and member type: some compilers print a member function
  // template's name without its template arguments; its type tells them apart.
  static constexpr std::uint64_t id = stable_hash(
      type_name<decltype(M)>(), stable_hash(member_name<M>(), stable_hash("/", stable_hash(type_name<T>()))));

  // Mailboxes (and any message-taking member that can say what it waits for).
  static constexpr bool describes_waiting = [] {
    if constexpr (std::is_member_object_pointer_v<decltype(M)>)
      return requires(const T& t, std::string& out) { (t.*M).describe(std::string_view{}, out); };
    else
      return false;
  }();
  static void describe_waiting(const void* obj, std::string& out) {
    if constexpr (describes_waiting) (static_cast<const T*>(obj)->*M).describe(member_name<M>(), out);
  }
  static constexpr void (*describe_fn)(const void*, std::string&) = describes_waiting ? &describe_waiting : nullptr;

  static constexpr entry_ops ops{id,      member_name<M>(), type_name<T>(), entry_is_exclusive<T, M>(),
                                 &invoke, &destroy,         &packed_size_via<entry_impl>, &pack_via<entry_impl>,
                                 describe_fn};
  static inline const bool registered = register_entry(&ops);
};

template <class P>
struct param_ok : std::bool_constant<!(std::is_lvalue_reference_v<P> &&
                                       !std::is_const_v<std::remove_reference_t<P>>)> {};

/// Compile-time checks of an entry used on objects of type T with arguments A.
template <class T, auto M, class... A>
constexpr bool check_entry() {
  using traits = member_traits<decltype(M)>;
  static_assert(traits::is_member_function,
                "roam: an entry method is named by a pointer to a public member function, e.g. send<&T::method>(...)");
  if constexpr (traits::is_member_function) {
    using C = typename traits::class_type;
    static_assert(std::is_base_of_v<C, T>, "roam: this entry method is not a member of the proxy's class");
    using params = typename traits::params;
    static_assert([]<class... P>(std::type_identity<std::tuple<P...>>) {
      return (param_ok<P>::value && ...);
    }(std::type_identity<params>{}),
                  "roam: entry method parameters must be values or const references (a message cannot bind a "
                  "non-const reference)");
    static_assert([]<class... P>(std::type_identity<std::tuple<P...>>) {
      return (serializable<std::decay_t<P>> && ...);
    }(std::type_identity<params>{}),
                  "roam: entry method parameter type is not serializable; give it a member `void "
                  "pup(roam::pup_er&)`, a free `pup(roam::pup_er&, T&)`, or declare "
                  "`roam::bitwise_serializable<T> = true`");
    static_assert(std::tuple_size_v<params> == sizeof...(A),
                  "roam: wrong number of arguments for this entry method");
    if constexpr (std::tuple_size_v<params> == sizeof...(A)) {
      static_assert(std::is_constructible_v<typename traits::args_tuple, A&&...>,
                    "roam: arguments cannot be converted to the entry method's parameter types");
    }
  }
  return true;
}

}  // namespace roam::detail
