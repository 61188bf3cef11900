#pragma once
// A move-only std::function (C++23's move_only_function is not in C++20):
// timers, idle hooks and continuations hold move-only state such as promises.
#include <cstddef>
#include <functional>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace roam::detail {

template <class Signature>
class unique_function;

/// A callable that owns its target and can only be moved. Small targets live inline.
template <class R, class... Args>
class unique_function<R(Args...)> {
  static constexpr std::size_t inline_size = 3 * sizeof(void*);

  struct ops {
    R (*call)(void*, Args&&...);
    void (*relocate)(void* from, void* to) noexcept;  // move-construct into `to`, destroy `from`
    void (*destroy)(void*) noexcept;
  };

  template <class F>
  static constexpr bool fits_inline =
      sizeof(F) <= inline_size && alignof(F) <= alignof(std::max_align_t) && std::is_nothrow_move_constructible_v<F>;

  template <class F>
  static F* target(void* storage) noexcept {
    if constexpr (fits_inline<F>) return std::launder(reinterpret_cast<F*>(storage));
    else return *std::launder(reinterpret_cast<F**>(storage));
  }

  template <class F>
  static constexpr ops ops_for{
      [](void* s, Args&&... a) -> R { return std::invoke(*target<F>(s), std::forward<Args>(a)...); },
      [](void* from, void* to) noexcept {
        if constexpr (fits_inline<F>) {
          ::new (to) F(std::move(*target<F>(from)));
          target<F>(from)->~F();
        } else {
          ::new (to) F*(*std::launder(reinterpret_cast<F**>(from)));
        }
      },
      [](void* s) noexcept {
        if constexpr (fits_inline<F>) target<F>(s)->~F();
        else delete target<F>(s);
      }};

 public:
  unique_function() noexcept = default;
  unique_function(std::nullptr_t) noexcept {}

  template <class F, class D = std::decay_t<F>>
    requires(!std::is_same_v<D, unique_function> && std::is_invocable_r_v<R, D&, Args...>)
  unique_function(F&& f) {  // NOLINT: implicit like std::function
    if constexpr (fits_inline<D>) ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
    else ::new (static_cast<void*>(storage_)) D*(new D(std::forward<F>(f)));
    ops_ = &ops_for<D>;
  }

  unique_function(unique_function&& o) noexcept : ops_(o.ops_) {
    if (ops_) {
      ops_->relocate(o.storage_, storage_);
      o.ops_ = nullptr;
    }
  }

  unique_function& operator=(unique_function&& o) noexcept {
    if (this != &o) {
      reset();
      if (o.ops_) {
        o.ops_->relocate(o.storage_, storage_);
        ops_ = o.ops_;
        o.ops_ = nullptr;
      }
    }
    return *this;
  }

  ~unique_function() { reset(); }

  explicit operator bool() const noexcept { return ops_ != nullptr; }

  R operator()(Args... a) { return ops_->call(storage_, std::forward<Args>(a)...); }

 private:
  void reset() noexcept {
    if (ops_) {
      ops_->destroy(storage_);
      ops_ = nullptr;
    }
  }

  const ops* ops_ = nullptr;
  alignas(std::max_align_t) std::byte storage_[inline_size];
};

}  // namespace roam::detail
