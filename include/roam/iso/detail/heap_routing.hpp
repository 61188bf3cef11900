#pragma once
// What the replaced malloc of roam::iso_heap (src/iso/interpose/) calls:
// allocations of a migratable thread started with isomalloc_heap go to its
// slot heap while it runs (heap_route.hpp); a block inside the isomalloc
// range goes back to the heap of its slot, whoever frees it.
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace roam::detail::iso {

/// The reserved range [lo, hi) (both 0 when there is none), for the test on
/// every free(): two loads and a compare.
inline std::atomic<std::uintptr_t> g_range_lo{0};
inline std::atomic<std::uintptr_t> g_range_hi{0};
inline bool in_range(const void* p) noexcept {
  const std::uintptr_t lo = g_range_lo.load(std::memory_order_relaxed);
  return reinterpret_cast<std::uintptr_t>(p) - lo < g_range_hi.load(std::memory_order_relaxed) - lo;
}

/// `bytes` aligned to `align` (a power of two) from the heap of the running
/// routed thread (tls_heap_route), or nullptr with errno ENOMEM.
void* routed_allocate(std::size_t bytes, std::size_t align) noexcept;
/// Gives back a block of the range to its slot's heap. A block whose thread
/// is not in this process (it moved away or ended) cannot be: it is left as
/// it is and the first few such frees are reported.
void routed_release(void* p) noexcept;
/// realloc for a block of the range: it stays in its slot's heap.
void* routed_reallocate(void* p, std::size_t bytes) noexcept;
/// malloc_usable_size for a block of the range.
std::size_t routed_usable_size(const void* p) noexcept;
/// Frees of blocks whose thread was not here (see routed_release), since the run started.
std::uint64_t stray_frees() noexcept;

}  // namespace roam::detail::iso

/// Defined by the roam::iso_heap library (the replaced malloc): a thread asks
/// for isomalloc_heap only where it is linked.
extern "C" [[gnu::weak]] void roam_iso_heap_linked();
