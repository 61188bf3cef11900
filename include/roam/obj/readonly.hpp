#pragma once
/// Readonly globals: assigned in main before its first message leaves PE 0
/// (a chare created on PE 0 may already exist, so its proxy can be a
/// readonly), then visible (and constant) on every PE. Node 0 sends them to
/// every other process before anything runs there, so they must be
/// serializable and defined at namespace scope (every process registers the
/// same globals in the same order at start-up).
#include <string_view>
#include <utility>

#include <roam/msg/detail/remote.hpp>
#include <roam/msg/names.hpp>
#include <roam/sched/detail/startup.hpp>
#include <roam/sched/runtime.hpp>

namespace roam {

/// A global that main sets once and every PE reads. Assigning it anywhere
/// else, or after main has sent a message, is a fatal error.
template <class T>
class readonly {
 public:
  static_assert(serializable<T>, "roam: a readonly's value travels to every process, so it must be serializable");

  readonly() { enroll(); }
  readonly(T initial) : value_(std::move(initial)) { enroll(); }  // NOLINT: reads like a plain global
  readonly(const readonly&) = delete;
  readonly& operator=(const readonly&) = delete;
  ~readonly() { detail::unregister_readonly(this); }

  readonly& operator=(T v) {
    if (!detail::readonly_window_open()) {
      roam::abort("readonly assigned outside main's first part on pe 0 (after a message was sent); "
                  "set readonlies in main before sending anything");
      return *this;
    }
    value_ = std::move(v);
    return *this;
  }

  const T& get() const noexcept { return value_; }
  const T& operator*() const noexcept { return value_; }
  const T* operator->() const noexcept { return &value_; }
  operator const T&() const noexcept { return value_; }  // NOLINT

 private:
  void enroll() {
    detail::register_readonly(
        this, [](pup_er& p, void* self) { p | static_cast<readonly*>(self)->value_; }, type_name<T>());
  }
  T value_{};
};

}  // namespace roam
