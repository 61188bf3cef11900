#pragma once
/// Coroutine tasks: a `roam::task<T>` is a lazily started coroutine that runs
/// on the PE that resumes it and returns a T (or throws) to whoever awaits it.
#include <coroutine>
#include <cstdint>
#include <exception>
#include <unordered_set>
#include <vector>
#include <optional>
#include <type_traits>
#include <utility>

#include <roam/sched/detail/pe_state.hpp>
#include <roam/sched/detail/unique_function.hpp>
#include <roam/sched/observe.hpp>

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

/// Who embeds a task_roots (so that the objects layer can find the object).
enum class task_owner_kind : std::uint8_t { none, element, chare };

/// The unfinished root coroutines started for one object (its entry tasks).
/// They belong to the object, not to a PE: an object that moves as itself
/// within its process takes them along, and destroying the object ends them.
/// An object rarely has more than a few, so a vector (empty: no allocation).
///
/// A task of the object that suspends on something other than the object's
/// own messages (a future, a timer) holds the object where it is: `holds`
/// points at the object's count of such holds (shared with its blocked
/// threads), which migration and destruction wait on. It resumes through
/// the objects layer (task_owner_hooks), as an entry would: on the object's
/// PE, with the object current, and what it asked for meanwhile (migrate_to,
/// destroy_self) carried out after. docs/design/flow.md.
struct task_roots {
  std::vector<void*> frames;
  void* owner = nullptr;              ///< the element_base or chare_base that embeds this
  std::uint64_t owner_id = 0;         ///< a chare's id
  std::uint32_t* holds = nullptr;     ///< the owner's hold count (null: nothing to hold)
  std::uint32_t restartable = 0;      ///< how many of `frames` are restart-entry tasks
  task_owner_kind kind = task_owner_kind::none;

  task_roots() = default;
  task_roots(const task_roots&) = delete;
  task_roots& operator=(const task_roots&) = delete;
  ~task_roots() { destroy_all(); }
  void add(void* f) { frames.push_back(f); }
  void remove(void* f) noexcept {
    for (auto it = frames.begin(); it != frames.end(); ++it)
      if (*it == f) {
        *it = frames.back();
        frames.pop_back();
        return;
      }
  }
  std::size_t size() const noexcept { return frames.size(); }
  /// Destroys every frame (and what it owns) without resuming it.
  void destroy_all() noexcept {
    while (!frames.empty()) {
      void* f = frames.back();
      frames.pop_back();
      std::coroutine_handle<>::from_address(f).destroy();
    }
    restartable = 0;
  }
};

/// Filled by the objects layer: resumes `h`, a task of the object owning
/// `roots` that held it, as that object's entry would (see task_roots).
struct task_owner_hooks {
  void (*resume)(task_roots& roots, std::coroutine_handle<> h) noexcept = nullptr;
};
inline task_owner_hooks g_task_owner;

/// Where tasks started now are recorded: those of the object whose entry is
/// running (set by the objects layer), or null for the PE's own list.
inline constinit thread_local task_roots* tls_task_owner = nullptr;
/// Set just before starting an object's restart entry (docs/design/flow.md):
/// the root it starts is counted as restartable.
inline constinit thread_local bool tls_spawn_restartable = false;

/// Resumes a task of no object between entry_begin and entry_end (observe.hpp).
[[gnu::cold]] void resume_observed_unowned(std::coroutine_handle<> h) noexcept;

/// A task suspending on something outside its object's messages: holds the
/// object running it (if any) in place until `resume_held` or `drop_hold`.
inline task_roots* hold_current_owner() noexcept {
  task_roots* r = tls_task_owner;
  if (!r || !r->holds || !g_task_owner.resume) return nullptr;
  ++*r->holds;
  return r;
}
/// Resumes `h`, held by `owner` (or not held: null), where it belongs.
inline void resume_held(task_roots* owner, std::coroutine_handle<> h) noexcept {
  if (owner) g_task_owner.resume(*owner, h);  // releases the hold first
  else if (observed()) [[unlikely]] resume_observed_unowned(h);
  else h.resume();
}
/// The suspended task was destroyed instead (its object or the program ended).
inline void drop_hold(task_roots* owner) noexcept {
  if (owner) --*owner->holds;
}

/// Records a root coroutine while it is unfinished, with its object or on its
/// PE, so that shutdown (or the object's end) can destroy frames that never
/// finished (and everything they own).
struct root_registration {
  pe_state* pe = nullptr;
  task_roots* roots = nullptr;
  void* frame = nullptr;
  bool restartable = false;
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) {
    frame = h.address();
    restartable = std::exchange(tls_spawn_restartable, false);
    if (tls_task_owner) {
      roots = tls_task_owner;
      roots->add(frame);
      if (restartable) ++roots->restartable;
    } else {
      pe = tls_pe;
      if (pe) pe->root_tasks.insert(frame);
    }
    return false;  // keep running
  }
  void await_resume() const noexcept {}
  void done() const noexcept {
    if (roots) {
      roots->remove(frame);
      if (restartable) --roots->restartable;
    }
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
