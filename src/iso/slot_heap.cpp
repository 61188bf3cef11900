// The heap inside a slot (include/roam/iso/detail/slot_heap.hpp). Blocks
// carry a 16-byte header: their size and what they are; free ones keep the
// next free block's address in their payload, so everything a move must
// carry is in the slot's used pages.
#include <roam/iso/detail/slot_heap.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

#include <roam/iso/detail/region.hpp>

namespace roam::detail::iso {

namespace {

constexpr std::uint64_t heap_magic = 0x70616568'6d616f72ull;  // "roamheap"
constexpr std::size_t block_header = 16;
constexpr std::size_t classes[] = {16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096};
constexpr std::uint32_t class_count = sizeof(classes) / sizeof(classes[0]);
constexpr std::size_t small_max = 4096;
constexpr std::size_t grow_step = 64 * 1024;
constexpr std::size_t heap_page = 4096;
/// block::size of an alignment tag: the header right before an
/// over-aligned payload, whose info is its distance from the real payload.
constexpr std::uint64_t aligned_tag = ~std::uint64_t{0};
constexpr std::uint64_t free_bit = std::uint64_t{1} << 63;

std::size_t round_up(std::size_t n, std::size_t to) noexcept { return (n + to - 1) / to * to; }

std::uint32_t class_of(std::size_t n) noexcept {
  std::uint32_t c = 0;
  while (classes[c] < n) ++c;
  return c;
}

}  // namespace

struct block {
  std::uint64_t size;  ///< the whole block, header included; aligned_tag for a tag
  std::uint64_t info;  ///< free_bit | small: class + 1, large: 0; a tag: offset back to the payload
  std::byte* payload() noexcept { return reinterpret_cast<std::byte*>(this) + block_header; }
  block*& next_free() noexcept { return *reinterpret_cast<block**>(payload()); }
  static block* of(const void* payload) noexcept {
    return reinterpret_cast<block*>(const_cast<std::byte*>(static_cast<const std::byte*>(payload)) - block_header);
  }
};

struct slot_heap::header {
  std::uint64_t magic;
  std::uintptr_t begin;   ///< the heap's range, this header first
  std::uintptr_t limit;
  std::uintptr_t brk;     ///< blocks end here
  std::uintptr_t opened;  ///< pages are accessible up to here
  std::uint64_t in_use_bytes;
  std::uint64_t in_use_blocks;
  block* small_free[class_count];
  block* large_free;  ///< address order
  std::uint32_t lock_word;
};

slot_heap slot_heap::create(std::uintptr_t begin, std::uintptr_t limit, std::string& error) {
  if (begin % heap_page != 0 || limit <= begin + heap_page) {
    error = "a slot heap needs a page-aligned range of more than one page";
    return {};
  }
  if (!open_pages(begin, heap_page, error)) return {};
  auto* h = reinterpret_cast<header*>(begin);
  *h = header{};
  h->magic = heap_magic;
  h->begin = begin;
  h->limit = limit;
  h->brk = begin + round_up(sizeof(header), 64);
  h->opened = begin + heap_page;
  return slot_heap(h);
}

slot_heap slot_heap::at(std::uintptr_t begin) noexcept {
  auto* h = reinterpret_cast<header*>(begin);
  return h->magic == heap_magic ? slot_heap(h) : slot_heap();
}

void* slot_heap::grow(std::size_t bytes) noexcept {
  if (bytes > h_->limit - h_->brk) return nullptr;
  const std::uintptr_t end = h_->brk + bytes;
  if (end > h_->opened) {
    const std::uintptr_t to = std::min<std::uintptr_t>(round_up(end, grow_step), h_->limit);
    std::string error;
    if (!open_pages(h_->opened, to - h_->opened, error)) return nullptr;
    h_->opened = to;
  }
  auto* b = reinterpret_cast<block*>(h_->brk);
  h_->brk = end;
  b->size = bytes;
  return b;
}

void* slot_heap::take_small(std::uint32_t cls) noexcept {
  block* b = h_->small_free[cls];
  if (b) {
    h_->small_free[cls] = b->next_free();
  } else {
    b = static_cast<block*>(grow(classes[cls] + block_header));
    if (!b) return nullptr;
  }
  b->info = cls + 1;
  return b;
}

void* slot_heap::take_large(std::size_t bytes) noexcept {
  block** link = &h_->large_free;
  for (block* b = *link; b; link = &b->next_free(), b = *link) {
    if (b->size < bytes) continue;
    if (b->size - bytes >= small_max + block_header) {  // split: the rest stays free, in place
      auto* rest = reinterpret_cast<block*>(reinterpret_cast<std::byte*>(b) + bytes);
      rest->size = b->size - bytes;
      rest->info = free_bit;
      rest->next_free() = b->next_free();
      *link = rest;
      b->size = bytes;
    } else {
      *link = b->next_free();
    }
    b->info = 0;
    return b;
  }
  auto* b = static_cast<block*>(grow(bytes));
  if (b) b->info = 0;
  return b;
}

void* slot_heap::allocate(std::size_t bytes, std::size_t align) noexcept {
  if (align == 0 || (align & (align - 1)) != 0) return nullptr;
  if (bytes > h_->limit - h_->begin) return nullptr;
  if (align > block_header) {
    // Room to move the payload up to the alignment, with a tag before it.
    std::byte* p = static_cast<std::byte*>(allocate(bytes + align + block_header, 16));
    if (!p) return nullptr;
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    if (at % align == 0) return p;
    const std::uintptr_t q = round_up(at + block_header, align);
    block* tag = block::of(reinterpret_cast<void*>(q));
    tag->size = aligned_tag;
    tag->info = q - at;
    return reinterpret_cast<void*>(q);
  }
  const std::size_t n = std::max<std::size_t>(bytes, 1);
  block* b = n <= small_max ? static_cast<block*>(take_small(class_of(n)))
                            : static_cast<block*>(take_large(round_up(n + block_header, 64)));
  if (!b) return nullptr;
  h_->in_use_bytes += b->size - block_header;
  ++h_->in_use_blocks;
  return b->payload();
}

void slot_heap::free_large(block* b) noexcept {
  auto end_of = [](block* x) { return reinterpret_cast<std::byte*>(x) + x->size; };
  b->info = free_bit;
  // Where b goes in the address-ordered list, and the range before it.
  block** link = &h_->large_free;
  block** prev_link = nullptr;
  while (*link && *link < b) {
    prev_link = link;
    link = &(*link)->next_free();
  }
  block* prev = prev_link ? *prev_link : nullptr;
  block* next = *link;
  if (next && end_of(b) == reinterpret_cast<std::byte*>(next)) {  // merge with the range after
    b->size += next->size;
    next = next->next_free();
  }
  block** b_link = link;
  if (prev && end_of(prev) == reinterpret_cast<std::byte*>(b)) {  // and with the one before
    prev->size += b->size;
    b = prev;
    b_link = prev_link;
  }
  b->next_free() = next;
  *b_link = b;
  // A free range at the top goes back below the break: a move copies less.
  if (!next && reinterpret_cast<std::uintptr_t>(end_of(b)) == h_->brk) {
    h_->brk = reinterpret_cast<std::uintptr_t>(b);
    *b_link = nullptr;
  }
}

void slot_heap::release(void* p) noexcept {
  if (!p) return;
  block* b = block::of(p);
  if (b->size == aligned_tag) b = block::of(static_cast<std::byte*>(p) - b->info);
  h_->in_use_bytes -= b->size - block_header;
  --h_->in_use_blocks;
  if (const std::uint64_t cls = b->info & ~free_bit; cls != 0) {
    b->info = free_bit | cls;
    b->next_free() = h_->small_free[cls - 1];
    h_->small_free[cls - 1] = b;
    return;
  }
  free_large(b);
}

std::size_t slot_heap::usable_size(const void* p) const noexcept {
  const block* b = block::of(p);
  if (b->size == aligned_tag) return usable_size(static_cast<const std::byte*>(p) - b->info) - b->info;
  return b->size - block_header;
}

void* slot_heap::reallocate(void* p, std::size_t bytes) noexcept {
  if (!p) return allocate(bytes);
  if (bytes == 0) {
    release(p);
    return nullptr;
  }
  const std::size_t have = usable_size(p);
  if (bytes <= have) return p;
  void* q = allocate(bytes);
  if (!q) return nullptr;
  std::memcpy(q, p, have);
  release(p);
  return q;
}

bool slot_heap::owns(const void* p) const noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  return a > h_->begin && a < h_->limit;
}

void slot_heap::lock() noexcept {
  std::atomic_ref<std::uint32_t> word(h_->lock_word);
  while (word.exchange(1, std::memory_order_acquire) != 0) {
    while (word.load(std::memory_order_relaxed) != 0) std::this_thread::yield();
  }
}

void slot_heap::unlock() noexcept { std::atomic_ref<std::uint32_t>(h_->lock_word).store(0, std::memory_order_release); }

std::uintptr_t slot_heap::begin() const noexcept { return h_->begin; }
std::uintptr_t slot_heap::used_end() const noexcept { return h_->brk; }
std::uintptr_t slot_heap::limit() const noexcept { return h_->limit; }
std::uintptr_t slot_heap::opened_end() const noexcept { return h_->opened; }
std::size_t slot_heap::bytes_in_use() const noexcept { return h_->in_use_bytes; }
std::size_t slot_heap::blocks_in_use() const noexcept { return h_->in_use_blocks; }

}  // namespace roam::detail::iso
