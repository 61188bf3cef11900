#pragma once
// Reference-counted blocks of bytes: the memory of zero-copy message segments
// (roam::buffer<T> on the sending side, received segments on the other) and
// of anything else that must outlive a send without being copied.
//
// Invariants
// - A shared_block is followed by `capacity` bytes, 64-byte aligned. Its
//   contents start uninitialised.
// - `refs` counts the block_refs that own it. The last release returns the
//   block to a process-wide cache of large blocks (so a MiB buffer that comes
//   and goes per message does not page-fault anew each time) or to the system.
// - Any thread may retain or release a block; the release that drops the count
//   to zero happens-after every use of the contents through other references
//   (acq_rel), so the next owner of a recycled block sees no stale writes.
// - The bytes are written only by whoever made the block (before sharing it)
//   or by an owner that holds the only reference (unique()).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace roam::detail {

/// The header in front of a block's bytes.
struct alignas(64) shared_block {
  std::atomic<std::uint32_t> refs;
  std::uint32_t size_class;  ///< cache class, or block_uncached
  std::size_t capacity;      ///< usable bytes after the header (at least what was asked for)

  std::byte* data() noexcept { return reinterpret_cast<std::byte*>(this + 1); }
};
static_assert(sizeof(shared_block) == 64);

inline constexpr std::uint32_t block_uncached = ~std::uint32_t{0};

/// A new block of at least `bytes` uninitialised bytes with one reference.
/// Blocks of 32 KiB and more are reused from the cache when one of their size
/// class is free. Throws std::bad_alloc. Any thread.
shared_block* allocate_block(std::size_t bytes);
/// Returns a block whose last reference is gone (to the cache, or the system). Any thread.
void free_block(shared_block* b) noexcept;

/// What the block cache holds now (tests and diagnostics).
struct block_cache_stats {
  std::size_t cached_blocks = 0;
  std::size_t cached_bytes = 0;
  std::uint64_t hits = 0;    ///< allocations served from the cache
  std::uint64_t misses = 0;  ///< cacheable allocations that went to the system
};
block_cache_stats block_cache_snapshot() noexcept;
/// Frees every cached block (tests; memory pressure).
void block_cache_clear() noexcept;
/// Asks the cache to keep up to `bytes` of freed blocks, of any size, on
/// top of its usual bound (0 withdraws the request). For a user that frees
/// that much and allocates it again soon: in-memory checkpoints drop the
/// previous checkpoint's files and the next one needs as much again, and
/// reusing mapped pages saves a page fault and a zeroed page per 4 KiB. Any thread.
void block_cache_hold(std::size_t bytes) noexcept;

/// An owning reference to a block (like a shared_ptr without the control block).
class block_ref {
 public:
  block_ref() noexcept = default;
  /// Takes over one existing reference to `b` (may be null).
  explicit block_ref(shared_block* b) noexcept : b_(b) {}
  /// A new block of at least `bytes` uninitialised bytes; throws std::bad_alloc.
  static block_ref allocate(std::size_t bytes) { return block_ref(allocate_block(bytes)); }
  /// A new reference to a block someone else owns (may be null).
  static block_ref share(shared_block* b) noexcept {
    if (b) b->refs.fetch_add(1, std::memory_order_relaxed);
    return block_ref(b);
  }

  block_ref(const block_ref& o) noexcept : b_(o.b_) {
    if (b_) b_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  block_ref(block_ref&& o) noexcept : b_(std::exchange(o.b_, nullptr)) {}
  block_ref& operator=(block_ref o) noexcept {
    std::swap(b_, o.b_);
    return *this;
  }
  ~block_ref() { reset(); }

  /// Drops this reference (the block is freed if it was the last).
  void reset() noexcept {
    if (shared_block* b = std::exchange(b_, nullptr)) {
      if (b->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) free_block(b);
    }
  }
  /// Gives up this reference without dropping it; the caller now owns it.
  shared_block* release() noexcept { return std::exchange(b_, nullptr); }

  shared_block* get() const noexcept { return b_; }
  std::byte* data() const noexcept { return b_ ? b_->data() : nullptr; }
  std::size_t capacity() const noexcept { return b_ ? b_->capacity : 0; }
  /// True when this is the only reference: the bytes may be written.
  bool unique() const noexcept { return b_ && b_->refs.load(std::memory_order_acquire) == 1; }
  /// The number of references (a snapshot; exact only when unique()).
  std::uint32_t use_count() const noexcept { return b_ ? b_->refs.load(std::memory_order_acquire) : 0; }
  explicit operator bool() const noexcept { return b_ != nullptr; }

 private:
  shared_block* b_ = nullptr;
};

}  // namespace roam::detail
