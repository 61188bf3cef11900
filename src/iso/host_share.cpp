// The host's shared file behind the isomalloc range (include/roam/iso/
// host_memory.hpp, host_backing.hpp): its name, its control area of named
// tables, and the option that turns it on or off.
#include <roam/iso/host_memory.hpp>

#include "host_backing.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include <roam/machine/detail/hosts.hpp>
#include <roam/sched/options.hpp>

namespace roam::detail::iso {

namespace {

int g_option = -1;  // +isomalloc_share: -1 not given, 0 off, 1 on
std::atomic<bool> g_requested{false};

[[maybe_unused]] const bool share_option_registered = roam::register_runtime_options(
    "isomalloc: sharing the range between the processes of a host (src/iso/host_share.cpp)",
    {
        {"isomalloc_share", "ROAM_ISOMALLOC_SHARE", "on|off",
         "back the range with one file shared by the job's processes on each host, so that libraries (ARMCI) "
         "reach other processes' threads with a memcpy (default: on when a library asks for it)",
         [](std::string_view v) {
           bool on = false;
           std::string e = option_parse::flag(v, on);
           if (e.empty()) g_option = on ? 1 : 0;
           return e;
         }},
    },
    [] { g_option = -1; });

// The control area, after the range in the file: a header, then the named
// areas. Every process of the host maps it; its lock is a spin lock in it
// (held for a few instructions, at start-up).
constexpr std::size_t control_bytes = std::size_t{64} << 20;  // sparse: only the pages used cost memory
constexpr int max_areas = 32;
struct area_entry {
  char name[48];
  std::uint64_t offset;  // from the end of the header
  std::uint64_t bytes;
};
struct control_header {
  std::atomic<std::uint32_t> openers;
  std::atomic<std::uint32_t> lock;
  std::uint32_t areas;
  std::uint32_t unused;
  std::uint64_t used;
  area_entry entries[max_areas];
};
constexpr std::size_t header_bytes = (sizeof(control_header) + 63) / 64 * 64;
static_assert(std::atomic<std::uint32_t>::is_always_lock_free, "the control area's atomics cross processes");

std::byte* g_control = nullptr;
std::string g_name;         // the file's name, until it is removed
std::uint32_t g_local = 0;  // processes of the job on this host
std::atomic<bool> g_shared{false};

control_header& control() { return *reinterpret_cast<control_header*>(g_control); }

void warn(const std::string& what) {
  const std::string line = "roam: isomalloc: " + what + "; the range stays private to each process\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

std::string hex16(std::uint64_t v) {
  char t[20];
  std::snprintf(t, sizeof t, "%016llx", static_cast<unsigned long long>(v));
  return t;
}

}  // namespace

bool host_shared() noexcept { return g_shared.load(std::memory_order_acquire); }

int open_host_backing(const region_layout& layout, std::uint32_t my_node) {
  const bool wanted = g_option < 0 ? g_requested.load(std::memory_order_relaxed) : g_option == 1;
  const auto& hosts = node_hosts();
  const job_instance& job = this_job();
  if (!wanted || layout.size == 0 || my_node >= hosts.size() || job.key == 0) return -1;
  g_local = static_cast<std::uint32_t>(std::count(hosts.begin(), hosts.end(), hosts[my_node]));
  if (g_local < 2) return -1;
  // Named by the user, the job, its epoch (a recovery starts a new file) and
  // the host (processes told they run on different hosts share nothing).
  g_name = "/roam-" + std::to_string(::getuid()) + "-" + hex16(job.key) + "-" + std::to_string(job.epoch) + "-" +
           hex16(hosts[my_node]);
  const int fd = ::shm_open(g_name.c_str(), O_RDWR | O_CREAT, 0600);
  if (fd < 0) {
    warn("cannot open the host's shared file /dev/shm" + g_name + ": " + std::strerror(errno));
    g_name.clear();
    return -1;
  }
  const std::size_t range = layout.size / layout.slot_size * layout.slot_size;
  if (::ftruncate(fd, static_cast<off_t>(range + control_bytes)) != 0) {
    warn("cannot size the host's shared file /dev/shm" + g_name + ": " + std::strerror(errno));
    ::close(fd);
    return -1;  // the name stays for the others; close_host_backing removes it
  }
  return fd;
}

void host_backing_mapped(int fd, const region_layout& layout) {
  void* at = ::mmap(nullptr, control_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, static_cast<off_t>(layout.size));
  ::close(fd);
  if (at == MAP_FAILED) {
    warn(std::string("cannot map the host's control area: ") + std::strerror(errno));
    return;
  }
  g_control = static_cast<std::byte*>(at);
  g_shared.store(true, std::memory_order_release);
  // The last process of the host to open the file removes its name: nothing
  // stays in /dev/shm, whatever happens to the job later.
  if (control().openers.fetch_add(1, std::memory_order_acq_rel) + 1 == g_local) {
    ::shm_unlink(g_name.c_str());
    g_name.clear();
  }
}

void close_host_backing() noexcept {
  g_shared.store(false, std::memory_order_release);
  if (g_control) ::munmap(g_control, control_bytes);
  g_control = nullptr;
  if (!g_name.empty()) ::shm_unlink(g_name.c_str());  // a process of the host never came: its name goes now
  g_name.clear();
}

}  // namespace roam::detail::iso

void roam::share_thread_memory_on_host() noexcept {
  detail::iso::g_requested.store(true, std::memory_order_relaxed);
}

bool roam::thread_memory_shared_on_host() noexcept { return detail::iso::host_shared(); }

bool roam::open_peer_thread_memory(const void* address) noexcept {
  const std::uint32_t slot = detail::iso::layout().slot_of(reinterpret_cast<std::uintptr_t>(address));
  return slot != ~0u && detail::iso::open_peer_slot(slot);
}

void* roam::host_shared_area(std::string_view name, std::size_t bytes) noexcept {
  using namespace detail::iso;
  if (!g_control || name.empty() || name.size() >= sizeof(area_entry::name)) return nullptr;
  bytes = (bytes + 63) / 64 * 64;
  control_header& h = control();
  while (h.lock.exchange(1, std::memory_order_acquire) != 0) {
  }
  void* out = nullptr;
  for (std::uint32_t i = 0; i < h.areas && !out; ++i)
    if (name == h.entries[i].name) out = g_control + header_bytes + h.entries[i].offset;
  if (!out && h.areas < max_areas && bytes <= control_bytes - header_bytes - h.used) {
    area_entry& e = h.entries[h.areas++];
    std::memcpy(e.name, name.data(), name.size());
    e.name[name.size()] = '\0';
    e.offset = h.used;
    e.bytes = bytes;
    h.used += bytes;
    out = g_control + header_bytes + e.offset;
  }
  h.lock.store(0, std::memory_order_release);
  return out;
}
