// Heap routing (include/roam/iso/detail/heap_routing.hpp): the slot-heap side
// of the replaced malloc. Every entry pauses the routing first: what the
// heap itself allocates (an error's text) is the process's, and a nested
// malloc must not come back here.
#include <roam/iso/detail/heap_routing.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include <roam/iso/detail/region.hpp>
#include <roam/iso/detail/slot_heap.hpp>
#include <roam/sched/detail/heap_route.hpp>
#include <roam/sched/detail/pe_state.hpp>
#include <roam/sched/detail/ult.hpp>

#include "thread_record.hpp"

namespace roam::detail::iso {

namespace {

std::atomic<std::uint64_t> g_stray_frees{0};
constexpr std::uint64_t stray_reports = 5;

// The heap of the slot holding `p` when that slot's thread is in this
// process (the calling thread's own slot needs no lookup), else empty.
slot_heap heap_holding(const void* p) noexcept {
  const region_layout& l = layout();
  const std::uint32_t slot = l.slot_of(reinterpret_cast<std::uintptr_t>(p));
  if (slot == ~0u) return {};
  auto* mine = static_cast<thread_record*>(ult_current_user());
  if (mine == nullptr || mine->slot != slot) {
    if (!slot_live_here(slot)) return {};
    mine = reinterpret_cast<thread_record*>(l.slot_address(slot));
    if (mine->magic != record_magic || mine->slot != slot) return {};
  }
  if (!mine->heap_made) return {};
  slot_heap h = slot_heap::at(mine->heap_begin);
  return h && h.owns(p) ? h : slot_heap{};
}

void report_stray(const void* p, const char* what) noexcept {
  const std::uint64_t n = g_stray_frees.fetch_add(1, std::memory_order_relaxed);
  if (n >= stray_reports) return;
  const region_layout& l = layout();
  const std::string text =
      "roam: pe " + std::to_string(tls_pe ? tls_pe->id() : 0) + ": " + what + " of a block in isomalloc slot " +
      std::to_string(l.slot_of(reinterpret_cast<std::uintptr_t>(p))) +
      ", whose migratable thread is not in this process (it moved away or ended): the block is left as it is. A "
      "thread started with isomalloc_heap allocates from its own slot; what it hands to others must be made inside "
      "a roam::process_heap_scope" +
      (n + 1 == stray_reports ? std::string(" (further ones are not reported)") : std::string()) + "\n";
  [[maybe_unused]] const ssize_t written = ::write(2, text.data(), text.size());
}

}  // namespace

void* routed_allocate(std::size_t bytes, std::size_t align) noexcept {
  auto* r = static_cast<thread_record*>(tls_heap_route);
  heap_route_pause pause;
  std::string error;
  slot_heap h = r ? heap_of(*r, error) : slot_heap{};
  void* p = nullptr;
  if (h) {
    h.lock();
    p = h.allocate(bytes, std::max<std::size_t>(align, 16));
    h.unlock();
  }
  if (p == nullptr) errno = ENOMEM;
  return p;
}

void routed_release(void* p) noexcept {
  heap_route_pause pause;
  slot_heap h = heap_holding(p);
  if (!h) return report_stray(p, "free");
  h.lock();
  h.release(p);
  h.unlock();
}

void* routed_reallocate(void* p, std::size_t bytes) noexcept {
  heap_route_pause pause;
  slot_heap h = heap_holding(p);
  if (!h) {
    report_stray(p, "realloc");
    errno = ENOMEM;
    return nullptr;
  }
  h.lock();
  void* q = h.reallocate(p, bytes);
  h.unlock();
  if (q == nullptr) errno = ENOMEM;
  return q;
}

std::size_t routed_usable_size(const void* p) noexcept {
  heap_route_pause pause;
  slot_heap h = heap_holding(p);
  return h ? h.usable_size(p) : 0;
}

std::uint64_t stray_frees() noexcept { return g_stray_frees.load(std::memory_order_relaxed); }

}  // namespace roam::detail::iso
