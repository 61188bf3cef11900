#include "stack_pool.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <roam/sched/detail/runtime_state.hpp>

#include "sanitizers.hpp"

namespace roam::detail {

std::size_t stack_pool::page_size() noexcept {
  static const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

stack_pool::stack_pool(std::size_t size, std::size_t max_cached) noexcept : max_cached_(max_cached) {
  std::size_t page = page_size();
  size_ = (size + page - 1) / page * page;
  free_.reserve(max_cached);
}

stack_pool::~stack_pool() {
  for (ult_stack s : free_) unmap(s);
}

ult_stack stack_pool::take() {
  if (!free_.empty()) {
    ult_stack s = free_.back();
    free_.pop_back();
    return s;
  }
  std::size_t page = page_size();
  // MAP_NORESERVE: a stack costs address space, and memory only for the
  // pages a thread actually touches.
  void* p = mmap(nullptr, size_ + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                 -1, 0);
  if (p == MAP_FAILED || mprotect(p, page, PROT_NONE) != 0) {
    int err = errno;
    if (p != MAP_FAILED) munmap(p, size_ + page);
    report_fatal("cannot map a user-level thread stack of " + std::to_string(size_) + " bytes (" +
                 std::to_string(mapped_) + " mapped on this PE): " + std::strerror(err) +
                 " (a smaller +ulstack, or fewer threads alive at once; vm.max_map_count limits the number)");
    std::abort();  // report_fatal only asks the PEs to stop; there is no stack to return
  }
  ++mapped_;
  ++mapped_total_;
  return {static_cast<std::byte*>(p) + page, size_};
}

void stack_pool::give(ult_stack s) noexcept {
#if defined(ROAM_I_ASAN)
  // The last frames of a finished thread never returned: ASan would keep
  // their red zones poisoned for the next thread on this stack (or the next
  // mapping at this address).
  __asan_unpoison_memory_region(s.lo, s.size);
#endif
  if (free_.size() < max_cached_) free_.push_back(s);
  else unmap(s);
}

void stack_pool::unmap(ult_stack s) noexcept {
  std::size_t page = page_size();
  munmap(s.lo - page, s.size + page);
  --mapped_;
}

}  // namespace roam::detail
