#pragma once
// The first page of a migratable thread's slot (thread.cpp): where its heap
// and stack are, who holds it, its thread_private table. It moves with the
// thread, at the same address, so everything in it is the thread's.
#include <cstddef>
#include <cstdint>
#include <string>

#include <roam/iso/detail/slot_heap.hpp>
#include <roam/iso/thread.hpp>
#include <roam/sched/detail/ult.hpp>

namespace roam::detail::iso {

inline constexpr std::uint64_t record_magic = 0x726f616d2d746872;  // "roam-thr"

struct thread_record {
  std::uint64_t magic;
  std::uint32_t slot;
  bool heap_made;
  bool suspended;  // blocked in suspend_this_thread (resume() wakes it)
  std::uint64_t serial;
  ult* thread;                  // its control block, at the top of its stack
  migratable_thread* holder;    // where the object holding it is now
  std::ptrdiff_t owner_offset;  // holder - owner
  std::uintptr_t heap_begin;
  std::uintptr_t heap_limit;
  std::byte* stack_lo;
  std::size_t stack_size;
  const char* owner_type;  // the binary's text: the same everywhere
  std::size_t owner_type_size;
  void** privates;  // thread_private copies by variable number, in the thread's heap
  std::uint32_t privates_size;

  static void ended(ult* t) noexcept;
};

/// The record's heap, made at its first use; empty (and `error`) if it cannot be.
slot_heap heap_of(thread_record& r, std::string& error);

}  // namespace roam::detail::iso
