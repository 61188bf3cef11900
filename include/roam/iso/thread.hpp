#pragma once
/// Migratable user-level threads (docs/design/isomalloc.md): a thread whose
/// stack and heap live in an isomalloc slot, at addresses that are the same in
/// every process of the job, so that while it is blocked it can travel with
/// the object that holds it (an array element or chare): to another PE, to
/// another process, into a checkpoint. Pointers into its own stack frames and
/// into its heap stay valid wherever it resumes.
///
/// ```cpp
/// struct rank : roam::element<rank> {
///   static constexpr bool pup_on_migration = true;  // the thread travels in the pup
///   roam::migratable_thread thread;
///   std::vector<int> inbox;
///   void start() { thread.start(this, [] { roam::this_thread_owner<rank>().main(); }); }
///   void main() {                                    // on the thread
///     while (inbox.empty()) roam::suspend_this_thread();   // may move meanwhile
///   }
///   void deliver(int v) { inbox.push_back(v); thread.resume(); }
///   void pup(roam::pup_er& p) { p | inbox | thread; }
/// };
/// ```
/// The owner must be packed on every move (`pup_on_migration`): a thread's
/// PE changes only through its pup. Code on the thread reaches its owner
/// through this_thread_owner<T>() after each block (the owner may have been
/// rebuilt at another address); it may keep pointers into its own stack and
/// into thread_heap memory. What it points to elsewhere (the owner's
/// members, ordinary heap memory) stays behind.
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <roam/msg/names.hpp>
#include <roam/msg/pup.hpp>
#include <roam/sched/detail/heap_route.hpp>
#include <roam/sched/detail/ult.hpp>
#include <roam/sched/runtime.hpp>

namespace roam {

/// How a migratable thread is made.
struct thread_options {
  /// Bytes of stack (0: +ulstack); the rest of the slot (+isomalloc_slot)
  /// holds its heap.
  std::size_t stack_bytes = 0;
  /// While the thread runs, malloc, calloc, realloc, posix_memalign,
  /// aligned_alloc, new and delete (of the thread's code) are served from its
  /// slot's heap, so ordinary containers and C allocations move with it.
  /// Needs the roam::iso_heap library linked into the program (it replaces
  /// malloc; start throws otherwise). roam's own calls allocate from the
  /// process heap; so does code inside a roam::process_heap_scope.
  bool isomalloc_heap = false;
};

/// Sends the allocations of its scope to the process heap, on a thread
/// started with isomalloc_heap: for memory the thread hands to others (a
/// buffer another object keeps, a library's state) that must not move with
/// it. A block allocated by the thread and freed by another object in the
/// same process goes back to the thread's heap; freed after the thread left
/// the process, it is reported and left alone.
class process_heap_scope {
 public:
  process_heap_scope() noexcept = default;
  process_heap_scope(const process_heap_scope&) = delete;
  process_heap_scope& operator=(const process_heap_scope&) = delete;

 private:
  detail::heap_route_pause pause_;
};

namespace detail::iso {
struct thread_record;
}  // namespace detail::iso

/// A migratable thread held by an object. Not copyable or movable: it is a
/// member of its owner, at a fixed offset from it.
class migratable_thread {
 public:
  migratable_thread() noexcept = default;
  migratable_thread(const migratable_thread&) = delete;
  migratable_thread& operator=(const migratable_thread&) = delete;
  /// A thread still blocked here is unwound (its blocking call throws
  /// roam::detail::thread_unwind, its frames' destructors run); a thread
  /// that left with a move is not touched.
  ~migratable_thread();

  /// Runs `fn()` on a new migratable thread of the calling PE, in a slot of
  /// its own: at once when called from a message handler (until it blocks or
  /// returns), after a message when called from another thread. `owner` is
  /// the object this is a member of (this_thread_owner<Owner>() finds it).
  /// An exception escaping `fn` is reported like one escaping an entry.
  /// Throws std::logic_error when started twice, std::runtime_error when no
  /// slot is left (naming the limit and the option that raises it).
  template <class Owner, class F>
  void start(Owner* owner, F fn, thread_options options = {});

  /// Wakes the thread blocked in suspend_this_thread(): from a message
  /// handler it runs now, from another thread after a message. Throws
  /// std::logic_error if it is not blocked there.
  void resume();

  bool started() const noexcept { return started_; }
  /// It ended (its slot is given back); false while it lives here or left.
  bool finished() const noexcept { return started_ && rec_ == nullptr && !departed_; }
  /// Blocked in suspend_this_thread() (resume() wakes it).
  bool suspended() const noexcept;
  /// The isomalloc slot it lives in (~0u when none).
  std::uint32_t slot() const noexcept;
  /// Where its owner is, for a thread not held at a fixed place in its
  /// owner (an element of a container the owner rebuilds when it is
  /// unpacked): call after unpacking both. A plain member needs nothing.
  void set_owner(void* owner) noexcept;

  /// Packs a blocked thread (its registers, the used part of its stack and
  /// of its heap), or rebuilds it at the same addresses and makes it one of
  /// this PE's blocked threads. Packing to move (a migration) takes it away
  /// from here; packing for a checkpoint leaves it as it is. Throws
  /// pup_error when it cannot be packed now (running, waiting in
  /// future::get, ...) or the packed thread is corrupt.
  void pup(pup_er& p);

 private:
  friend struct detail::iso::thread_record;
  void start_erased(void* owner, std::string_view owner_type, std::size_t body_bytes, std::size_t align,
                    detail::ult_body_fn body_fn, void*& body, thread_options options);
  void launch() noexcept;
  void abandon() noexcept;
  void pup_in_place(pup_er& p, std::uint64_t mark);
  void pup_memory(pup_er& p);

  detail::iso::thread_record* rec_ = nullptr;  // in the slot: the same address wherever the thread is
  bool started_ = false;
  bool departed_ = false;
};

/// Blocks the calling migratable thread until its migratable_thread::resume().
/// Meanwhile its owner may move, be checkpointed, be load balanced. Throws
/// std::logic_error outside a migratable thread; roam::detail::thread_unwind
/// when the program ends (or the owner is destroyed) before the resume.
void suspend_this_thread();

/// Load balancing from a migratable thread: calls at_sync() of the array
/// element or chare holding the thread and blocks the thread until that
/// object's resume_from_sync() resumes it (`void resume_from_sync() {
/// thread.resume(); }`), on the PE where the balancer put it. Throws
/// std::logic_error outside a migratable thread.
void at_sync_and_wait();

/// The object holding the calling migratable thread, where it is now.
/// std::logic_error outside a migratable thread.
void* this_thread_owner_address();
template <class T>
T& this_thread_owner() {
  return *static_cast<T*>(this_thread_owner_address());
}

/// Memory in the calling migratable thread's heap (its slot): it moves with
/// the thread and keeps its address. std::bad_alloc when the slot is full;
/// std::logic_error outside a migratable thread. Released blocks of a heap
/// go back to it; the heap goes away with its thread.
void* thread_heap_allocate(std::size_t size, std::size_t align = alignof(std::max_align_t));
/// Gives back a block of the calling thread's heap (nullptr: nothing).
void thread_heap_release(void* p) noexcept;
/// Bytes in use in the calling thread's heap (0 outside a migratable thread).
std::size_t thread_heap_in_use() noexcept;
/// Whether `p` points into the calling migratable thread's heap (false
/// outside one).
bool thread_heap_owns(const void* p) noexcept;

/// A standard allocator over the calling migratable thread's heap (for
/// containers a thread keeps while it moves).
template <class T>
struct thread_heap_allocator {
  using value_type = T;
  thread_heap_allocator() noexcept = default;
  template <class U>
  thread_heap_allocator(const thread_heap_allocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > std::size_t(-1) / sizeof(T)) throw std::bad_alloc();
    return static_cast<T*>(thread_heap_allocate(n * sizeof(T), alignof(T) < 16 ? 16 : alignof(T)));
  }
  void deallocate(T* p, std::size_t) noexcept { thread_heap_release(p); }
  template <class U>
  bool operator==(const thread_heap_allocator<U>&) const noexcept {
    return true;
  }
};

namespace detail::iso {
/// A new thread_private variable's number (0, 1, ...).
std::uint32_t register_thread_private() noexcept;
/// Where the calling migratable thread keeps its copy of variable `index`
/// (null until made); the table is in the thread's heap. std::logic_error
/// outside a migratable thread.
void*& thread_private_entry(std::uint32_t index);
}  // namespace detail::iso

/// A variable of which every migratable thread has its own copy, made from
/// the initial value at the thread's first use and kept in its heap: it
/// moves with the thread, at the same address. What a global would be to a
/// process, this is to a thread (an MPI rank's "globals" under Adaptive
/// MPI). Declare it at namespace scope:
///
///   roam::thread_private<int> calls;           // 0 in every thread
///   void f() { ++*calls; }                     // this thread's count
///
/// T must be trivially destructible (a thread's heap goes away with it,
/// without running destructors) and must not own memory outside the
/// thread's heap (it moves as bytes). Using it outside a migratable thread
/// throws std::logic_error.
template <class T>
class thread_private {
  static_assert(std::is_trivially_destructible_v<T>,
                "roam::thread_private<T>: T must be trivially destructible (it lives in the thread's heap, which "
                "goes away with the thread; keep containers in thread_heap_allocator memory)");

 public:
  thread_private() noexcept(std::is_nothrow_default_constructible_v<T>)
      : initial_(), index_(detail::iso::register_thread_private()) {}
  explicit thread_private(T initial) : initial_(std::move(initial)), index_(detail::iso::register_thread_private()) {}
  thread_private(const thread_private&) = delete;
  thread_private& operator=(const thread_private&) = delete;

  /// The calling thread's copy.
  T& get() {
    void*& at = detail::iso::thread_private_entry(index_);
    if (at == nullptr) [[unlikely]] {
      void* p = thread_heap_allocate(sizeof(T), alignof(T) < 16 ? 16 : alignof(T));
      at = ::new (p) T(initial_);
    }
    return *static_cast<T*>(at);
  }
  T& operator*() { return get(); }
  T* operator->() { return &get(); }

 private:
  T initial_;
  std::uint32_t index_;
};

template <class Owner, class F>
void migratable_thread::start(Owner* owner, F fn, thread_options options) {
  static_assert(std::is_invocable_v<F&>, "roam: a migratable thread runs fn() with no arguments");
  static_assert(sizeof(F) <= detail::ult_inline_body_max,
                "roam: a migratable thread's function must be small (it lives at the top of its stack, which "
                "moves with it): capture less, or keep the state in the owner");
  // The closure lives at the top of the thread's stack and moves with it:
  // nothing in it may point to this process's heap (the name is the binary's).
  static constexpr std::string_view owner_type = roam::type_name<Owner>();
  struct body {
    F fn;
  };
  void* at = nullptr;
  start_erased(
      owner, owner_type, sizeof(body), alignof(body),
      [](void* b, bool run) noexcept {
        body* self = std::launder(static_cast<body*>(b));
        if (run) {
          try {
            self->fn();
          } catch (const detail::thread_unwind&) {
          } catch (...) {
            detail::report_task_failure(std::current_exception(),
                                        "migratable thread of " + std::string(owner_type));
          }
        }
        self->~body();
      },
      at, options);
  try {
    ::new (at) body{std::move(fn)};
  } catch (...) {
    abandon();
    throw;
  }
  launch();
}

}  // namespace roam
