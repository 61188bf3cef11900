#pragma once
/// Asynchronous reductions. Every member of an array or group calls
/// `contribute(value, reducer, callback)`; contributions are combined on each
/// PE, then up a spanning tree of the PEs that host members, as they arrive;
/// the root delivers the result through the callback. Each member's k-th
/// contribution belongs to reduction k, so many reductions may be in flight at
/// once and results come out in order. PEs without members take no part.
#include <cstdint>
#include <memory>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include <roam/coll/callback.hpp>
#include <roam/coll/reducers.hpp>
#include <roam/msg/names.hpp>
#include <roam/obj/detail/objects.hpp>
#include <roam/sched/detail/heap_route.hpp>

namespace roam::detail {

/// A combined value on its way up the tree, with the callback that receives the result.
struct partial_base {
  explicit partial_base(const std::type_info& t) : type(&t) {}
  virtual ~partial_base() = default;
  /// Folds `other` in (same reducer and type, checked by the caller).
  virtual void merge(partial_base& other) = 0;
  /// Root only: delivers the result.
  virtual void finish() = 0;
  /// The stable id of this partial's kind (reducer and value type), for the wire.
  virtual std::uint64_t kind_id() const noexcept = 0;
  /// Packs or unpacks the value and the callback.
  virtual void pup_contents(pup_er& p) = 0;
  const std::type_info* type;  ///< reducer and value type; contributions to one reduction must agree
};

/// Makes an empty partial of a registered kind (unpacking a partial from a message).
using partial_factory = std::unique_ptr<partial_base> (*)();
bool register_partial_kind(std::uint64_t id, partial_factory make, std::string_view name);
partial_factory find_partial_kind(std::uint64_t id) noexcept;

/// A partial in a message: moved as a pointer within a process, packed as
/// (kind id, value, callback) on the wire; kind 0 is "no partial" (a part of
/// an array reduction where nobody contributed).
struct partial_handle {
  std::unique_ptr<partial_base> p;
  void pup(pup_er& er) {
    std::uint64_t kind = p ? p->kind_id() : 0;
    er | kind;
    if (kind == 0) {
      if (er.is_unpacking()) p.reset();
      return;
    }
    if (er.is_unpacking()) {
      partial_factory make = find_partial_kind(kind);
      if (!make) throw pup_error("reduction partial of unknown kind " + std::to_string(kind));
      p = make();
    }
    p->pup_contents(er);
  }
};

/// Reducers are identified by a stable hash of their type's name (a custom
/// reducer's name includes its function's), registered at start-up with a
/// collision check, so that partials can name their reducer across processes.
bool register_reducer(std::uint64_t id, std::string_view name);
template <class R>
struct reducer_identity {
  static constexpr std::uint64_t id = stable_hash(type_name<R>(), stable_hash("reducer/"));
  static inline const bool registered = register_reducer(id, type_name<R>());
};

template <class R, class T>
struct typed_partial final : partial_base {
  typed_partial() : partial_base(typeid(typed_partial)) { (void)registered; }
  typename R::template partial_t<T> value;
  callback<typename R::template result_t<T>> cb;
  void merge(partial_base& other) override {
    R::template combine<T>(value, std::move(static_cast<typed_partial&>(other).value));
  }
  void finish() override { cb.send(R::template finish<T>(std::move(value))); }

  static constexpr std::uint64_t id =
      stable_hash(type_name<T>(), stable_hash("/", stable_hash(type_name<R>(), stable_hash("partial/"))));
  std::uint64_t kind_id() const noexcept override { return id; }
  void pup_contents(pup_er& p) override {
    if constexpr (serializable<typename R::template partial_t<T>>) {
      p | value;
      p | cb;
    } else {
      throw pup_error("reduction value type " + std::string(type_name<T>()) +
                      " is not serializable, so this reduction cannot leave its process");
    }
  }
  // A function, not a lambda: its address is one across translation units (the registry compares it).
  static std::unique_ptr<partial_base> make_partial() { return std::make_unique<typed_partial>(); }
  static inline const bool registered =
      reducer_identity<R>::registered &&
      register_partial_kind(id, &make_partial, type_name<typed_partial>());
};

/// A contribution not yet boxed: folded straight into the PE's partial when
/// one exists (no allocation per contribution), boxed only for the first.
struct pending_contribution {
  const std::type_info* type;                     ///< the typed_partial it would become
  void (*absorb)(partial_base& into, void* self);  ///< folds into an existing partial of `type`
  std::unique_ptr<partial_base> (*box)(void* self);
  void* self;
};

template <class R, class T>
struct contribution_of {
  typename R::template partial_t<T> value;
  const callback<typename R::template result_t<T>>* cb;

  pending_contribution erase() {
    return {&typeid(typed_partial<R, T>),
            [](partial_base& into, void* self) {
              R::template combine<T>(static_cast<typed_partial<R, T>&>(into).value,
                                     std::move(static_cast<contribution_of*>(self)->value));
            },
            [](void* self) -> std::unique_ptr<partial_base> {
              auto* c = static_cast<contribution_of*>(self);
              auto p = std::make_unique<typed_partial<R, T>>();
              p->value = std::move(c->value);
              p->cb = *c->cb;
              return p;
            },
            this};
  }
};

struct barrier_partial final : partial_base {
  barrier_partial() : partial_base(typeid(barrier_partial)) { (void)registered; }
  callback<void> cb;
  void merge(partial_base&) override {}
  void finish() override { cb.send(); }
  static constexpr std::uint64_t id = stable_hash("partial/barrier");
  std::uint64_t kind_id() const noexcept override { return id; }
  void pup_contents(pup_er& p) override { p | cb; }
  static std::unique_ptr<partial_base> make_partial() { return std::make_unique<barrier_partial>(); }
  static inline const bool registered =
      register_partial_kind(id, &make_partial, "partial/barrier");
};

/// Records `who`'s next contribution (calling PE) and moves reductions along.
void submit_contribution(const contributor& who, std::unique_ptr<partial_base> p);
/// The same without boxing the value unless this PE has no partial for that reduction yet.
void submit_contribution(const contributor& who, const pending_contribution& c);
/// The same for an array element (array_reductions.cpp: arrays count contributions).
void submit_array_contribution(const contributor& who, std::unique_ptr<partial_base> p);
void submit_array_contribution(const contributor& who, const pending_contribution& c);
/// The same for a reduction over a section `who` belongs to.
void submit_section_contribution(const contributor& who, const section_desc* section, std::unique_ptr<partial_base> p);

/// A contributed value as the reduction keeps it. From a migratable thread
/// whose allocations go to its slot heap (the caller paused that), a value
/// passed by rvalue is copied rather than moved: moved, a container would
/// keep the thread's memory in the PE's reduction (heap_route.hpp).
template <class T, class V>
T kept_value(V&& value, const heap_route_pause& pause) {
  if constexpr (std::is_rvalue_reference_v<V&&> && std::is_copy_constructible_v<T>) {
    if (pause.paused_a_thread()) return T(static_cast<const T&>(value));
  }
  return T(std::forward<V>(value));
}

template <class V, class R, class Result>
std::unique_ptr<partial_base> make_partial(const contributor& who, V&& value, const callback<Result>& cb) {
  using T = std::decay_t<V>;
  static_assert(std::is_same_v<Result, typename R::template result_t<T>>,
                "roam: the callback's type must be the reduction's result type for this value type "
                "(e.g. callback<double> for sum over double, callback<std::vector<T>> for concat)");
  heap_route_pause pause;
  auto p = std::make_unique<typed_partial<R, T>>();
  p->value = R::template init<T>(kept_value<T>(std::forward<V>(value), pause), who.key);
  p->cb = cb;
  return p;
}

template <class V, class R, class Result>
void collective_contribute(const contributor& who, V&& value, const R&, const callback<Result>& cb) {
  using T = std::decay_t<V>;
  static_assert(std::is_same_v<Result, typename R::template result_t<T>>,
                "roam: the callback's type must be the reduction's result type for this value type "
                "(e.g. callback<double> for sum over double, callback<std::vector<T>> for concat)");
  heap_route_pause pause;
  contribution_of<R, T> c{R::template init<T>(kept_value<T>(std::forward<V>(value), pause), who.key), &cb};
  submit_contribution(who, c.erase());
}

/// A section reduction: `contribute(section, value, reducer, callback)`.
template <class S, class V, class R, class Result>
  requires requires(const S& s) { s.descriptor()->keys_by_rank; }
void collective_contribute(const contributor& who, const S& section, V&& value, const R&, const callback<Result>& cb) {
  submit_section_contribution(who, section.descriptor(), make_partial<V, R>(who, std::forward<V>(value), cb));
}

/// A section barrier: `contribute(section, callback<void>)`.
template <class S>
  requires requires(const S& s) { s.descriptor()->keys_by_rank; }
void collective_contribute(const contributor& who, const S& section, const callback<void>& cb) {
  heap_route_pause pause;
  auto p = std::make_unique<barrier_partial>();
  p->cb = cb;
  submit_section_contribution(who, section.descriptor(), std::move(p));
}

/// A barrier: `contribute(callback<void>)`.
inline void collective_contribute(const contributor& who, const callback<void>& cb) {
  heap_route_pause pause;
  auto p = std::make_unique<barrier_partial>();
  p->cb = cb;
  submit_contribution(who, std::move(p));
}

}  // namespace roam::detail
