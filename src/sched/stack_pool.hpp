#pragma once
// Stacks of user-level threads: one mmap each, the lowest page a guard
// (PROT_NONE), so that overflowing a stack is a SIGSEGV at the guard instead of
// silent corruption of whatever lies below. A PE keeps the stacks its
// finished threads gave back and reuses them (no system call per thread);
// above a cap they are unmapped. Owned by one PE thread; not thread-safe.
#include <cstddef>
#include <vector>

namespace roam::detail {

/// A usable stack: [lo, lo + size), with the guard page just below lo.
struct ult_stack {
  std::byte* lo = nullptr;
  std::size_t size = 0;
};

class stack_pool {
 public:
  /// Stacks of `size` bytes (rounded up to whole pages); at most `max_cached`
  /// kept for reuse.
  stack_pool(std::size_t size, std::size_t max_cached) noexcept;
  stack_pool(const stack_pool&) = delete;
  stack_pool& operator=(const stack_pool&) = delete;
  ~stack_pool();

  /// A stack, reused or newly mapped. Aborts with a message naming the size
  /// when the system refuses the mapping.
  ult_stack take();
  /// Takes back a stack of this pool (its contents are dead).
  void give(ult_stack s) noexcept;

  std::size_t stack_size() const noexcept { return size_; }
  std::size_t cached() const noexcept { return free_.size(); }
  /// Stacks mapped now (in use or cached) and mapped so far (tests: reuse).
  std::size_t mapped() const noexcept { return mapped_; }
  std::size_t mapped_total() const noexcept { return mapped_total_; }
  /// The guard page size, the system page size.
  static std::size_t page_size() noexcept;

 private:
  void unmap(ult_stack s) noexcept;

  std::size_t size_;
  std::size_t max_cached_;
  std::vector<ult_stack> free_;
  std::size_t mapped_ = 0;
  std::size_t mapped_total_ = 0;
};

}  // namespace roam::detail
