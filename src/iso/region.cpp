// The isomalloc range (include/roam/iso/detail/region.hpp): reserved when a
// run starts, split into slots handed out per PE, given back when the run
// ends; the +isomalloc_* options; the fault handler that names the slot of a
// stale pointer.
#include <roam/iso/detail/region.hpp>
#include <roam/iso/detail/heap_routing.hpp>

#include "host_backing.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstring>
#include <memory>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include <roam/sched/detail/pe_state.hpp>
#include <roam/sched/detail/runtime_state.hpp>
#include <roam/sched/detail/startup.hpp>
#include <roam/sched/options.hpp>

namespace roam::detail::iso {

namespace {

constexpr std::size_t region_page = 4096;

#if defined(__SANITIZE_THREAD__)
constexpr bool under_tsan = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool under_tsan = true;
#else
constexpr bool under_tsan = false;
#endif
#else
constexpr bool under_tsan = false;
#endif

// ---- options -----------------------------------------------------------------

region_layout g_wanted = default_layout();  // from the options (defaults where not given)
constexpr std::size_t default_keep_bytes = std::size_t{32} << 20;
std::size_t g_keep_bytes = default_keep_bytes;  // +isomalloc_keep

std::string parse_address(std::string_view text, std::uintptr_t& out) {
  std::uintptr_t v = 0;
  int base = 10;
  std::string_view digits = text;
  if (digits.starts_with("0x") || digits.starts_with("0X")) {
    base = 16;
    digits.remove_prefix(2);
  }
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
  std::string quoted = "'";
  quoted.append(text).push_back('\'');
  if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size())
    return quoted + " is not an address (decimal, or hexadecimal with 0x)";
  if (v % region_page != 0) return quoted + " is not a multiple of the page size (4096)";
  out = v;
  return {};
}

[[maybe_unused]] const bool iso_options_registered = roam::register_runtime_options(
    "isomalloc: migratable threads' memory (src/iso)",
    {
        {"isomalloc_base", "ROAM_ISOMALLOC_BASE", "ADDR",
         "where the range reserved at the same address in every process starts (default 0x200000000000; under "
         "ThreadSanitizer 0x1000000000)",
         [](std::string_view v) { return parse_address(v, g_wanted.base); }},
        {"isomalloc_size", "ROAM_ISOMALLOC_SIZE", "BYTES",
         "its size, K/M/G suffixes (default 1024G; under ThreadSanitizer 256G); 0: reserve nothing (no "
         "migratable threads)",
         [](std::string_view v) { return option_parse::bytes(v, 0, std::size_t{1} << 46, g_wanted.size); }},
        {"isomalloc_slot", "ROAM_ISOMALLOC_SLOT", "BYTES",
         "memory of one migratable thread, its stack and its heap (default 64M)",
         [](std::string_view v) { return option_parse::bytes(v, 64 * 1024, std::size_t{1} << 40, g_wanted.slot_size); }},
        {"isomalloc_keep", "ROAM_ISOMALLOC_KEEP", "BYTES",
         "memory a process keeps committed for slots whose threads moved away, so that they find it ready when "
         "they come back (default 32M; 0: give it all back at once)",
         [](std::string_view v) { return option_parse::bytes(v, 0, std::size_t{1} << 40, g_keep_bytes); }},
    },
    [] {
      g_wanted = default_layout();
      g_keep_bytes = default_keep_bytes;
    });

// ---- the range and its slots ------------------------------------------------------

region_layout g_layout;
bool g_shared_range = false;  // mapped from the host's file (host_share.hpp); set before any PE runs

struct pe_slots {
  std::uint32_t next = 0;              ///< slice offset of the next never-used slot
  std::vector<std::uint32_t> free;     ///< given back here, reused first
};
struct slot_table {
  std::mutex mutex;
  std::uint32_t per_pe = 0;
  std::vector<pe_slots> pes;
  std::vector<std::uint8_t> live;  ///< by slot
  /// By slot: a restored thread holds it, here or in another process
  /// (mark_slots_restored): the slices skip it.
  std::vector<std::uint8_t> restored;
  /// Bytes of committed pages kept behind by slots whose thread left
  /// (leave_slot), by slot, and their sum (at most +isomalloc_keep).
  std::vector<std::size_t> kept;
  std::size_t kept_total = 0;
  /// By slot, in a shared range: opened here for a peer (open_peer_slot);
  /// read without the mutex.
  std::unique_ptr<std::atomic<std::uint8_t>[]> peer_open;
  std::uint32_t peer_slots = 0;
};
slot_table& slots() {
  static slot_table t;
  return t;
}

// ---- who owns a slot, for the fault handler -------------------------------------

struct owner_entry {
  std::atomic<std::uint32_t> slot{~0u};
  char text[120] = {};
};
constexpr std::size_t owner_entries = 1024;
owner_entry g_owners[owner_entries];

struct sigaction g_previous_segv {};
std::atomic<bool> g_handler_installed{false};

// Async-signal-safe formatting for the fault message.
struct line {
  char buf[512];
  std::size_t n = 0;
  void text(const char* s) {
    while (*s && n < sizeof buf) buf[n++] = *s++;
  }
  void number(std::uint64_t v, unsigned base) {
    char digits[24];
    std::size_t k = 0;
    do {
      digits[k++] = "0123456789abcdef"[v % base];
      v /= base;
    } while (v);
    if (base == 16) text("0x");
    while (k && n < sizeof buf) buf[n++] = digits[--k];
  }
};

void on_segv(int sig, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  const std::uint32_t slot = g_layout.slot_of(address);
  if (slot != ~0u) {
    line l;
    l.text("roam: ");
    if (pe_state* pe = tls_pe) {
      l.text("pe ");
      l.number(pe->id(), 10);
      l.text(": ");
    }
    l.text("access to ");
    l.number(address, 16);
    l.text(" in isomalloc slot ");
    l.number(slot, 10);
    l.text(" [");
    l.number(g_layout.slot_address(slot), 16);
    l.text(", ");
    l.number(g_layout.slot_address(slot) + g_layout.slot_size, 16);
    l.text("), which is not open here: ");
    const owner_entry& e = g_owners[slot % owner_entries];
    if (e.slot.load(std::memory_order_acquire) == slot && e.text[0]) {
      l.text(e.text);
    } else {
      l.text("no thread of this process owns it (a stale pointer into a thread that moved away or ended?)");
    }
    l.text("\n");
    [[maybe_unused]] const ssize_t written = ::write(2, l.buf, l.n);
  }
  // Whoever handled SIGSEGV before (a sanitizer, the default) decides.
  if (g_previous_segv.sa_flags & SA_SIGINFO) {
    if (g_previous_segv.sa_sigaction) return g_previous_segv.sa_sigaction(sig, info, context);
  } else if (g_previous_segv.sa_handler != SIG_DFL && g_previous_segv.sa_handler != SIG_IGN) {
    return g_previous_segv.sa_handler(sig);
  }
  ::signal(SIGSEGV, SIG_DFL);  // returning re-runs the access: now fatal, as it would have been
}

void install_fault_handler() {
  if (g_handler_installed.exchange(true)) return;
  struct sigaction sa {};
  sa.sa_sigaction = &on_segv;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGSEGV, &sa, &g_previous_segv);
}

std::string hex(std::uintptr_t v) {
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, 16);
  return "0x" + std::string(buf, end);
}

// ---- run hooks ---------------------------------------------------------------------

std::string reserve_from(const region_layout& wanted, int fd);

std::string run_started(runtime_state& rt) {
  release_region();
  const int fd = open_host_backing(g_wanted, rt.my_node);
  std::string error = reserve_from(g_wanted, fd);
  if (fd >= 0) {
    if (error.empty()) {
      host_backing_mapped(fd, g_layout);
    } else {
      ::close(fd);
      close_host_backing();
    }
  }
  if (!error.empty()) return error;
  reset_slots(rt.num_pes);
  return {};
}
void run_finished(runtime_state&) { release_region(); }

[[maybe_unused]] const bool iso_hooks_registered = register_run_hooks({&run_started, &run_finished});

}  // namespace

region_layout default_layout() noexcept {
  region_layout l;
  l.base = under_tsan ? std::uintptr_t{1} << 36 : std::uintptr_t{1} << 45;
  l.size = under_tsan ? std::size_t{256} << 30 : std::size_t{1} << 40;
  l.slot_size = std::size_t{64} << 20;
  return l;
}

std::string reserve(const region_layout& wanted) { return reserve_from(wanted, -1); }

namespace {
// `fd` >= 0: the range is the host's shared file (from offset 0), else
// private anonymous memory.
std::string reserve_from(const region_layout& wanted, int fd) {
  release_region();
  if (wanted.size == 0) return {};
  if (wanted.slot_size == 0 || wanted.slot_size % region_page != 0 || wanted.size < wanted.slot_size)
    return "isomalloc: slots of " + std::to_string(wanted.slot_size) + " bytes do not fit a range of " +
           std::to_string(wanted.size) + " bytes (+isomalloc_slot must be a multiple of 4096, at most +isomalloc_size)";
  const std::size_t size = wanted.size / wanted.slot_size * wanted.slot_size;
  const int flags = fd >= 0 ? MAP_SHARED : MAP_PRIVATE | MAP_ANONYMOUS;
  void* at = ::mmap(reinterpret_cast<void*>(wanted.base), size, PROT_NONE, flags | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
                    fd, 0);
  std::string range = "[";
  range.append(hex(wanted.base)).append(", ").append(hex(wanted.base + size)).push_back(')');
  if (at == MAP_FAILED || at != reinterpret_cast<void*>(wanted.base)) {
    const int e = errno;
    if (at != MAP_FAILED) ::munmap(at, size);  // a kernel without MAP_FIXED_NOREPLACE put it elsewhere
    return "isomalloc: cannot reserve the range " + range + " at the same address in every process" +
           (at == MAP_FAILED ? std::string(": ") + std::strerror(e) : std::string(": part of it is in use")) +
           "; move it with +isomalloc_base ADDR and +isomalloc_size BYTES (or 0 to reserve none)";
  }
  g_layout = wanted;
  g_layout.size = size;
  g_shared_range = fd >= 0;
  g_range_lo.store(wanted.base, std::memory_order_relaxed);
  g_range_hi.store(wanted.base + size, std::memory_order_relaxed);
  install_fault_handler();
  return {};
}
}  // namespace

void release_region() noexcept {
  if (g_layout.size != 0) ::munmap(reinterpret_cast<void*>(g_layout.base), g_layout.size);
  if (g_shared_range) close_host_backing();
  g_shared_range = false;
  g_layout = {};
  g_range_lo.store(0, std::memory_order_relaxed);
  g_range_hi.store(0, std::memory_order_relaxed);
  for (owner_entry& e : g_owners) e.slot.store(~0u, std::memory_order_relaxed);
  slot_table& t = slots();
  std::lock_guard lock(t.mutex);
  t.pes.clear();
  t.live.clear();
  t.restored.clear();
  t.per_pe = 0;
}

const region_layout& layout() noexcept { return g_layout; }

void reset_slots(std::uint32_t pes) noexcept {
  slot_table& t = slots();
  std::lock_guard lock(t.mutex);
  t.pes.assign(pes, pe_slots{});
  t.live.assign(g_layout.slots(), 0);
  t.restored.assign(g_layout.slots(), 0);
  t.kept.assign(g_layout.slots(), 0);
  t.kept_total = 0;
  t.per_pe = pes ? g_layout.slots() / pes : 0;
  t.peer_slots = g_shared_range ? g_layout.slots() : 0;
  t.peer_open.reset(t.peer_slots ? new std::atomic<std::uint8_t>[t.peer_slots]() : nullptr);
}

std::uint32_t take_slot(std::uint32_t pe, std::string& error) {
  slot_table& t = slots();
  std::lock_guard lock(t.mutex);
  if (pe >= t.pes.size()) {
    error = g_layout.size == 0 ? "isomalloc is off (+isomalloc_size 0, or no run)"
                               : "isomalloc: pe " + std::to_string(pe) + " is outside the run";
    return ~0u;
  }
  pe_slots& mine = t.pes[pe];
  while (!mine.free.empty()) {
    const std::uint32_t s = mine.free.back();
    mine.free.pop_back();
    if (!t.live[s]) {
      t.live[s] = 1;
      return s;
    }
  }
  while (mine.next < t.per_pe) {
    const std::uint32_t s = pe * t.per_pe + mine.next++;
    if (!t.live[s] && !t.restored[s]) {  // a slot restored (here or elsewhere) or arrived here first is skipped
      t.live[s] = 1;
      return s;
    }
  }
  error = "isomalloc: pe " + std::to_string(pe) + " has used all " + std::to_string(t.per_pe) +
          " slots of its slice (+isomalloc_size " + std::to_string(g_layout.size) + " bytes in slots of " +
          std::to_string(g_layout.slot_size) + " (+isomalloc_slot) over " + std::to_string(t.pes.size()) + " pes)";
  return ~0u;
}

bool adopt_slot(std::uint32_t, std::uint32_t slot) noexcept {
  slot_table& t = slots();
  {
    std::lock_guard lock(t.mutex);
    if (slot >= t.live.size() || t.live[slot]) return false;
    t.live[slot] = 1;
    t.kept_total -= std::exchange(t.kept[slot], 0);  // its kept pages are the thread's again
    if (slot < t.peer_slots && t.peer_open[slot].exchange(0, std::memory_order_acq_rel) == 0) return true;
  }
  // Opened for a peer while the thread lived elsewhere on the host: closed,
  // so that the thread's arrival opens exactly what it uses (no peer holds
  // it: the library that opened it waited for its peers before the move).
  if (g_shared_range) ::mprotect(reinterpret_cast<void*>(g_layout.slot_address(slot)), g_layout.slot_size, PROT_NONE);
  return true;
}

void give_back_slot(std::uint32_t pe, std::uint32_t slot) noexcept {
  close_pages(g_layout.slot_address(slot), g_layout.slot_size);
  std::uint32_t described = slot;  // the entry may describe another slot by now (they share entries)
  g_owners[slot % owner_entries].slot.compare_exchange_strong(described, ~0u, std::memory_order_acq_rel);
  slot_table& t = slots();
  std::lock_guard lock(t.mutex);
  if (slot >= t.live.size() || pe >= t.pes.size()) return;
  t.live[slot] = 0;
  t.kept_total -= std::exchange(t.kept[slot], 0);
  if (slot < t.peer_slots) t.peer_open[slot].store(0, std::memory_order_release);
  t.pes[pe].free.push_back(slot);
}

void leave_slot(std::uint32_t slot, std::size_t committed, const std::string& owner) noexcept {
  describe_slot_owner(slot, owner);
  const std::uintptr_t at = g_layout.slot_address(slot);
  bool keep = false;
  {
    slot_table& t = slots();
    std::lock_guard lock(t.mutex);
    if (slot >= t.live.size()) return;
    t.live[slot] = 0;
    if (g_shared_range) {
      // The pages are the host's: the thread finds them in place if it
      // stays on the host (it may be there already), so nothing is dropped;
      // here they close (a stale pointer faults) until a peer opens them.
      t.peer_open[slot].store(0, std::memory_order_release);
      ::mprotect(reinterpret_cast<void*>(at), g_layout.slot_size, PROT_NONE);
      return;
    }
    // A thread that moves away often comes back (a ping-pong, a balancer
    // undoing itself): its pages stay committed, inaccessible, so that it
    // finds them ready instead of faulting each one in again; up to
    // +isomalloc_keep bytes per process, beyond which they are dropped.
    if (t.kept_total + committed <= g_keep_bytes) {
      t.kept[slot] = committed;
      t.kept_total += committed;
      keep = true;
    }
  }
  if (keep) ::mprotect(reinterpret_cast<void*>(at), g_layout.slot_size, PROT_NONE);
  else close_pages(at, g_layout.slot_size);
}

std::vector<std::uint32_t> live_slots() {
  slot_table& t = slots();
  std::lock_guard lock(t.mutex);
  std::vector<std::uint32_t> out;
  for (std::uint32_t s = 0; s < t.live.size(); ++s)
    if (t.live[s]) out.push_back(s);
  return out;
}

void mark_slots_restored(const std::vector<std::uint32_t>& held) noexcept {
  slot_table& t = slots();
  std::lock_guard lock(t.mutex);
  for (std::uint32_t s : held)
    if (s < t.restored.size()) t.restored[s] = 1;
}

bool slot_live_here(std::uint32_t slot) noexcept {
  slot_table& t = slots();
  std::lock_guard lock(t.mutex);
  return slot < t.live.size() && t.live[slot];
}

std::size_t kept_bytes() noexcept {
  slot_table& t = slots();
  std::lock_guard lock(t.mutex);
  return t.kept_total;
}

bool open_pages(std::uintptr_t address, std::size_t bytes, std::string& error) noexcept {
  if (::mprotect(reinterpret_cast<void*>(address), bytes, PROT_READ | PROT_WRITE) == 0) return true;
  error = "isomalloc: cannot open " + std::to_string(bytes) + " bytes at " + hex(address) + ": " + std::strerror(errno);
  return false;
}

void populate_pages(std::uintptr_t address, std::size_t bytes) noexcept {
#if defined(MADV_POPULATE_WRITE)
  ::madvise(reinterpret_cast<void*>(address), bytes, MADV_POPULATE_WRITE);
#else
  (void)address;
  (void)bytes;
#endif
}

bool open_peer_slot(std::uint32_t slot) noexcept {
  slot_table& t = slots();
  if (!g_shared_range || slot >= t.peer_slots) return false;
  if (t.peer_open[slot].load(std::memory_order_acquire)) return true;
  std::lock_guard lock(t.mutex);
  if (t.live[slot]) return false;
  if (!t.peer_open[slot].load(std::memory_order_relaxed)) {
    if (::mprotect(reinterpret_cast<void*>(g_layout.slot_address(slot)), g_layout.slot_size, PROT_READ | PROT_WRITE))
      return false;
    t.peer_open[slot].store(1, std::memory_order_release);
  }
  return true;
}

void close_pages(std::uintptr_t address, std::size_t bytes) noexcept {
  // A shared range's pages are the host file's: they are freed by punching
  // them out of it (MADV_DONTNEED would only unmap them here).
  ::madvise(reinterpret_cast<void*>(address), bytes, g_shared_range ? MADV_REMOVE : MADV_DONTNEED);
  ::mprotect(reinterpret_cast<void*>(address), bytes, PROT_NONE);
}

void describe_slot_owner(std::uint32_t slot, const std::string& owner) noexcept {
  // PEs describe their slots at once, and slots share entries (slot mod
  // 1024): writers take turns. The fault handler reads without the lock (it
  // may not take one); at worst it prints a description being rewritten.
  static std::mutex writers;
  std::lock_guard lock(writers);
  owner_entry& e = g_owners[slot % owner_entries];
  e.slot.store(~0u, std::memory_order_relaxed);
  const std::size_t n = std::min(owner.size(), sizeof e.text - 1);
  std::memcpy(e.text, owner.data(), n);
  e.text[n] = '\0';
  if (!owner.empty()) e.slot.store(slot, std::memory_order_release);
}

}  // namespace roam::detail::iso
