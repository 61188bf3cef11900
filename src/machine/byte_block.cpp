// Block allocation and the cache of large blocks (include/roam/machine/detail/byte_block.hpp).
//
// Why a cache: a freshly allocated MiB block comes from mmap and page-faults
// on every first touch (256 faults per MiB, each a kernel entry and a zeroed
// page): in the 1 MiB ping-pong that was ~5 % of the time, paid on every hop,
// because every message allocated a new block and freed the last one. Freed
// large blocks are therefore kept, in size classes of a quarter power of two
// (at most 25 % slack), and reused: a steady stream of same-sized messages
// runs on two or three blocks whose pages stay mapped. The cache is bounded
// (per class and in total) so an occasional huge message is returned to the
// system. docs/design/zero-copy.md discusses the alternative (mallopt).
#include <roam/machine/detail/byte_block.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <mutex>
#include <new>
#include <vector>

namespace roam::detail {

namespace {

constexpr std::size_t cache_min = std::size_t{32} << 10;    // smaller blocks: malloc is fast and warm already
constexpr std::size_t cache_max = std::size_t{256} << 20;   // larger: rare, and too big to keep (unless held)
constexpr std::size_t per_class_limit = 4;                  // a ping-pong needs two or three
constexpr std::size_t total_limit = std::size_t{128} << 20; // bytes kept, over all classes (unless held)
constexpr std::size_t class_max = std::size_t{1} << 36;     // the largest class (64 GiB), for held blocks
constexpr std::uint32_t class_count = 88;                   // (32 KiB, 64 GiB] in quarter powers of two

// block_cache_hold's request: raises both bounds while it stands.
std::atomic<std::size_t> g_held{0};
std::size_t largest_cached() noexcept { return std::min(std::max(cache_max, g_held.load(std::memory_order_relaxed)), class_max); }

struct size_class {
  std::uint32_t index;
  std::size_t bytes;
};

// The class of a request of `bytes` (cache_min <= bytes <= class_max): 2^e < bytes <= 2^(e+1) is split into
// four steps of 2^(e-2).
size_class class_of(std::size_t bytes) noexcept {
  const auto e = static_cast<std::uint32_t>(std::bit_width(bytes - 1) - 1);  // 2^e <= bytes-1 < 2^(e+1)
  const std::size_t step = std::size_t{1} << (e - 2);
  const std::size_t q = (bytes + step - 1) / step;  // 5..8
  return {(e - 14) * 4 + static_cast<std::uint32_t>(q - 5), q * step};
}

struct block_cache {
  std::mutex mutex;
  std::vector<shared_block*> free[class_count];
  std::size_t cached_bytes = 0;
  std::size_t cached_blocks = 0;
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
};

// Never destroyed: blocks may be released by other static destructors.
block_cache& cache() {
  static block_cache* c = new block_cache;
  return *c;
}

shared_block* new_block(std::size_t capacity, std::uint32_t cls) {
  void* p = ::operator new(sizeof(shared_block) + capacity, std::align_val_t{64});
  auto* b = ::new (p) shared_block;
  b->refs.store(1, std::memory_order_relaxed);
  b->size_class = cls;
  b->capacity = capacity;
  return b;
}

void delete_block(shared_block* b) noexcept {
  b->~shared_block();
  ::operator delete(static_cast<void*>(b), std::align_val_t{64});
}

}  // namespace

shared_block* allocate_block(std::size_t bytes) {
  // Every large block gets its class (its capacity rounded up: address
  // space only, the tail is never touched), so that one allocated before a
  // hold can still be kept when it is freed under it.
  if (bytes < cache_min || bytes > class_max) return new_block(bytes, block_uncached);
  const size_class c = class_of(bytes);
  auto& k = cache();
  {
    std::lock_guard lock(k.mutex);
    auto& list = k.free[c.index];
    if (!list.empty()) {
      shared_block* b = list.back();  // most recently freed: its lines may still be in cache
      list.pop_back();
      k.cached_bytes -= b->capacity;
      --k.cached_blocks;
      ++k.hits;
      b->refs.store(1, std::memory_order_relaxed);
      return b;
    }
    ++k.misses;
  }
  return new_block(c.bytes, c.index);
}

void free_block(shared_block* b) noexcept {
  // Blocks of other classes evicted to make room for this one, freed after the lock.
  std::array<shared_block*, 8> evicted{};
  std::size_t n_evicted = 0;
  bool kept = false;
  if (b->size_class != block_uncached) {
    auto& k = cache();
    std::lock_guard lock(k.mutex);
    auto& list = k.free[b->size_class];
    const std::size_t limit = total_limit + g_held.load(std::memory_order_relaxed);
    if (list.size() < per_class_limit && b->capacity <= limit && b->capacity <= largest_cached()) {
      // The newly freed block is the likelier to be asked for again (the
      // sizes a program uses now): room is made by evicting blocks of other
      // classes, the largest first.
      const auto needs_room = [&] { return k.cached_bytes + b->capacity > limit && n_evicted < evicted.size(); };
      for (std::uint32_t c = class_count; c-- > 0 && needs_room();) {
        if (c == b->size_class) continue;
        auto& other = k.free[c];
        while (!other.empty() && needs_room()) {
          evicted[n_evicted++] = other.back();
          k.cached_bytes -= other.back()->capacity;
          --k.cached_blocks;
          other.pop_back();
        }
      }
      if (k.cached_bytes + b->capacity <= limit) {
        try {
          list.push_back(b);
          k.cached_bytes += b->capacity;
          ++k.cached_blocks;
          kept = true;
        } catch (...) {
          // No memory for the list entry: free the block instead.
        }
      }
    }
  }
  for (std::size_t i = 0; i < n_evicted; ++i) delete_block(evicted[i]);
  if (!kept) delete_block(b);
}

block_cache_stats block_cache_snapshot() noexcept {
  auto& k = cache();
  std::lock_guard lock(k.mutex);
  return {k.cached_blocks, k.cached_bytes, k.hits, k.misses};
}

void block_cache_clear() noexcept {
  std::vector<shared_block*> all;
  {
    auto& k = cache();
    std::lock_guard lock(k.mutex);
    for (auto& list : k.free) {
      for (shared_block* b : list) {
        try {
          all.push_back(b);
        } catch (...) {
          delete_block(b);  // freeing under the lock is fine, just slower
        }
      }
      list.clear();
    }
    k.cached_bytes = 0;
    k.cached_blocks = 0;
  }
  for (shared_block* b : all) delete_block(b);
}

void block_cache_hold(std::size_t bytes) noexcept {
  if (g_held.exchange(bytes, std::memory_order_relaxed) <= bytes) return;
  // A smaller request: the blocks kept for the old one beyond the new bounds go, largest first.
  std::vector<shared_block*> excess;
  {
    auto& k = cache();
    std::lock_guard lock(k.mutex);
    const std::size_t limit = total_limit + bytes;
    for (std::uint32_t c = class_count; c-- > 0;) {
      auto& list = k.free[c];
      while (!list.empty() && (k.cached_bytes > limit || list.back()->capacity > largest_cached())) {
        shared_block* b = list.back();
        list.pop_back();
        k.cached_bytes -= b->capacity;
        --k.cached_blocks;
        try {
          excess.push_back(b);
        } catch (...) {
          delete_block(b);
        }
      }
    }
  }
  for (shared_block* b : excess) delete_block(b);
}

}  // namespace roam::detail
