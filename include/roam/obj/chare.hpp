#pragma once
/// Singleton chares: one object on one PE, created anywhere, addressed by a proxy.
#include <cstdint>
#include <memory>
#include <tuple>
#include <utility>

#include <roam/machine/ids.hpp>
#include <roam/obj/detail/entry_sender.hpp>
#include <roam/obj/detail/migratable.hpp>
#include <roam/obj/detail/objects.hpp>

namespace roam {

template <class T>
class chare_proxy;

namespace detail {
struct chare_access;
}

/// Non-template part of every chare.
class chare_base {
 public:
  /// Destroys this chare once the running entry method returns. Later messages to it are errors.
  void destroy_self() noexcept { destroy_requested_ = true; }
  bool destroy_requested() const noexcept { return destroy_requested_; }

 protected:
  chare_base() = default;
  ~chare_base() = default;
  void request_move(std::uint32_t pe) noexcept { move_to_ = pe; }
  void set_birth_pe(std::uint32_t pe) noexcept { birth_pe_ = pe; }
  std::uint32_t birth_pe() const noexcept { return birth_pe_; }

 private:
  friend struct detail::chare_access;
  std::uint32_t birth_pe_ = 0;  ///< where it was created: its proxies' PE, and its home
  bool destroy_requested_ = false;
  std::uint32_t move_to_ = detail::no_pe;
  std::uint32_t epoch_ = 0;  ///< moves so far: newer location news wins
  // Blocked threaded entries and tasks held on a future or timer: moving or
  // destroying waits for 0. Declared before tasks_, whose frames release it.
  std::uint32_t threads_ = 0;
  detail::task_roots tasks_;  ///< unfinished entry tasks
};

namespace detail {
struct chare_access {
  static std::uint32_t take_move(chare_base& c) noexcept { return std::exchange(c.move_to_, no_pe); }
  static void request_move(chare_base& c, std::uint32_t pe) noexcept { c.move_to_ = pe; }
  static std::uint32_t& epoch(chare_base& c) noexcept { return c.epoch_; }
  static std::uint32_t home(const chare_base& c) noexcept { return c.birth_pe_; }
  static task_roots& tasks(chare_base& c) noexcept { return c.tasks_; }
  static std::size_t unfinished_tasks(const chare_base& c) noexcept { return c.tasks_.size(); }
  static std::uint32_t& threads(chare_base& c) noexcept { return c.threads_; }
  static bool move_requested(const chare_base& c) noexcept { return c.move_to_ != no_pe; }
  static void bind_tasks(chare_base& c, std::uint64_t id) noexcept {
    c.tasks_.owner = &c;
    c.tasks_.owner_id = id;
    c.tasks_.kind = task_owner_kind::chare;
    c.tasks_.holds = &c.threads_;
  }
};
}  // namespace detail

/// Base class of a singleton chare type T (CRTP): `struct fib : roam::chare<fib> {...}`.
/// Construct only through roam::create_chare.
///
/// A chare migrates like an array element (see roam::element): migrate_to,
/// pup, a roam::migrating or default constructor, before_migration /
/// after_migration, moving as itself within one process. Its proxies keep
/// working: a message goes where its sender last heard the chare is (its
/// birth PE at first), and a PE the chare has left passes it on.
template <class T>
class chare : public chare_base {
 public:
  /// A proxy to this chare.
  chare_proxy<T> this_proxy() const noexcept { return chare_proxy<T>(birth_pe(), id_); }
  /// Moves this chare to PE `pe` after the running entry method returns.
  void migrate_to(pe_id pe) noexcept { request_move(pe.value()); }
  /// Load balancing at a sync point, as roam::element::at_sync (T must have `void resume_from_sync()`).
  void at_sync() {
    static_assert(requires(T& t) { t.resume_from_sync(); }, "roam: at_sync() needs T::resume_from_sync()");
    detail::at_sync_of(static_cast<T*>(this), roam::type_name<T>());
  }

 protected:
  chare() {
    const auto& c = detail::current_construction("roam::chare");
    id_ = c.chare_id;
    set_birth_pe(c.pe);
    detail::chare_access::bind_tasks(*this, id_);
  }

 private:
  std::uint64_t id_ = 0;
};

/// A copyable handle to a singleton chare; `send`/`call` through it send a message.
template <class T>
class chare_proxy : public detail::entry_sender<chare_proxy<T>, T> {
 public:
  chare_proxy() noexcept = default;
  chare_proxy(std::uint32_t pe, std::uint64_t id) noexcept : pe_(pe), id_(id) {}

  /// Destroys the chare after the messages already sent to it from this PE.
  void destroy() const { detail::destroy_chare(detail::chare_location(id_, pe_), id_); }

  /// The PE the chare was created on (it may have moved since).
  pe_id pe() const noexcept { return pe_id{detail::restored_chare_home(pe_)}; }
  std::uint64_t id() const noexcept { return id_; }
  bool valid() const noexcept { return id_ != 0; }

  // A proxy restored from a checkpoint into fewer PEs keeps the PE it was
  // saved with: its uses map it (restored_chare_home), so unpacking a proxy
  // stays a plain copy that inlines into the callbacks built from it.
  template <class P>
  void pup(P& p) {
    p | pe_ | id_;
  }
  /// The same chare: ids are unique in a program and outlive restarts (homes do not).
  friend bool operator==(const chare_proxy& a, const chare_proxy& b) noexcept { return a.id_ == b.id_; }

 private:
  friend class detail::entry_sender<chare_proxy<T>, T>;
  template <auto M>
  bool resolve(std::uint32_t& pe) const noexcept {
    pe = pe_;
    if (detail::g_chares_moved.load(std::memory_order_relaxed)) [[unlikely]]
      pe = detail::chare_location(id_, pe_);
    return true;
  }
  void address(detail::message* m) const noexcept {
    m->target = detail::target_kind::chare;
    m->collection = 0;
    m->dims = 0;
    m->index.v[0] = static_cast<std::int32_t>(id_ & 0xffffffffu);
    m->index.v[1] = static_cast<std::int32_t>(id_ >> 32);
  }
  void dispatch(detail::message* m, std::uint32_t pe) const { detail::send_message(m, pe); }

  std::uint32_t pe_ = 0;
  std::uint64_t id_ = 0;
};

namespace detail {
template <class T>
struct chare_ops_holder {
  using moves = migratable_ops<T>;
  static inline const chare_ops ops{
      stable_hash(type_name<T>()),
      &class_ops_for<T>,
      [](void* obj) noexcept -> chare_base* { return static_cast<chare_base*>(static_cast<T*>(obj)); },
      &moves::table};
  static inline const bool registered = register_chare_ops(&ops);
};

/// Runs on the chosen PE: builds the chare and delivers what waited for it.
template <class T, class... Args>
void construct_chare(std::uint64_t id, Args... args) {
  construction_context ctx;
  ctx.chare_id = id;
  ctx.pe = tls_pe->id();
  tls_constructing = &ctx;
  T* obj = nullptr;
  try {
    obj = new T(std::move(args)...);
  } catch (const std::exception& e) {
    report_fatal("chare " + std::string(type_name<T>()) + ": constructor threw: " + e.what());
  } catch (...) {
    report_fatal("chare " + std::string(type_name<T>()) + ": constructor threw");
  }
  tls_constructing = nullptr;
  if (obj) register_chare(id, obj, static_cast<chare_base*>(obj), &chare_ops_holder<T>::ops);
}

template <class T, class... A>
chare_proxy<T> create_chare_at(std::uint32_t pe, A&&... a) {
  static_assert(std::is_base_of_v<chare<T>, T>, "roam: create_chare<T> needs T to derive from roam::chare<T>");
  static_assert(std::is_constructible_v<T, std::decay_t<A>&&...>, "roam: T has no constructor taking these arguments");
  static_assert((serializable<std::decay_t<A>> && ...), "roam: constructor arguments travel in a message, so they must be serializable; give the type a "
                "member `void pup(roam::pup_er&)`, a free `pup(roam::pup_er&, T&)`, or declare "
                "`roam::bitwise_serializable<T> = true`");
  std::uint32_t pes = this_pe("roam::create_chare").runtime().num_pes;
  if (pe >= pes) {
    report_bad_send("create_chare<" + std::string(type_name<T>()) + ">: pe " + std::to_string(pe) + " outside [0," +
                    std::to_string(pes) + ")");
    return {};
  }
  (void)chare_ops_holder<T>::registered;
  std::uint64_t id = new_chare_id();
  post_control<&construct_chare<T, std::decay_t<A>...>, T>(pe, 0, id, std::forward<A>(a)...);
  return chare_proxy<T>(pe, id);
}
}  // namespace detail

/// Creates a chare on a PE chosen by the runtime (round robin from the caller).
/// The proxy is usable at once: messages sent before the chare exists wait for it.
template <class T, class... A>
chare_proxy<T> create_chare(A&&... a) {
  return detail::create_chare_at<T>(detail::place_chare(), std::forward<A>(a)...);
}

/// Creates a chare on PE `pe`; a PE outside [0, num_pes) is a fatal error.
template <class T, class... A>
chare_proxy<T> create_chare_on(pe_id pe, A&&... a) {
  return detail::create_chare_at<T>(pe.value(), std::forward<A>(a)...);
}

}  // namespace roam
