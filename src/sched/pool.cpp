#include <cstdlib>
#include <new>

#include <roam/machine/detail/byte_block.hpp>
#include <roam/sched/detail/heap_route.hpp>
#include <roam/sched/detail/runtime_state.hpp>

namespace roam::detail {

namespace {
// Blocks handed back to their owner at once; small enough that an idle
// receiver does not hold much, large enough that the atomic is amortised.
constexpr std::uint32_t return_batch_size = 64;
constexpr std::size_t slab_bytes = 64 * 1024;

void* checked_malloc(std::size_t n) {
  void* p = std::aligned_alloc(64, (n + 63) & ~std::size_t{63});
  if (!p) throw std::bad_alloc();
  return p;
}
}  // namespace

message_pool::~message_pool() {
  for (void* s : slabs_) std::free(s);
}

void message_pool::init(std::uint32_t owner, std::uint32_t pe_count) {
  owner_ = owner;
  returns_.assign(pe_count, {});
}

void* message_pool::allocate_slow(std::uint8_t c, std::size_t bytes) {
  heap_route_pause pause;  // slabs are the PE's, whoever asks
  if (c == heap_class) return allocate_heap(bytes, owner_);
  take_returned();
  if (!free_[c]) {
    // Carve a slab into blocks of this class.
    std::size_t size = class_bytes(c);
    std::size_t count = std::max<std::size_t>(1, slab_bytes / size);
    auto* slab = static_cast<std::byte*>(checked_malloc(size * count));
    slabs_.push_back(slab);
    for (std::size_t i = 0; i < count; ++i) {
      auto* b = reinterpret_cast<block_header*>(slab + i * size);
      b->origin = owner_;
      b->size_class = c;
      b->next = free_[c];
      free_[c] = b;
      ++free_count_[c];
    }
  }
  block_header* b = free_[c];
  free_[c] = b->next;
  --free_count_[c];
  return b + 1;
}

void message_pool::take_returned() noexcept {
  block_header* b = returned_.exchange(nullptr, std::memory_order_acquire);
  while (b) {
    block_header* next = b->next;
    b->next = free_[b->size_class];
    free_[b->size_class] = b;
    ++free_count_[b->size_class];
    b = next;
  }
}

void message_pool::push_returned(block_header* head, block_header* tail) noexcept {
  block_header* old = returned_.load(std::memory_order_relaxed);
  do {
    tail->next = old;
  } while (!returned_.compare_exchange_weak(old, head, std::memory_order_release, std::memory_order_relaxed));
}

void message_pool::deallocate_slow(block_header* b) noexcept {
  heap_route_pause pause;
  if (b->size_class == heap_class || b->size_class == cached_heap_class) {
    free_heap(b);
    return;
  }
  auto& batch = returns_[b->origin];
  b->next = batch.head;
  batch.head = b;
  if (!batch.tail) batch.tail = b;
  if (++batch.count >= return_batch_size) {
    runtime_state* rt = g_runtime.load(std::memory_order_relaxed);
    rt->pe(b->origin).pool().push_returned(batch.head, batch.tail);
    batch = {};
  }
}

void message_pool::flush_returns() noexcept {
  runtime_state* rt = g_runtime.load(std::memory_order_relaxed);
  if (!rt) return;
  for (std::uint32_t origin = 0; origin < returns_.size(); ++origin) {
    auto& batch = returns_[origin];
    if (batch.count == 0) continue;
    rt->pe(origin).pool().push_returned(batch.head, batch.tail);
    batch = {};
  }
}

void* message_pool::allocate_foreign(std::size_t bytes) {
  heap_route_pause pause;
  return allocate_heap(bytes, no_origin);
}

void* message_pool::allocate_heap(std::size_t bytes, std::uint32_t origin) {
  block_header* b = nullptr;
  if (bytes + sizeof(block_header) >= cached_heap_min) {
    b = reinterpret_cast<block_header*>(allocate_block(bytes + sizeof(block_header))->data());
    b->size_class = cached_heap_class;
  } else {
    b = static_cast<block_header*>(checked_malloc(bytes + sizeof(block_header)));
    b->size_class = heap_class;
  }
  b->next = nullptr;
  b->origin = origin;
  return b + 1;
}

void message_pool::free_heap(block_header* b) noexcept {
  if (b->size_class == cached_heap_class) free_block(reinterpret_cast<shared_block*>(b) - 1);
  else std::free(b);
}

void message_pool::deallocate_foreign(void* p) noexcept {
  block_header* b = static_cast<block_header*>(p) - 1;
  if (b->size_class == heap_class || b->size_class == cached_heap_class) {
    free_heap(b);
    return;
  }
  // A pooled block freed off-PE (teardown): hand it back to its owner.
  runtime_state* rt = g_runtime.load(std::memory_order_relaxed);
  if (rt) {
    b->next = nullptr;
    rt->pe(b->origin).pool().push_returned(b, b);
  }
}

}  // namespace roam::detail
