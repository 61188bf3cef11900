#pragma once
// Migratable threads' memory shared by the processes of a host
// (docs/design/isomalloc.md, "Sharing the range on a host"): the processes
// of one job on one host back the isomalloc range with one shared file,
// mapped at the same addresses in each. A thread's pages are then the same
// memory in every process of the host, so a library whose code reaches
// another thread's memory directly (ARMCI's put and get) can do it across
// processes with one memcpy, once it opens the thread's memory here.
//
// Off unless a library asks for it (share_thread_memory_on_host, at static
// initialisation) and the run has more than one process on the host;
// `+isomalloc_share off` refuses it, `on` asks for it. Where the shared file
// cannot be made the run goes on with private memory, after one warning.
#include <cstddef>
#include <string_view>

namespace roam {

/// A library that reaches threads' memory in other processes of the host
/// asks for sharing (before the run starts: static initialisation).
void share_thread_memory_on_host() noexcept;

/// Whether this run's threads' memory is shared on the host.
bool thread_memory_shared_on_host() noexcept;

/// Makes the memory of the migratable thread that owns `address` readable
/// and writable here while the thread lives in another process of this
/// host (its pages are that process's). The caller must keep the thread
/// from moving, leaving or ending while it copies (a library's own
/// handshake: ARMCI's pins). It stays open until the thread arrives here,
/// leaves from here or ends here. False when memory is not shared, the
/// address is in no thread's memory, or the thread is in this process.
bool open_peer_thread_memory(const void* address) noexcept;

/// A zero-filled area of `bytes` (rounded up to 64) that every process of
/// this job on this host sees under `name` (at other addresses in each), for
/// tables a library shares with its peers; nullptr when memory is not
/// shared, or the host's control area (64 MiB, sparse) is full. The same
/// name gives the same area (its size is the first caller's). Valid until
/// the run ends.
void* host_shared_area(std::string_view name, std::size_t bytes) noexcept;

}  // namespace roam
