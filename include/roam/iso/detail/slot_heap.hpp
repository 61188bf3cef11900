#pragma once
// A heap inside an isomalloc slot (region.hpp): malloc, free, realloc and
// aligned allocation served from the slot's own pages, with every piece of
// bookkeeping (free lists, the break, counters) inside the slot too. Copying
// the slot's used pages to the same addresses in another process therefore
// moves the heap whole: pointers into it, and its free lists, stay valid.
//
// Small blocks (up to 4 KiB) come from per-size-class free lists; larger
// ones from an address-ordered list of free ranges, split and merged again
// with their neighbours. Pages are opened as the break grows, 64 KiB at a
// time. Callers that may meet (the thread, and a PE freeing a block the
// thread handed it) take the heap's lock, which lives in the slot too.
#include <cstddef>
#include <cstdint>
#include <string>

namespace roam::detail::iso {

class slot_heap {
 public:
  /// Makes a new, empty heap in [begin, limit) (page-aligned; begin's first
  /// page holds the bookkeeping). Empty on failure, and `error` says why.
  static slot_heap create(std::uintptr_t begin, std::uintptr_t limit, std::string& error);
  /// The heap whose pages are already at `begin` (made by create, here or in
  /// another process).
  static slot_heap at(std::uintptr_t begin) noexcept;
  slot_heap() = default;

  explicit operator bool() const noexcept { return h_ != nullptr; }

  /// `bytes` aligned to `align` (a power of two; 16 at least), or nullptr
  /// when the heap cannot grow that far (or the alignment is not a power of two).
  void* allocate(std::size_t bytes, std::size_t align = 16) noexcept;
  /// A spin lock in the header: never held while the heap is copied (the
  /// thread is blocked then, and frees from others are short).
  void lock() noexcept;
  void unlock() noexcept;
  /// Gives a block back (nullptr: nothing). The block must be this heap's.
  void release(void* p) noexcept;
  /// realloc's contract: the contents up to the smaller size move along;
  /// nullptr (and `p` untouched) when there is no room.
  void* reallocate(void* p, std::size_t bytes) noexcept;
  /// Bytes usable at `p` (at least what was asked for).
  std::size_t usable_size(const void* p) const noexcept;
  /// Whether `p` lies in this heap's range.
  bool owns(const void* p) const noexcept;

  std::uintptr_t begin() const noexcept;
  /// The end of the part ever used: what a move must copy is [begin, used_end).
  std::uintptr_t used_end() const noexcept;
  std::uintptr_t limit() const noexcept;
  /// Pages are accessible up to here (a copy elsewhere must open as much).
  std::uintptr_t opened_end() const noexcept;
  std::size_t bytes_in_use() const noexcept;  ///< payload bytes of live blocks
  std::size_t blocks_in_use() const noexcept;

  struct header;

 private:
  explicit slot_heap(header* h) noexcept : h_(h) {}
  void* take_small(std::uint32_t cls) noexcept;
  void* take_large(std::size_t block_bytes) noexcept;
  void* grow(std::size_t block_bytes) noexcept;
  void free_large(struct block* b) noexcept;
  header* h_ = nullptr;
};

}  // namespace roam::detail::iso
