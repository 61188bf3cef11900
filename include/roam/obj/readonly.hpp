#pragma once
/// Readonly globals: assigned in main before its first message leaves PE 0
/// (a chare created on PE 0 may already exist, so its proxy can be a
/// readonly), then visible (and constant) on every PE.
#include <string_view>
#include <utility>

#include <roam/sched/detail/startup.hpp>
#include <roam/sched/runtime.hpp>

namespace roam {

/// A global that main sets once and every PE reads. Assigning it anywhere
/// else, or after main has sent a message, is a fatal error.
template <class T>
class readonly {
 public:
  constexpr readonly() = default;
  constexpr readonly(T initial) : value_(std::move(initial)) {}  // NOLINT: reads like a plain global

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
  T value_{};
};

}  // namespace roam
