#pragma once
/// Coroutine tasks: a `roam::task<T>` is a lazily started coroutine that runs
/// on the PE that resumes it and returns a T (or throws) to whoever awaits it.
#include <coroutine>
#include <exception>
#include <memory>
#include <unordered_set>
#include <optional>
#include <type_traits>
#include <utility>

#include <roam/sched/detail/pe_state.hpp>
#include <roam/sched/detail/unique_function.hpp>

namespace roam {

template <class T = void>
class task;

namespace detail {

struct task_promise_base {
  struct final_awaiter {
    bool await_ready() const noexcept { return false; }
    template <class P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
      auto c = h.promise().continuation_;
      return c ? c : std::noop_coroutine();
    }
    void await_resume() const noexcept {}
  };
  std::suspend_always initial_suspend() const noexcept { return {}; }
  final_awaiter final_suspend() const noexcept { return {}; }
  void unhandled_exception() noexcept { error_ = std::current_exception(); }

  std::coroutine_handle<> continuation_;
  std::exception_ptr error_;
};

template <class T>
struct task_promise : task_promise_base {
  task<T> get_return_object() noexcept;
  template <class U>
    requires std::is_convertible_v<U&&, T>
  void return_value(U&& v) {
    value_.emplace(std::forward<U>(v));
  }
  T take() {
    if (error_) std::rethrow_exception(error_);
    return std::move(*value_);
  }
  std::optional<T> value_;
};

template <>
struct task_promise<void> : task_promise_base {
  task<void> get_return_object() noexcept;
  void return_void() noexcept {}
  void take() {
    if (error_) std::rethrow_exception(error_);
  }
};

}  // namespace detail

/// A lazily started coroutine returning T. Awaiting it starts it and resumes
/// the awaiter when it finishes (symmetric transfer, no PE round trip).
/// Entry methods may return `task<T>`; the runtime then starts them itself.
/// Move-only; destroying an unfinished, unstarted task destroys its frame.
template <class T>
class [[nodiscard]] task {
 public:
  using promise_type = detail::task_promise<T>;
  using value_type = T;

  task() noexcept = default;
  explicit task(std::coroutine_handle<promise_type> h) noexcept : h_(h) {}
  task(task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  task& operator=(task&& o) noexcept {
    if (this != &o) {
      if (h_) h_.destroy();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  ~task() {
    if (h_) h_.destroy();
  }

  /// True when the task holds a coroutine.
  bool valid() const noexcept { return static_cast<bool>(h_); }

  auto operator co_await() && noexcept {
    struct awaiter {
      std::coroutine_handle<promise_type> h;
      bool await_ready() const noexcept { return !h || h.done(); }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept {
        h.promise().continuation_ = awaiting;
        return h;
      }
      T await_resume() { return h.promise().take(); }
    };
    return awaiter{h_};
  }

 private:
  std::coroutine_handle<promise_type> h_;
};

namespace detail {

template <class T>
task<T> task_promise<T>::get_return_object() noexcept {
  return task<T>{std::coroutine_handle<task_promise<T>>::from_promise(*this)};
}
inline task<void> task_promise<void>::get_return_object() noexcept {
  return task<void>{std::coroutine_handle<task_promise<void>>::from_promise(*this)};
}

/// An eagerly started, self-destroying coroutine: the root of a task tree.
struct detached_task {
  struct promise_type {
    detached_task get_return_object() const noexcept { return {}; }
    std::suspend_never initial_suspend() const noexcept { return {}; }
    std::suspend_never final_suspend() const noexcept { return {}; }
    void return_void() const noexcept {}
    void unhandled_exception() const noexcept { std::terminate(); }  // spawn catches everything
  };
};

/// The unfinished root coroutines started for one object (its entry tasks).
/// They belong to the object, not to a PE: an object that moves as itself
/// within its process takes them along, and destroying the object ends them.
struct task_roots {
  std::unordered_set<void*> frames;
  task_roots() = default;
  task_roots(const task_roots&) = delete;
  task_roots& operator=(const task_roots&) = delete;
  ~task_roots() { destroy_all(); }
  /// Destroys every frame (and what it owns) without resuming it.
  void destroy_all() noexcept {
    while (!frames.empty()) {
      void* f = *frames.begin();
      frames.erase(frames.begin());
      std::coroutine_handle<>::from_address(f).destroy();
    }
  }
};
/// Where tasks started now are recorded: the slot of the object whose entry is
/// running (set by the objects layer), or null for the PE's own list.
inline constinit thread_local std::unique_ptr<task_roots>* tls_task_owner = nullptr;

/// Records a root coroutine while it is unfinished, with its object or on its
/// PE, so that shutdown (or the object's end) can destroy frames that never
/// finished (and everything they own).
struct root_registration {
  pe_state* pe = nullptr;
  task_roots* roots = nullptr;
  void* frame = nullptr;
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) {
    frame = h.address();
    if (tls_task_owner) {
      if (!*tls_task_owner) *tls_task_owner = std::make_unique<task_roots>();
      roots = tls_task_owner->get();
      roots->frames.insert(frame);
    } else {
      pe = tls_pe;
      if (pe) pe->root_tasks.insert(frame);
    }
    return false;  // keep running
  }
  void await_resume() const noexcept {}
  void done() const noexcept {
    if (roots) roots->frames.erase(frame);
    else if (pe) pe->root_tasks.erase(frame);
  }
};

/// Starts `t` now on the calling PE; `done(error[, value*])` runs when it finishes.
template <class T, class Done>
detached_task spawn(task<T> t, Done done) {
  root_registration reg;
  co_await reg;
  std::exception_ptr error;
  if constexpr (std::is_void_v<T>) {
    try {
      co_await std::move(t);
    } catch (...) {
      error = std::current_exception();
    }
    reg.done();
    done(std::move(error));
  } else {
    std::optional<T> value;
    try {
      value.emplace(co_await std::move(t));
    } catch (...) {
      error = std::current_exception();
    }
    reg.done();
    done(std::move(error), value ? &*value : nullptr);
  }
}

template <class T>
struct is_task : std::false_type {};
template <class T>
struct is_task<task<T>> : std::true_type {};

}  // namespace detail

/// True for `roam::task<T>`.
template <class T>
inline constexpr bool is_task_v = detail::is_task<std::remove_cvref_t<T>>::value;

}  // namespace roam
