#pragma once
// Isomalloc (docs/design/isomalloc.md): one range of virtual addresses,
// reserved at the same place in every process of a job and split into slots.
// A slot number names the same addresses everywhere, so what lives in a slot
// (a migratable thread's stack and heap) can be copied to another process,
// or into a checkpoint, and used there at the very same addresses.
//
// The range is reserved without memory (PROT_NONE, no commit) when a run
// starts (src/iso/region.cpp) and given back when it ends; slots are handed
// out per PE from contiguous slices, so a slot number is unique job-wide
// without communication; only the pages a slot uses are made accessible.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace roam::detail::iso {

/// Where the range lies and how it is cut. Every process of a job must
/// agree (the same binary and options give the same values).
struct region_layout {
  std::uintptr_t base = 0;   ///< first address (a multiple of the page size)
  std::size_t size = 0;      ///< bytes (0: no range, isomalloc disabled)
  std::size_t slot_size = 0; ///< bytes per slot (a multiple of the page size)
  std::uint32_t slots() const noexcept { return slot_size ? static_cast<std::uint32_t>(size / slot_size) : 0; }
  std::uintptr_t slot_address(std::uint32_t slot) const noexcept { return base + std::uintptr_t{slot} * slot_size; }
  /// The slot holding `address`, or ~0u outside the range.
  std::uint32_t slot_of(std::uintptr_t address) const noexcept {
    return address - base < std::uintptr_t{slots()} * slot_size ? static_cast<std::uint32_t>((address - base) / slot_size)
                                                                : ~0u;
  }
};

/// The defaults for this build: 1 TiB at 32 TiB (2^45), or, under
/// ThreadSanitizer, whose shadow memory takes most of the address space,
/// 256 GiB at 64 GiB (inside the range it leaves to programs); 64 MiB slots.
region_layout default_layout() noexcept;

/// Reserves `layout`'s range in this process (PROT_NONE, MAP_NORESERVE, at
/// exactly that address). Empty on success, else why, naming the range and
/// the options that move it. A size of 0 reserves nothing.
std::string reserve(const region_layout& layout);
/// Gives the range back (every slot's memory with it).
void release_region() noexcept;
/// The range this process reserved (size 0 when none).
const region_layout& layout() noexcept;

/// Hands slots out to PEs: global PE p takes slots from its slice
/// [p * per_pe, (p + 1) * per_pe) of the range, lowest first, and reuses the
/// slots given back on it (a slot whose owner ended elsewhere is given back
/// there: it stays unique, whichever PE holds it). Thread-safe.
/// Starts over for a run of `pes` PEs.
void reset_slots(std::uint32_t pes) noexcept;
/// A free slot for PE `pe` (its accessible memory: none yet), or ~0u when its
/// slice is used up; `error` then says so, naming the limit.
std::uint32_t take_slot(std::uint32_t pe, std::string& error);
/// Marks `slot` as in use on PE `pe` (a slot that arrived with its thread,
/// or was restored from a checkpoint). False if it is in use here already.
bool adopt_slot(std::uint32_t pe, std::uint32_t slot) noexcept;
/// Makes the slot's memory inaccessible again (its pages are dropped) and
/// lets PE `pe` reuse it.
void give_back_slot(std::uint32_t pe, std::uint32_t slot) noexcept;
/// A slot whose thread moved to another process: its memory is made
/// inaccessible and it is no longer in use here, but it is not reused here
/// either (it is the thread's, wherever it is); a fault in it names
/// `owner`. Its `committed` bytes of pages stay committed while the process
/// keeps less than +isomalloc_keep that way (a thread that comes back finds
/// them ready), else they are dropped.
void leave_slot(std::uint32_t slot, std::size_t committed, const std::string& owner) noexcept;
/// The slots in use in this process (its restored threads', after a restart).
std::vector<std::uint32_t> live_slots();
/// After a restart: the slots restored threads hold, in any process. The
/// slices skip them, so no new thread takes one (the two would collide
/// where they meet, and a restored thread may leave the process that
/// restored it); such a slot is reused only where its thread ends.
void mark_slots_restored(const std::vector<std::uint32_t>& held) noexcept;
/// Whether `slot` is in use in this process (its memory is here and open).
bool slot_live_here(std::uint32_t slot) noexcept;
/// Bytes this process keeps committed for slots whose threads left.
std::size_t kept_bytes() noexcept;
/// Makes [address, address + bytes) of a slot readable and writable (pages
/// are committed when first touched). False (and `error`) on failure.
bool open_pages(std::uintptr_t address, std::size_t bytes, std::string& error) noexcept;
/// Commits the (open) pages of [address, address + bytes) in one system call,
/// before they are filled: cheaper than a fault per page. Where the kernel
/// cannot (before Linux 5.14), the pages fault in as they are written.
void populate_pages(std::uintptr_t address, std::size_t bytes) noexcept;
/// Drops the pages of [address, address + bytes) and makes them inaccessible.
void close_pages(std::uintptr_t address, std::size_t bytes) noexcept;

/// In a range shared on the host (include/roam/iso/host_memory.hpp): makes
/// `slot`, whose thread lives in another process of this host, readable and
/// writable here until a thread of the slot arrives, leaves or ends here.
/// False when the range is not shared, or the slot is live here.
bool open_peer_slot(std::uint32_t slot) noexcept;

/// Names what owns `slot` in this process, for the fault handler's message
/// ("array worker[3] on pe 2"); empty: nothing (or not known). Kept in a
/// fixed table so the handler needs no allocation.
void describe_slot_owner(std::uint32_t slot, const std::string& owner) noexcept;

}  // namespace roam::detail::iso
