#pragma once
/// Chare arrays: dense 1-D to 6-D collections of elements spread over PEs.
#include <cstdint>
#include <memory>
#include <tuple>
#include <utility>

#include <roam/obj/detail/entry_sender.hpp>
#include <roam/obj/detail/objects.hpp>
#include <roam/obj/index.hpp>
#include <roam/obj/map.hpp>

namespace roam {

template <class T>
class array_proxy;
template <class T>
class element_proxy;

/// Base class of an array element type T (CRTP) with index type I:
/// `struct cell : roam::element<cell, roam::index<3>> {...}`. Construct only through create_array.
template <class T, class I = index<1>>
class element {
 public:
  using index_type = I;
  /// This element's index.
  const I& this_index() const noexcept { return index_; }
  /// A proxy to the whole array / to this element.
  array_proxy<T> this_array() const noexcept { return array_proxy<T>(desc_); }
  element_proxy<T> this_proxy() const noexcept { return element_proxy<T>(desc_, index_); }

  /// Contributes to this array's next reduction: `contribute(value, roam::sum, callback)`,
  /// or `contribute(callback)` for a barrier. Every element contributes to every
  /// reduction, in the same order; results come out in that order. (Defined by
  /// the collectives layer, <roam/coll/reduction.hpp>.)
  template <class... A>
  void contribute(A&&... a) {
    detail::contributor who{desc_, detail::linearize(detail::to_storage(index_), desc_->shape, desc_->dims),
                            &reductions_};
    collective_contribute(who, std::forward<A>(a)...);
  }

 protected:
  element() {
    const auto& c = detail::current_construction("roam::element");
    desc_ = c.desc;
    index_ = detail::from_storage<I::dims>(c.index);
  }

 private:
  const detail::collection_desc* desc_ = nullptr;
  I index_{};
  std::uint32_t reductions_ = 0;
};

/// A proxy to one element of an array; `send`/`call` through it send a message.
/// An index outside the array's extents is a fatal error.
template <class T>
class element_proxy : public detail::entry_sender<element_proxy<T>, T> {
 public:
  using index_type = typename T::index_type;
  element_proxy() noexcept = default;
  element_proxy(const detail::collection_desc* d, const index_type& i) noexcept : desc_(d), index_(i) {}

  const index_type& index() const noexcept { return index_; }
  template <class P>
  void pup(P& p) {
    detail::pup_collection(p, desc_);
    p | index_;
  }

 private:
  friend class detail::entry_sender<element_proxy<T>, T>;
  template <auto M>
  bool resolve(std::uint32_t& pe) const {
    auto idx = detail::to_storage(index_);
    if (!desc_ || !detail::inside(idx, desc_->shape, desc_->dims)) {
      detail::report_bad_send(detail::describe_target(detail::target_kind::element, desc_, idx, index_type::dims,
                                                      member_name<M>()) +
                              ": index outside the array's extents");
      return false;
    }
    pe = desc_->map(idx, desc_->shape, desc_->dims, detail::tls_pe->runtime().num_pes);
    return true;
  }
  void address(detail::message* m) const noexcept {
    m->target = detail::target_kind::element;
    m->collection = desc_->id;
    m->dims = index_type::dims;
    m->index = detail::to_storage(index_);
  }
  void dispatch(detail::message* m, std::uint32_t pe) const { detail::send_message(m, pe); }

  const detail::collection_desc* desc_ = nullptr;
  index_type index_{};
};

/// A proxy to a whole array: index it for one element, or `send` to broadcast to all.
template <class T>
class array_proxy : public detail::fan_out_sender<array_proxy<T>, T> {
 public:
  using index_type = typename T::index_type;
  array_proxy() noexcept = default;
  explicit array_proxy(const detail::collection_desc* d) noexcept : desc_(d) {}

  element_proxy<T> operator[](const index_type& i) const noexcept { return element_proxy<T>(desc_, i); }
  element_proxy<T> operator[](std::int32_t i) const noexcept
    requires(index_type::dims == 1)
  {
    return element_proxy<T>(desc_, index_type{i});
  }

  /// The extents and the number of elements.
  index_type shape() const noexcept { return detail::from_storage<index_type::dims>(desc_->shape); }
  std::uint64_t size() const noexcept { return desc_->volume; }
  std::uint32_t id() const noexcept { return desc_ ? desc_->id : 0; }
  bool valid() const noexcept { return desc_ != nullptr; }
  const detail::collection_desc* descriptor() const noexcept { return desc_; }

  template <class P>
  void pup(P& p) {
    detail::pup_collection(p, desc_);
  }

 private:
  friend class detail::fan_out_sender<array_proxy<T>, T>;
  bool fan_out_root(std::uint32_t& pe) const noexcept {
    pe = detail::broadcast_root;
    return true;
  }
  void address(detail::message* m) const noexcept {
    m->target = detail::target_kind::array_all;
    m->collection = desc_->id;
    m->dims = index_type::dims;
  }

  const detail::collection_desc* desc_ = nullptr;
};

/// Options of a dense array: extents and map.
template <int N>
struct array_options {
  array_options(index<N> s, array_map m) : shape(s), map(std::move(m)) {}
  index<N> shape;
  array_map map;
};

namespace detail {
template <class T, class Args>
void* make_element(const void* args, const construction_context&) {
  const Args& a = *static_cast<const Args*>(args);
  return std::apply([](const auto&... x) { return static_cast<void*>(new T(x...)); }, a);
}
/// Runs on each other PE: builds its elements of array `collection`.
template <class T, class... Args>
void construct_elements(collection_wire collection, Args... args) {
  std::tuple<Args...> a(std::move(args)...);
  construct_local_members(ensure_collection(collection), &make_element<T, std::tuple<Args...>>, &a);
}
}  // namespace detail

/// Creates a dense array with `options.shape` extents; every element is built
/// with copies of `args` on the PE the map gives it. Usable at once.
template <class T, class... A>
array_proxy<T> create_array(const array_options<T::index_type::dims>& options, A&&... a) {
  using I = typename T::index_type;
  static_assert(std::is_base_of_v<element<T, I>, T>, "roam: create_array<T> needs T to derive from roam::element<T, I>");
  static_assert(std::is_constructible_v<T, const std::decay_t<A>&...>, "roam: T has no constructor taking these arguments");
  static_assert((serializable<std::decay_t<A>> && ...), "roam: constructor arguments travel in a message, so they must be serializable; give the type a "
                "member `void pup(roam::pup_er&)`, a free `pup(roam::pup_er&, T&)`, or declare "
                "`roam::bitwise_serializable<T> = true`");
  using args_t = std::tuple<std::decay_t<A>...>;
  (void)detail::class_registered<T>;
  detail::collection_desc* d = detail::new_collection(detail::collection_kind::array, &detail::class_ops_for<T>);
  d->dims = I::dims;
  d->shape = detail::to_storage(options.shape);
  d->volume = options.shape.volume();
  d->map = options.map.fn;
  d->map_name = options.map.name;
  const args_t args(std::forward<A>(a)...);
  detail::construct_local_members(d, &detail::make_element<T, args_t>, &args);
  std::uint32_t me = detail::tls_pe->id();
  const detail::collection_wire wire = detail::to_wire(d);
  for (std::uint32_t pe = 0; pe < detail::tls_pe->runtime().num_pes; ++pe) {
    if (pe == me) continue;
    std::apply([&](const auto&... x) { detail::post_control<&detail::construct_elements<T, std::decay_t<A>...>, T>(pe, 0, wire, x...); },
               args);
  }
  return array_proxy<T>(d);
}

/// Creates a dense array with the default block map.
template <class T, class... A>
array_proxy<T> create_array(const typename T::index_type& shape, A&&... a) {
  return create_array<T>(array_options<T::index_type::dims>{shape, block_map()}, std::forward<A>(a)...);
}

}  // namespace roam
