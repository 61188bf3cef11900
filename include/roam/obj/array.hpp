#pragma once
/// Chare arrays: dense 1-D to 6-D collections of elements spread over PEs,
/// sparse arrays populated at run time (with dense or user-defined indices),
/// and elements that migrate between PEs while every message still finds them.
#include <cstdint>
#include <memory>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include <roam/machine/ids.hpp>
#include <roam/obj/detail/entry_sender.hpp>
#include <roam/obj/detail/migratable.hpp>
#include <roam/obj/detail/objects.hpp>
#include <roam/obj/index.hpp>
#include <roam/obj/map.hpp>

namespace roam {

template <class T>
class array_proxy;
template <class T>
class element_proxy;

/// Base class of an array element type T (CRTP) with index type I:
/// `struct cell : roam::element<cell, roam::index<3>> {...}`. Construct only
/// through create_array / insert.
///
/// To migrate, T needs a pup function (its state) and a constructor taking
/// roam::migrating (or a default one). Optional hooks: `void before_migration()`
/// runs on the old PE before it leaves, `void after_migration()` on the new PE
/// once it is there.
///
/// Between PEs of one process an element moves as itself: the object is handed
/// to the new PE, not packed and rebuilt, so moving costs the same for 1 B and
/// 1 GiB of state. pup runs when it leaves the process (and under +serialize).
/// Anything tied to the old PE (a pointer to a group's local branch, a
/// per-PE cache) is re-resolved in after_migration, which runs either way. A
/// type that wants pup on every move declares
/// `static constexpr bool pup_on_migration = true;`.
template <class T, class I = index<1>>
class element : public detail::element_base {
  static_assert(array_index<I>, "roam::element<T, I>: I must be roam::index<N> or a user index (trivially copyable, "
                                "no padding, equality-comparable, default constructible, at most 24 bytes)");

 public:
  using index_type = I;
  /// This element's index.
  const I& this_index() const noexcept { return index_; }
  /// A proxy to the whole array / to this element.
  array_proxy<T> this_array() const noexcept { return array_proxy<T>(descriptor()); }
  element_proxy<T> this_proxy() const noexcept { return element_proxy<T>(descriptor(), index_); }
  /// Moves this element to PE `pe` after the running entry method returns.
  void migrate_to(pe_id pe) noexcept { element_base::migrate_to(pe.value()); }
  using element_base::destroy_self;
  /// Load balancing at a sync point (T must have `void resume_from_sync()`):
  /// this element reached a safe point. Once every such element on every PE
  /// has, the load balancer runs, elements move, and each receives
  /// resume_from_sync() exactly once, on the PE where it then is
  /// (roam/lb/lb.hpp). Call once per step, then wait for resume_from_sync.
  void at_sync() {
    static_assert(requires(T& t) { t.resume_from_sync(); }, "roam: at_sync() needs T::resume_from_sync()");
    detail::at_sync_of(static_cast<T*>(this), roam::type_name<T>());
  }

  /// Contributes to this array's next reduction: `contribute(value, roam::sum, callback)`,
  /// or `contribute(callback)` for a barrier. Every element contributes to every
  /// reduction, in the same order; results come out in that order. An element
  /// inserted later starts with the reduction its PE is collecting; one
  /// destroyed stops counting from its next. (Defined by the collectives layer,
  /// <roam/coll/reduction.hpp>.)
  template <class... A>
  void contribute(A&&... a) {
    std::uint64_t key = 0;
    if constexpr (is_dense_index_v<I>) key = detail::linearize(stored_index(), descriptor()->shape, I::dims);
    detail::contributor who{descriptor(), key, detail::element_access::reduction_counter(*this)};
    who.element = this;
    collective_contribute(who, std::forward<A>(a)...);
  }

 protected:
  element() {
    const auto& c = detail::current_construction("roam::element");
    detail::element_access::bind(*this, c.desc, c.index);
    index_ = detail::index_from_storage<I>(c.index);
  }

 private:
  I index_{};
};

namespace detail {
template <class T>
struct element_ops_holder {
  using I = typename T::index_type;
  using moves = migratable_ops<T>;
  static void* make_default() {
    if constexpr (std::is_default_constructible_v<T>) return new T();
    else return nullptr;
  }
  static inline const element_ops ops{
      stable_hash(type_name<T>()),
      [](void* obj) noexcept -> element_base* { return static_cast<element_base*>(static_cast<T*>(obj)); },
      &format_index<I>,
      std::is_default_constructible_v<T> ? &make_default : nullptr,
      &moves::table,
      type_name<T>()};
  static inline const bool registered = register_element_ops(&ops);
};
}  // namespace detail

/// A proxy to one element of an array; `send`/`call` through it send a message.
/// An index outside a dense array's extents is a fatal error.
template <class T>
class element_proxy : public detail::entry_sender<element_proxy<T>, T> {
 public:
  using index_type = typename T::index_type;
  element_proxy() noexcept = default;
  element_proxy(const detail::collection_desc* d, const index_type& i) noexcept : desc_(d), index_(i) {}

  const index_type& index() const noexcept { return index_; }
  /// The element's home PE (where its location is always known).
  pe_id home_pe() const noexcept { return pe_id{detail::home_of(desc_, detail::to_storage(index_))}; }
  /// The element itself if it lives on the calling PE now, else nullptr
  /// (Charm++'s ckLocal). Valid until the calling entry returns: the element
  /// may migrate or be destroyed afterwards. Calling a member through it runs
  /// inside the caller's entry (its time is the caller's load).
  T* local() const noexcept {
    return desc_ ? static_cast<T*>(detail::local_element(desc_, detail::to_storage(index_))) : nullptr;
  }
  /// Where a message sent from the calling PE would go first: this PE if the
  /// element is here, else where it was last known to be, else its home.
  /// A hint for libraries that route or batch messages (a stale answer costs
  /// one forwarding hop, never a lost message).
  pe_id last_known_pe() const noexcept { return pe_id{detail::locate_element(desc_, detail::to_storage(index_))}; }
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
    if (!desc_ || (!desc_->user_index && !desc_->sparse && !detail::inside(idx, desc_->shape, desc_->dims))) {
      detail::report_bad_send(detail::describe_target(detail::target_kind::element, desc_, idx, desc_ ? desc_->dims : 0,
                                                      member_name<M>()) +
                              ": index outside the array's extents");
      return false;
    }
    pe = detail::locate_element(desc_, idx);
    return true;
  }
  void address(detail::message* m) const noexcept {
    m->target = detail::target_kind::element;
    m->collection = desc_->id;
    m->dims = detail::index_dims_v<index_type>;
    m->index = detail::to_storage(index_);
  }
  void dispatch(detail::message* m, std::uint32_t pe) const { detail::send_message(m, pe); }

  const detail::collection_desc* desc_ = nullptr;
  index_type index_{};
};

namespace detail {
/// Runs on each other PE: builds its elements of array `collection`.
template <class T, class... Args>
void construct_elements(collection_wire collection, Args... args) {
  std::tuple<Args...> a(std::move(args)...);
  construct_local_members(ensure_collection(collection), &make_from_args<T, std::tuple<Args...>>, &a);
}
/// Runs on each other PE: sets up its part of sparse array `collection` (no elements yet).
template <class T>
void construct_sparse(collection_wire collection) {
  construct_local_members(ensure_collection(collection), nullptr, nullptr);
}
/// Insertion, step 2: on the chosen PE.
template <class T, class... Args>
void insert_here(collection_wire collection, index_storage idx, std::uint32_t epoch, element_start start, Args... args) {
  std::tuple<Args...> a(std::move(args)...);
  install_inserted(ensure_collection(collection), idx, epoch, start, &make_from_args<T, std::tuple<Args...>>, &a);
}
/// Insertion, step 1: on the element's home, which records where it will live
/// before any message can ask (messages that reach the home afterwards follow it).
template <class T, class... Args>
void insert_at_home(collection_wire collection, index_storage idx, std::uint32_t pe, element_start start, Args... args) {
  const collection_desc* d = ensure_collection(collection);
  if (start.count_birth_on != no_pe) {
    // Step 0, on the reductions' root: the issuing PE had passed the new
    // element's first reduction up, so the root counts the birth before the
    // element can exist (and contribute), then the insertion goes on.
    count_birth_at_root(d, start.reductions);
    start.count_birth_on = no_pe;
    post_control<&insert_at_home<T, Args...>, T>(home_of(d, idx), 0, collection, idx, pe, start, std::move(args)...);
    return;
  }
  if (pe == no_pe) pe = tls_pe->id();
  std::uint32_t epoch = register_insertion(d, idx, pe);
  if (epoch == ~0u) {
    post_control<&insert_acked>(start.issuer, 0, collection);
    return;
  }
  post_control<&insert_here<T, Args...>, T>(pe, 0, collection, idx, epoch, start, std::move(args)...);
}

template <class T, class... A>
void check_element_args() {
  static_assert(std::is_constructible_v<T, const std::decay_t<A>&...>, "roam: T has no constructor taking these arguments");
  static_assert((serializable<std::decay_t<A>> && ...),
                "roam: constructor arguments travel in a message, so they must be serializable; give the type a "
                "member `void pup(roam::pup_er&)`, a free `pup(roam::pup_er&, T&)`, or declare "
                "`roam::bitwise_serializable<T> = true`");
}
}  // namespace detail

/// A proxy to a whole array: index it for one element, `send` to broadcast to
/// all, `insert` elements into it.
template <class T>
class array_proxy : public detail::fan_out_sender<array_proxy<T>, T> {
 public:
  // T::index_type is named only inside templates of their own (U = T), so
  // that an array proxy may be a member of a type declared before T is
  // complete (two arrays whose elements hold proxies to each other).
  array_proxy() noexcept = default;
  explicit array_proxy(const detail::collection_desc* d) noexcept : desc_(d) {}

  template <class U = T>
  element_proxy<T> operator[](const typename U::index_type& i) const noexcept {
    return element_proxy<T>(desc_, i);
  }
  template <class U = T>
    requires(is_dense_index_v<typename U::index_type> && U::index_type::dims == 1)
  element_proxy<T> operator[](std::int32_t i) const noexcept {
    return element_proxy<T>(desc_, typename U::index_type{i});
  }

  /// The extents (dense arrays) and the initial number of elements (0 for sparse arrays).
  template <class U = T>
  typename U::index_type shape() const noexcept {
    return detail::index_from_storage<typename U::index_type>(desc_->shape);
  }
  std::uint64_t size() const noexcept { return desc_->volume; }
  std::uint32_t id() const noexcept { return desc_ ? desc_->id : 0; }
  bool valid() const noexcept { return desc_ != nullptr; }
  const detail::collection_desc* descriptor() const noexcept { return desc_; }

  /// Inserts an element at `i`, built with copies of `args`, on its home PE.
  /// Messages sent to it after this call (from any PE) reach it. Inserting an
  /// index that exists is a fatal error. Called from an element of this
  /// array, the new one joins the reductions and broadcasts that element has
  /// not reached yet (a block splitting into children hands its place over);
  /// otherwise those its PE has not reached yet.
  template <class U = T, class... A>
  void insert(const typename U::index_type& i, A&&... args) const {
    insert_at<U>(detail::no_pe, i, std::forward<A>(args)...);
  }
  /// Inserts an element at `i` on PE `pe`.
  template <class U = T, class... A>
  void insert_on(pe_id pe, const typename U::index_type& i, A&&... args) const {
    insert_at<U>(pe.value(), i, std::forward<A>(args)...);
  }
  /// Ends a round of insertions: broadcasts to the array sent after this call
  /// (from any PE) wait until every insertion this PE issued before it is
  /// built, so they reach those elements. Later inserts remain allowed.
  /// (A message to an element of a sparse array that does not exist waits at
  /// its home for the element to be inserted; one still waiting when the
  /// program ends is reported then. With demand creation it creates the element.)
  void done_inserting() const { detail::mark_done_inserting(desc_); }

  template <class P>
  void pup(P& p) {
    detail::pup_collection(p, desc_);
  }

 private:
  friend class detail::fan_out_sender<array_proxy<T>, T>;
  template <class U = T, class... A>
  void insert_at(std::uint32_t pe, const typename U::index_type& i, A&&... args) const {
    detail::check_element_args<T, A...>();
    auto idx = detail::to_storage(i);
    std::uint32_t pes = detail::this_pe("roam insert").runtime().num_pes;
    if (pe != detail::no_pe && pe >= pes) {
      detail::report_bad_send(detail::describe_target(detail::target_kind::element, desc_, idx, desc_->dims, "insert") +
                              ": pe " + std::to_string(pe) + " outside [0," + std::to_string(pes) + ")");
      return;
    }
    if (!desc_->user_index && !desc_->sparse && !detail::inside(idx, desc_->shape, desc_->dims)) {
      detail::report_bad_send(detail::describe_target(detail::target_kind::element, desc_, idx, desc_->dims, "insert") +
                              ": index outside the array's extents");
      return;
    }
    desc_->dynamic.store(true, std::memory_order_relaxed);
    detail::element_base* parent = detail::tls_running_element;
    detail::element_start start = detail::note_insert_issued(desc_, parent && parent->descriptor() == desc_ ? parent : nullptr);
    std::uint32_t first_stop = start.count_birth_on != detail::no_pe ? start.count_birth_on : detail::home_of(desc_, idx);
    detail::post_control<&detail::insert_at_home<T, std::decay_t<A>...>, T>(
        first_stop, 0, detail::to_wire(desc_), idx, pe, start, std::forward<A>(args)...);
  }
  bool fan_out_root(std::uint32_t& pe) const noexcept {
    pe = detail::broadcast_root;
    return true;
  }
  void address(detail::message* m) const noexcept {
    m->target = detail::target_kind::array_all;
    m->collection = desc_->id;
    m->dims = detail::index_dims_v<typename T::index_type>;
  }

  const detail::collection_desc* desc_ = nullptr;
};

namespace detail {
/// What dense and sparse array options share.
template <class Self>
struct array_options_common {
  /// Elements of this array live where those of `other` with the same index
  /// do, and migrate with them (other's map is used).
  template <class U>
  Self& bind_to(const array_proxy<U>& other) {
    bound = other.descriptor();
    return static_cast<Self&>(*this);
  }
  /// A message to a missing element creates it (default-constructed) at its home.
  Self& demand_creation(bool on = true) {
    demand = on;
    return static_cast<Self&>(*this);
  }
  array_map map;
  const collection_desc* bound = nullptr;
  bool demand = false;
};
}  // namespace detail

/// Options of a dense array: extents and map (block_map() by default).
template <int N>
struct array_options : detail::array_options_common<array_options<N>> {
  array_options(index<N> s, array_map m = block_map()) : shape(s) { this->map = std::move(m); }
  index<N> shape;
};

/// Options of a sparse array with index type I: map (a hash of the index by
/// default; custom_map<&fn> with `std::uint32_t fn(const I&, std::uint32_t pes)`).
template <class I>
struct sparse_options : detail::array_options_common<sparse_options<I>> {
  explicit sparse_options(array_map m = hash_map()) { this->map = std::move(m); }
};

namespace detail {
template <class T, class Options>
collection_desc* new_array_desc(const Options& options, const index_storage* shape, std::uint64_t volume) {
  using I = typename T::index_type;
  static_assert(std::is_base_of_v<element<T, I>, T>, "roam: arrays of T need T to derive from roam::element<T, I>");
  (void)class_registered<T>;
  (void)element_ops_holder<T>::registered;
  collection_desc* d = new_collection(collection_kind::array, &class_ops_for<T>);
  d->dims = index_dims_v<I>;
  d->sparse = shape == nullptr;
  d->user_index = !is_dense_index_v<I>;
  d->demand_creation = options.demand;
  d->elem = &element_ops_holder<T>::ops;
  if (shape) d->shape = *shape;
  d->volume = volume;
  if (options.bound) {
    if (options.bound->dims != d->dims || options.bound->user_index != d->user_index)
      report_fatal("array " + std::string(type_name<T>()) + ": bound to an array with another index type");
    d->bound_to = options.bound->bound_to ? options.bound->bound_to : options.bound->id;
    d->map = options.bound->map;
    d->map_name = options.bound->map_name;
  } else {
    d->map = options.map.fn;
    d->map_name = options.map.name;
  }
  if (d->demand_creation && !d->elem->make_default)
    report_fatal("array " + std::string(type_name<T>()) + ": demand creation needs a default constructor");
  register_binding(d);
  return d;
}
}  // namespace detail

/// Creates a dense array with `options.shape` extents; every element is built
/// with copies of `args` on the PE the map gives it. Usable at once.
template <class T, class... A>
array_proxy<T> create_array(const array_options<T::index_type::dims>& options, A&&... a) {
  static_assert(is_dense_index_v<typename T::index_type>,
                "roam: an array with a user index has no extents; create it with create_sparse_array");
  detail::check_element_args<T, A...>();
  using args_t = std::tuple<std::decay_t<A>...>;
  const detail::index_storage shape = detail::to_storage(options.shape);
  detail::collection_desc* d = detail::new_array_desc<T>(options, &shape, options.shape.volume());
  const args_t args(std::forward<A>(a)...);
  detail::construct_local_members(d, &detail::make_from_args<T, args_t>, &args);
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

/// Creates an empty (sparse) array; populate it with insert / insert_on and
/// then done_inserting. Usable at once: messages to elements not inserted yet
/// wait at their home.
template <class T>
array_proxy<T> create_sparse_array(const sparse_options<typename T::index_type>& options = sparse_options<typename T::index_type>{}) {
  detail::collection_desc* d = detail::new_array_desc<T>(options, nullptr, 0);
  d->dynamic.store(true, std::memory_order_relaxed);
  detail::construct_local_members(d, nullptr, nullptr);
  std::uint32_t me = detail::tls_pe->id();
  const detail::collection_wire wire = detail::to_wire(d);
  for (std::uint32_t pe = 0; pe < detail::tls_pe->runtime().num_pes; ++pe)
    if (pe != me) detail::post_control<&detail::construct_sparse<T>, T>(pe, 0, wire);
  return array_proxy<T>(d);
}

}  // namespace roam
