#pragma once
// Per-PE message memory: size-classed free lists, so that the steady-state
// message path allocates nothing from the heap. A block freed on another PE
// goes back to its owner in batches through one lock-free stack, so a
// one-directional stream does not leak memory into the receiver.
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace roam::detail {

/// Prefix of every pooled block; the caller's memory follows it.
struct alignas(16) block_header {
  block_header* next;
  std::uint32_t origin;      ///< PE whose pool owns the block
  std::uint8_t size_class;   ///< index into the class table, or heap_class
};

inline constexpr int pool_class_count = 11;  // 64 B .. 64 KiB blocks, header included
inline constexpr std::uint8_t heap_class = 0xff;
/// A heap block of 32 KiB or more, from the machine layer's block cache
/// (byte_block.hpp): large messages reuse memory whose pages are mapped
/// instead of page-faulting a fresh mmap each time.
inline constexpr std::uint8_t cached_heap_class = 0xfe;
inline constexpr std::uint32_t no_origin = 0xffffffffu;

/// Size class for a request of `bytes` (header excluded), or heap_class when too big
/// (allocate_slow then takes large ones from the block cache: cached_heap_class).
constexpr std::uint8_t size_class_for(std::size_t bytes) noexcept {
  std::size_t total = bytes + sizeof(block_header);
  if (total <= 64) return 0;
  auto c = static_cast<unsigned>(std::bit_width(total - 1)) - 6u;
  return c < pool_class_count ? static_cast<std::uint8_t>(c) : heap_class;
}
constexpr std::size_t class_bytes(std::uint8_t c) noexcept { return std::size_t{64} << c; }

class message_pool {
 public:
  message_pool() = default;
  message_pool(const message_pool&) = delete;
  message_pool& operator=(const message_pool&) = delete;
  ~message_pool();

  /// Prepares the pool of PE `owner` among `pe_count`; call before first use.
  void init(std::uint32_t owner, std::uint32_t pe_count);

  /// Owner thread only. Never fails (aborts on out-of-memory like operator new).
  void* allocate(std::size_t bytes) {
    std::uint8_t c = size_class_for(bytes);
    if (c != heap_class) {
      if (block_header* b = free_[c]) {
        free_[c] = b->next;
        --free_count_[c];
        return b + 1;
      }
    }
    return allocate_slow(c, bytes);
  }

  /// Owner thread of this pool (the PE freeing), for a block of any origin.
  /// Another PE's block is adopted while this class's free list is short: the
  /// block was just read here, so reusing it for the next send (a reply, say)
  /// costs no transfer of its cache lines from the other core. Beyond that
  /// it goes home in batches, so a one-way stream does not pile up here.
  void deallocate(void* p) noexcept {
    block_header* b = static_cast<block_header*>(p) - 1;
    std::uint8_t c = b->size_class;
    if (c < pool_class_count && (b->origin == owner_ || free_count_[c] < adopt_limit)) {
      b->origin = owner_;
      b->next = free_[c];
      free_[c] = b;
      ++free_count_[c];
      return;
    }
    deallocate_slow(b);
  }

  /// Sends every partly filled return batch home; called when the PE goes idle.
  void flush_returns() noexcept;

  /// Frees a block from a thread that is not a PE (teardown, foreign threads).
  static void deallocate_foreign(void* p) noexcept;
  /// Allocates from the heap for a thread that is not a PE.
  static void* allocate_foreign(std::size_t bytes);

 private:
  struct return_batch {
    block_header* head = nullptr;
    block_header* tail = nullptr;
    std::uint32_t count = 0;
  };
  void* allocate_slow(std::uint8_t c, std::size_t bytes);
  // Heap blocks: from the block cache from cached_heap_min bytes (header included), else malloc.
  static void* allocate_heap(std::size_t bytes, std::uint32_t origin);
  static void free_heap(block_header* b) noexcept;
  static constexpr std::size_t cached_heap_min = std::size_t{32} << 10;
  void deallocate_slow(block_header* b) noexcept;
  void take_returned() noexcept;
  void push_returned(block_header* head, block_header* tail) noexcept;

  static constexpr std::uint32_t adopt_limit = 256;

  std::uint32_t owner_ = no_origin;
  block_header* free_[pool_class_count] = {};
  std::uint32_t free_count_[pool_class_count] = {};
  std::vector<return_batch> returns_;   // indexed by origin PE
  std::vector<void*> slabs_;
  alignas(64) std::atomic<block_header*> returned_{nullptr};  // pushed by other PEs
};

}  // namespace roam::detail
