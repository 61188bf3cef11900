#pragma once
// What moving an object of type T takes, shared by array elements and
// singleton chares: packing its state through pup, rebuilding it from that
// state, and its optional hooks.
#include <span>
#include <type_traits>

#include <roam/msg/buffer.hpp>
#include <roam/msg/pup.hpp>

namespace roam {
/// Tag of the constructor that rebuilds a migrated object before its pup
/// fills it in: `explicit cell(roam::migrating) {}`. A default constructor serves too.
struct migrating {};
}  // namespace roam

namespace roam::detail {

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
  static void before(void* obj) {
    if constexpr (requires(T& t) { t.before_migration(); }) static_cast<T*>(obj)->before_migration();
  }
  static void after(void* obj) {
    if constexpr (requires(T& t) { t.after_migration(); }) static_cast<T*>(obj)->after_migration();
  }
};

}  // namespace roam::detail
