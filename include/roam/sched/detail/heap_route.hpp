#pragma once
// Heap routing for migratable threads (docs/design/isomalloc.md): while a
// migratable thread started with thread_options{.isomalloc_heap = true}
// runs, the program's malloc and operator new (replaced by the roam::iso_heap
// library) serve it from its isomalloc slot, so what it allocates moves with
// it. The runtime's own allocations must never land there: memory the
// runtime keeps (queues, tables, messages) outlives the call and is used on
// other PEs, where the thread's slot may not be. Runtime code that a thread
// can call pauses the routing (heap_route_pause); the scheduler sets and
// saves it at each switch (src/sched/ult.cpp).

namespace roam::detail {

/// The running migratable thread's record when its allocations go to its
/// slot heap, else null (on the scheduler's stack, on ordinary threads,
/// inside the runtime). Read by the replaced malloc on every call.
extern constinit thread_local void* tls_heap_route;

/// Sends the allocations of its scope to the process heap. The compiler
/// barriers matter: compilers assume malloc reads no program memory, and
/// would otherwise drop the first store as dead or move calls across them.
class heap_route_pause {
 public:
  heap_route_pause() noexcept : saved_(tls_heap_route) {
    tls_heap_route = nullptr;
    asm volatile("" ::: "memory");
  }
  ~heap_route_pause() {
    asm volatile("" ::: "memory");
    tls_heap_route = saved_;
  }
  heap_route_pause(const heap_route_pause&) = delete;
  heap_route_pause& operator=(const heap_route_pause&) = delete;
  /// Whether the scope paused a routed thread (its values may live in the slot heap).
  bool paused_a_thread() const noexcept { return saved_ != nullptr; }

 private:
  void* saved_;
};

}  // namespace roam::detail
