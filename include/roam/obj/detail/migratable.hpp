#pragma once
// What moving an object of type T takes, shared by array elements and
// singleton chares: packing its state through pup, rebuilding it from that
// state, and its optional hooks.
#include <span>
#include <type_traits>

#include <exception>
#include <string>

#include <roam/msg/buffer.hpp>
#include <roam/msg/detail/entry.hpp>
#include <roam/msg/names.hpp>
#include <roam/msg/pup.hpp>
#include <roam/sched/runtime.hpp>
#include <roam/sched/task.hpp>

namespace roam {
/// Tag of the constructor that rebuilds a migrated object before its pup
/// fills it in: `explicit cell(roam::migrating) {}`. A default constructor serves too.
struct migrating {};
}  // namespace roam

namespace roam::detail {

/// How an object of a type the runtime does not know moves: array elements
/// and singleton chares alike (filled by migratable_ops<T>, migratable.hpp).
struct move_ops {
  /// The state, through its pup (null: T is not migratable). A roam::bytes:
  /// not zero-filled first, and above 16 KiB it crosses processes as a
  /// segment sent from its own memory.
  bytes (*pack_state)(void* obj) = nullptr;
  /// Builds a T from packed state; runs under a construction context.
  void* (*unpack_state)(std::span<const std::byte> state) = nullptr;
  void (*before_migration)(void* obj) = nullptr;
  void (*after_migration)(void* obj) = nullptr;
  const char* not_migratable_why = nullptr;
  /// T asked to be packed on every migration, even between PEs of one
  /// process (`static constexpr bool pup_on_migration = true;`).
  bool pup_on_migration = false;
  /// Starts T's restart entry again after a packed move (null: T has none).
  void (*restart)(void* obj, const std::string& who) = nullptr;
  /// T takes part in load balancing at sync points: it has `resume_from_sync()`,
  /// which this sends it (as an entry message to itself) once the balancing step
  /// its at_sync() joined is over (null: it has none).
  void (*resume_from_sync)(void* obj) = nullptr;
};

/// Set by the load balancing layer (src/lb/): an object's at_sync(). Null
/// when that layer is not linked.
inline void (*g_at_sync)(void* obj, std::string_view type_name) = nullptr;
/// at_sync() of an object: `obj` is the object as the walk API names it.
void at_sync_of(void* obj, std::string_view type_name);

template <class T>
struct migratable_ops {
  static constexpr bool migratable =
      serializable<T> && (std::is_constructible_v<T, migrating> || std::is_default_constructible_v<T>);
  /// T asked for pup on every move, even within one process.
  static constexpr bool pup_on_migration = requires { requires T::pup_on_migration; };
  static constexpr const char* not_migratable_why =
      migratable ? nullptr : "it needs a pup function and a constructor taking roam::migrating (or a default constructor)";

  static T* make_migrated() {
    if constexpr (std::is_constructible_v<T, migrating>) return new T(migrating{});
    else return new T();
  }
  /// The state, in a roam::bytes: not zero-filled first, and above 16 KiB it
  /// crosses processes as a segment sent from its own memory.
  static bytes pack_state(void* obj) {
    if constexpr (migratable) {
      T& t = *static_cast<T*>(obj);
      bytes out = bytes::uninitialized(packed_size(t));
      pack_into(out.mutable_span(), t);
      return out;
    } else {
      return {};
    }
  }
  /// Builds a T from packed state (the caller sets up the construction context).
  static void* unpack_state(std::span<const std::byte> state) {
    if constexpr (migratable) {
      T* t = make_migrated();
      try {
        unpack_into(state, *t);
      } catch (...) {
        delete t;
        throw;
      }
      return t;
    } else {
      return nullptr;
    }
  }
  /// T names a restart entry (entry.hpp, docs/design/flow.md): its tasks may
  /// be suspended when T is packed.
  static constexpr bool has_restart_entry = detail::has_restart_entry<T>;
  static constexpr bool check_restart_entry() {
    if constexpr (has_restart_entry) {
      static_assert(std::is_same_v<decltype(restart_entry_of<T>()), task<> (T::*)()>,
                    "roam: restart_entry must name a member `roam::task<> run()` taking no parameters: after a move "
                    "it restarts from the object's pupped state alone");
    }
    return true;
  }
  /// Starts the restart entry again on the object just rebuilt (the caller
  /// makes the object current); `who` names it in an error report.
  static void restart(void* obj, const std::string& who) {
    if constexpr (has_restart_entry) {
      static_assert(check_restart_entry());
      T* t = static_cast<T*>(obj);
      constexpr auto entry = restart_entry_of<T>();
      auto run = (t->*entry)();
      tls_spawn_restartable = true;
      std::string where = who + " entry " + std::string(member_name<entry>()) + " (restarted after a move)";
      spawn(std::move(run), [where](std::exception_ptr e) {
        if (e) report_task_failure(e, where);
      });
    } else {
      (void)obj;
      (void)who;
    }
  }
  static void before(void* obj) {
    if constexpr (requires(T& t) { t.before_migration(); }) static_cast<T*>(obj)->before_migration();
  }
  static void after(void* obj) {
    if constexpr (requires(T& t) { t.after_migration(); }) static_cast<T*>(obj)->after_migration();
  }
  static constexpr bool uses_at_sync = requires(T& t) { t.resume_from_sync(); };
  // A message to itself, so that resume_from_sync runs as one of its entry
  // methods: measured, observed, and free to migrate_to or destroy_self.
  static void resume(void* obj) {
    if constexpr (uses_at_sync) static_cast<T*>(obj)->this_proxy().template send<&T::resume_from_sync>();
  }
  /// The type-erased table the runtime moves T with.
  static inline const move_ops table{migratable ? &pack_state : nullptr,
                                     migratable ? &unpack_state : nullptr,
                                     &before,
                                     &after,
                                     not_migratable_why,
                                     pup_on_migration,
                                     has_restart_entry ? &restart : nullptr,
                                     uses_at_sync ? &resume : nullptr};
};

}  // namespace roam::detail
