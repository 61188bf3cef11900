// Migratable threads (include/roam/iso/thread.hpp): a user-level thread in an
// isomalloc slot, packed and rebuilt at the same addresses.
//
// A slot of a thread, from its base up:
//   [thread_record, one page] [heap ...  ] [guard page] [stack ..... top]
// The record says where everything is; the heap (slot_heap) is made at the
// first thread_heap_allocate; the stack's top holds the thread's control
// block and its function (src/sched/ult.cpp). Pages are opened as used and
// committed by the kernel when touched.
//
// Packed, a thread is its record, the used part of its heap [begin, break)
// and the used part of its stack [saved stack pointer, top): all the
// thread's state, since its registers were saved on its stack when it
// blocked. Rebuilt in a process whose code lies elsewhere (address space
// randomisation) it would return into garbage: the packed thread carries the
// addresses of three functions (this library, the C library, the C++
// runtime) and is refused, with the reason, where they differ.
#include <roam/iso/thread.hpp>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <random>
#include <stdexcept>

#include <roam/iso/detail/heap_routing.hpp>
#include <roam/iso/detail/region.hpp>
#include <roam/iso/detail/slot_heap.hpp>
#include <roam/msg/detail/future_follow.hpp>
#include <roam/msg/detail/packing_to_move.hpp>
#include <roam/obj/detail/migratable.hpp>
#include <roam/sched/detail/pe_state.hpp>
#include <roam/sched/detail/heap_route.hpp>
#include <roam/sched/detail/hook_slot.hpp>
#include <roam/sched/detail/runtime_state.hpp>

#include "thread_record.hpp"

namespace roam::detail::iso {


namespace {

constexpr std::uint32_t packed_magic = 0x524d5448;          // "RMTH"
constexpr std::uint8_t packed_version = 1;
constexpr std::uintptr_t thread_page = 4096;

std::uintptr_t thread_round_up(std::uintptr_t v, std::uintptr_t to) { return (v + to - 1) / to * to; }

[[noreturn]] void not_on_a_migratable_thread(const char* what) {
  throw std::logic_error(std::string("roam: ") + what + " outside a migratable thread");
}

inline thread_record& current_record(const char* what) {
  void* r = ult_current_user();
  if (r == nullptr) [[unlikely]]
    not_on_a_migratable_thread(what);
  return *static_cast<thread_record*>(r);
}

std::string describe(const thread_record& r, std::uint32_t pe) {
  return "migratable thread of " + std::string(r.owner_type, r.owner_type_size) + " (last on pe " +
         std::to_string(pe) + ")";
}

std::uint64_t next_serial(std::uint32_t pe) {
  constinit static thread_local std::uint64_t counter = 0;
  return (std::uint64_t{pe} + 1) << 40 | ++counter;
}

// Code addresses that must be the same where a thread resumes: its frames
// return into this library, the C library and the C++ runtime.
struct code_anchors {
  std::uint64_t roam = reinterpret_cast<std::uint64_t>(&ult_ready);
  std::uint64_t libc = reinterpret_cast<std::uint64_t>(&std::abort);
  std::uint64_t cxx = reinterpret_cast<std::uint64_t>(&std::terminate);
  void pup(pup_er& p) { p | roam | libc | cxx; }
  bool operator==(const code_anchors&) const = default;
};

std::uint32_t pe_here() { return tls_pe ? tls_pe->id() : 0; }

// Tells this process from every other of the job (never 0).
std::uint64_t process_mark() {
  static const std::uint64_t mark = [] {
    std::random_device rd;
    const std::uint64_t m = (std::uint64_t{rd()} << 32) ^ rd();
    return m ? m : 1;
  }();
  return mark;
}

}  // namespace

// Futures made by a thread live in its slot heap (msg/detail/future_follow.hpp).
[[maybe_unused]] const bool g_slot_futures = [] {
  install_hook(g_slot_allocate, &roam::thread_heap_allocate, "g_slot_allocate", "iso (src/iso/thread.cpp)");
  install_hook(g_slot_release, &routed_release, "g_slot_release", "iso (src/iso/thread.cpp)");
  return true;
}();

void thread_record::ended(ult* t) noexcept {
  thread_futures_end(t);  // its unfulfilled futures' states go with the slot
  auto* r = static_cast<thread_record*>(ult_user(t));
  if (r->holder) r->holder->rec_ = nullptr;
  const std::uint32_t slot = r->slot;
  r->magic = 0;
  give_back_slot(pe_here(), slot);  // we are on the scheduler's stack: the slot's memory is free to go
}

}  // namespace roam::detail::iso

namespace roam {

namespace iso = detail::iso;

migratable_thread::~migratable_thread() {
  if (rec_ == nullptr || departed_) return;
  rec_->holder = nullptr;
  if (!detail::ult_unwind(rec_->thread))
    detail::report_fatal("roam: a " + iso::describe(*rec_, iso::pe_here()) +
                         " was destroyed while it was blocked, from another user-level thread (destroy its owner from "
                         "a message handler)");
  rec_ = nullptr;
}

void migratable_thread::start_erased(void* owner, std::string_view owner_type, std::size_t body_bytes, std::size_t align,
                                     detail::ult_body_fn body_fn, void*& body, thread_options options) {
  if (started_) throw std::logic_error("roam: migratable_thread::start: this thread was started already");
  detail::pe_state& pe = detail::this_pe("starting a migratable thread");
  detail::heap_route_pause pause;  // a routed thread may start another: the slot tables are the process's
  if (options.isomalloc_heap && !roam_iso_heap_linked)
    throw std::logic_error("roam: a migratable thread of " + std::string(owner_type) +
                           " asks for isomalloc_heap, but the program does not link roam::iso_heap (the library that "
                           "serves malloc and new from the thread's slot): target_link_libraries(PROGRAM roam::iso_heap)");
  const iso::region_layout& l = iso::layout();
  if (l.size == 0)
    throw std::runtime_error("roam: cannot start a migratable thread: isomalloc is off (+isomalloc_size 0)");
  const std::size_t stack = iso::thread_round_up(options.stack_bytes ? options.stack_bytes : pe.runtime().opts.ul_stack, iso::thread_page);
  if (stack < 4 * iso::thread_page || stack + 4 * iso::thread_page > l.slot_size)
    throw std::runtime_error("roam: a migratable thread's stack of " + std::to_string(stack) +
                             " bytes does not fit its slot of " + std::to_string(l.slot_size) +
                             " bytes (+isomalloc_slot) with a heap (at least 16K of stack)");
  std::string error;
  const std::uint32_t slot = iso::take_slot(pe.id(), error);
  if (slot == ~0u)
    throw std::runtime_error("roam: cannot start a migratable thread of " + std::string(owner_type) + ": " + error);
  const std::uintptr_t base = l.slot_address(slot);
  const std::uintptr_t top = base + l.slot_size;
  auto* lo = reinterpret_cast<std::byte*>(top - stack);
  if (!iso::open_pages(base, iso::thread_page, error) ||
      !iso::open_pages(reinterpret_cast<std::uintptr_t>(lo), stack, error)) {
    iso::give_back_slot(pe.id(), slot);
    throw std::runtime_error("roam: cannot start a migratable thread: " + error);
  }
  auto* r = ::new (reinterpret_cast<void*>(base)) iso::thread_record{};
  r->magic = iso::record_magic;
  r->slot = slot;
  r->serial = iso::next_serial(pe.id());
  r->holder = this;
  r->owner_offset = reinterpret_cast<char*>(this) - static_cast<char*>(owner);
  r->heap_begin = base + iso::thread_page;
  r->heap_limit = reinterpret_cast<std::uintptr_t>(lo) - iso::thread_page;  // a guard page below the stack
  r->stack_lo = lo;
  r->stack_size = stack;
  r->owner_type = owner_type.data();
  r->owner_type_size = owner_type.size();
  try {
    r->thread = detail::ult_create_on({lo, stack, r->serial, &iso::thread_record::ended, r,
                                       options.isomalloc_heap ? r : nullptr},
                                      body_bytes, align, body, body_fn);
  } catch (...) {
    iso::give_back_slot(pe.id(), slot);
    throw;
  }
  detail::ult_set_owner(r->thread, owner);  // its slices are its owner's load
  rec_ = r;
  started_ = true;
  iso::describe_slot_owner(slot, iso::describe(*r, pe.id()));
}

void migratable_thread::launch() noexcept { detail::ult_start(rec_->thread); }

void migratable_thread::abandon() noexcept {
  if (rec_) detail::ult_discard(rec_->thread);  // ended() gives the slot back and clears rec_
  started_ = false;
}

bool migratable_thread::suspended() const noexcept { return rec_ && !departed_ && rec_->suspended; }

std::uint32_t migratable_thread::slot() const noexcept { return rec_ && !departed_ ? rec_->slot : ~0u; }

void migratable_thread::resume() {
  if (rec_ == nullptr || departed_ || !rec_->suspended) [[unlikely]]
    throw std::logic_error("roam: migratable_thread::resume: the thread is not blocked in suspend_this_thread()");
  rec_->suspended = false;
  detail::ult_ready(rec_->thread);
}

void migratable_thread::pup(pup_er& p) {
  std::uint32_t magic = iso::packed_magic;
  std::uint8_t version = iso::packed_version;
  std::uint8_t has_thread = rec_ != nullptr && !departed_;
  bool started = started_;
  p | magic | version | has_thread | started;
  if (p.is_unpacking()) {
    if (magic != iso::packed_magic || version != iso::packed_version)
      throw pup_error("migratable_thread: not a packed thread (wrong magic or version)");
    if (rec_ != nullptr) throw pup_error("migratable_thread: unpacked into a thread that already runs");
  }
  started_ = started;
  if (!has_thread) return;

  if (!p.is_unpacking()) {
    if (const char* why = detail::ult_why_not_movable(rec_->thread))
      throw pup_error("cannot pack the " + iso::describe(*rec_, iso::pe_here()) + ": " + why);
    if (!detail::tls_packing_to_move && detail::ult_futures(rec_->thread))
      throw pup_error("cannot checkpoint the " + iso::describe(*rec_, iso::pe_here()) +
                      ": it made futures that are not fulfilled yet, and a restarted run would not know where their "
                      "values go (checkpoint while none is pending: e.g. from resume_from_sync)");
  }
  // Within a process a moving thread's memory stays where it is: only its
  // slot number, and this process's mark to check it, travel.
  std::uint64_t in_place = !p.is_unpacking() && detail::tls_packing_to_move && detail::tls_move_within_process
                               ? iso::process_mark()
                               : 0;
  p | in_place;
  if (in_place != 0) pup_in_place(p, in_place);
  else pup_memory(p);
  // Its slices are its owner's load, at the owner's address here.
  if (p.is_unpacking() && rec_) detail::ult_set_owner(rec_->thread, reinterpret_cast<char*>(this) - rec_->owner_offset);
}

void migratable_thread::set_owner(void* owner) noexcept {
  if (rec_ == nullptr) return;
  rec_->owner_offset = reinterpret_cast<char*>(this) - static_cast<char*>(owner);
  detail::ult_set_owner(rec_->thread, owner);
}

void migratable_thread::pup_in_place(pup_er& p, std::uint64_t mark) {
  std::uint32_t slot = rec_ ? rec_->slot : 0;
  if (p.is_packing()) detail::thread_futures_depart(rec_->thread);
  std::uint8_t wake = p.is_packing() ? detail::ult_depart(rec_->thread) : 0;
  p | slot | wake;
  if (p.is_packing()) {
    rec_ = nullptr;
    departed_ = true;
  } else if (p.is_unpacking()) {
    const iso::region_layout& l = iso::layout();
    auto* r = slot < l.slots() ? reinterpret_cast<iso::thread_record*>(l.slot_address(slot)) : nullptr;
    if (mark != iso::process_mark() || r == nullptr || r->magic != iso::record_magic || r->slot != slot)
      throw pup_error("a migratable thread packed to stay in its process arrived elsewhere (or corrupt)");
    rec_ = r;
    rec_->holder = this;
    departed_ = false;
    iso::describe_slot_owner(slot, iso::describe(*rec_, iso::pe_here()));
    detail::ult_arrive(rec_->thread, wake != 0);
    detail::thread_futures_arrive(rec_->thread);
  }
}

// Between processes, into a checkpoint, under +serialize: the record, the
// used heap and the used stack, copied.
void migratable_thread::pup_memory(pup_er& p) {
  iso::code_anchors here, there;
  std::uint32_t slot = 0;
  std::uint8_t wake = 0;
  std::uint64_t thread = 0;
  std::uint64_t heap_begin = 0, heap_used = 0, heap_opened = 0, stack_used = 0, stack_top = 0;
  const bool leaving = p.is_packing() && detail::tls_packing_to_move;
  if (!p.is_unpacking()) {
    detail::ult* t = rec_->thread;
    there = here;
    slot = rec_->slot;
    thread = reinterpret_cast<std::uint64_t>(t);
    if (rec_->heap_made) {
      iso::slot_heap h = iso::slot_heap::at(rec_->heap_begin);
      heap_begin = h.begin();
      heap_used = h.used_end();
      heap_opened = h.opened_end();
    }
    stack_used = detail::ult_stack_in_use(t);
    stack_top = detail::ult_stack_top(t);
    if (leaving) {
      detail::thread_futures_depart(t);
      wake = detail::ult_depart(t);  // before the copy: its list links are cleared
    }
    else wake = p.is_packing() && detail::ult_wake_pending(t);
  }
  p | there | slot | wake | thread | heap_begin | heap_used | heap_opened | stack_used | stack_top;

  const iso::region_layout& l = iso::layout();
  const std::uintptr_t base = l.slot_address(slot);
  std::string error;
  if (p.is_unpacking()) {
    if (!(there == here))
      throw pup_error("cannot rebuild a migratable thread here: this process's code lies at other addresses than "
                      "where it was packed (address space randomisation): start every process with it off (roamrun "
                      "does; under mpirun: setarch -R PROGRAM)");
    if (l.size == 0) throw pup_error("cannot rebuild a migratable thread: isomalloc is off (+isomalloc_size 0)");
    if (slot >= l.slots()) throw pup_error("a packed migratable thread names slot " + std::to_string(slot) + " of " +
                                           std::to_string(l.slots()) + " (+isomalloc_* differ between processes?)");
    const std::uintptr_t end = base + l.slot_size;
    const bool heap_ok = heap_begin == 0 ? heap_used == 0 && heap_opened == 0
                                         : heap_begin == base + iso::thread_page && heap_begin <= heap_used &&
                                               heap_used <= heap_opened && heap_opened < stack_used;
    if (!heap_ok || stack_top != end || stack_used >= end || stack_used < base + 2 * iso::thread_page ||
        thread < stack_used || thread >= end)
      throw pup_error("a packed migratable thread is corrupt (its memory lies outside slot " + std::to_string(slot) +
                      ")");
    if (!iso::adopt_slot(iso::pe_here(), slot))
      throw pup_error("a migratable thread arrived in slot " + std::to_string(slot) +
                      ", which is in use in this process (restored twice?)");
  }
  // The memory: record, heap, stack. Unpacking opens it first; packing reads
  // a stack whose frames AddressSanitizer poisoned.
  const auto region = [&](std::uintptr_t from, std::uintptr_t to, std::uintptr_t open_to) {
    if (p.is_unpacking()) {
      const std::uintptr_t page_from = from / iso::thread_page * iso::thread_page;
      if (!iso::open_pages(page_from, iso::thread_round_up(open_to, iso::thread_page) - page_from, error))
        throw pup_error("cannot rebuild a migratable thread: " + error);
      iso::populate_pages(page_from, iso::thread_round_up(to, iso::thread_page) - page_from);
    }
    detail::memory_unpoison(reinterpret_cast<void*>(from), to - from);
    p.bytes(reinterpret_cast<void*>(from), to - from);
  };
  try {
    region(base, base + sizeof(iso::thread_record), base + iso::thread_page);
    if (heap_begin) region(heap_begin, heap_used, heap_opened);
    // The whole stack is opened (its pages are committed only when touched).
    region(stack_used, stack_top, stack_top);
    if (p.is_unpacking()) {
      const std::uintptr_t page_from = stack_used / iso::thread_page * iso::thread_page;
      auto* r = reinterpret_cast<iso::thread_record*>(base);
      const auto lo = reinterpret_cast<std::uintptr_t>(r->stack_lo);
      if (r->magic != iso::record_magic || r->slot != slot || reinterpret_cast<std::uint64_t>(r->thread) != thread ||
          lo + r->stack_size != stack_top || lo > page_from || lo < base + 2 * iso::thread_page)
        throw pup_error("a packed migratable thread is corrupt (its record does not match slot " +
                        std::to_string(slot) + ")");
      if (!iso::open_pages(lo, page_from - lo, error)) throw pup_error("cannot rebuild a migratable thread: " + error);
      if (heap_begin) iso::slot_heap::at(heap_begin).unlock();  // a copy made while another PE freed into it
    }
  } catch (...) {
    if (p.is_unpacking()) iso::give_back_slot(iso::pe_here(), slot);
    throw;
  }

  if (leaving) {
    const std::size_t committed = iso::thread_page + (heap_opened - heap_begin) + (stack_top - stack_used);
    iso::leave_slot(slot, committed, iso::describe(*rec_, iso::pe_here()) + ", which moved away");
    rec_ = nullptr;
    departed_ = true;
  } else if (p.is_unpacking()) {
    rec_ = reinterpret_cast<iso::thread_record*>(base);
    rec_->holder = this;
    departed_ = false;
    iso::describe_slot_owner(slot, iso::describe(*rec_, iso::pe_here()));
    detail::ult_arrive(rec_->thread, wake != 0);
    detail::thread_futures_arrive(rec_->thread);
  }
}

void suspend_this_thread() {
  iso::thread_record& r = iso::current_record("suspend_this_thread()");
  r.suspended = true;
  try {
    detail::ult_suspend();
  } catch (...) {
    r.suspended = false;
    throw;
  }
}

void at_sync_and_wait() {
  iso::thread_record& r = iso::current_record("at_sync_and_wait()");
  void* owner = this_thread_owner_address();
  detail::at_sync_of(owner, std::string_view(r.owner_type, r.owner_type_size));
  suspend_this_thread();
}

namespace detail::iso {

std::uint32_t register_thread_private() noexcept {
  static std::atomic<std::uint32_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed);
}

void*& thread_private_entry(std::uint32_t index) {
  thread_record& r = current_record("thread_private");
  if (index >= r.privates_size) [[unlikely]] {
    const std::uint32_t size = std::max<std::uint32_t>(index + 1, r.privates_size * 2 + 8);
    auto** table = static_cast<void**>(roam::thread_heap_allocate(size * sizeof(void*)));
    std::fill(table, table + size, nullptr);
    if (r.privates) {
      std::copy(r.privates, r.privates + r.privates_size, table);
      roam::thread_heap_release(r.privates);
    }
    r.privates = table;
    r.privates_size = size;
  }
  return r.privates[index];
}

}  // namespace detail::iso

void* this_thread_owner_address() {
  iso::thread_record& r = iso::current_record("this_thread_owner()");
  if (r.holder == nullptr) throw std::logic_error("roam: this_thread_owner(): the thread's owner was destroyed");
  return reinterpret_cast<char*>(r.holder) - r.owner_offset;
}

namespace detail::iso {

slot_heap heap_of(thread_record& r, std::string& error) {
  if (r.heap_made) return slot_heap::at(r.heap_begin);
  slot_heap h = slot_heap::create(r.heap_begin, r.heap_limit, error);
  if (h) r.heap_made = true;
  return h;
}

}  // namespace detail::iso

void* thread_heap_allocate(std::size_t size, std::size_t align) {
  iso::thread_record& r = iso::current_record("thread_heap_allocate()");
  detail::heap_route_pause pause;  // an error's text is the process's
  std::string error;
  iso::slot_heap h = iso::heap_of(r, error);
  if (!h) throw std::runtime_error("roam: cannot make the heap of a " + iso::describe(r, iso::pe_here()) + ": " + error);
  h.lock();
  void* p = h.allocate(size, align < 16 ? 16 : align);
  h.unlock();
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void thread_heap_release(void* p) noexcept {
  if (p == nullptr) return;
  auto* r = static_cast<iso::thread_record*>(detail::ult_current_user());
  if (r == nullptr || !r->heap_made || !iso::slot_heap::at(r->heap_begin).owns(p)) {
    detail::report_fatal("roam: thread_heap_release: the block is not in the calling migratable thread's heap");
    return;
  }
  iso::slot_heap h = iso::slot_heap::at(r->heap_begin);
  h.lock();
  h.release(p);
  h.unlock();
}

bool thread_heap_owns(const void* p) noexcept {
  auto* r = static_cast<iso::thread_record*>(detail::ult_current_user());
  return r && r->heap_made && iso::slot_heap::at(r->heap_begin).owns(p);
}

std::size_t thread_heap_in_use() noexcept {
  auto* r = static_cast<iso::thread_record*>(detail::ult_current_user());
  return r && r->heap_made ? iso::slot_heap::at(r->heap_begin).bytes_in_use() : 0;
}

}  // namespace roam
