// The host path's memory: this process's segment, peers' segments mapped
// here, the copy into another process, doorbells and the poller.
#include "host.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "endpoint.hpp"

#include <roam/msg/pe_call.hpp>
#include <roam/sched/poller.hpp>

namespace roam::direct::detail {
namespace {

constexpr std::uint32_t segment_magic = 0x726f6444;  // "roDd"
constexpr std::size_t max_bells = 4096;               // PEs of the whole run a segment serves
constexpr std::size_t segment_bytes = std::size_t{1} << 30;  // sparse: pages appear as they are used

struct segment_header {
  std::uint32_t magic = 0;
  std::uint32_t pad = 0;
  std::uint64_t token = 0;  ///< tells this segment from another behind a reused pid or fd
};
constexpr std::size_t bells_offset = 64;
constexpr std::size_t slots_offset = bells_offset + max_bells * sizeof(pe_bell);
constexpr std::size_t slot_capacity = 1u << 18;
constexpr std::size_t staging_offset = slots_offset + slot_capacity * sizeof(shared_slot);

struct own_segment {
  std::byte* base = nullptr;
  int fd = -1;
  std::uint64_t token = 0;
  std::atomic<std::uint32_t> next{0};
  std::atomic<std::uint64_t> staged{staging_offset};  ///< the staging region's bump pointer (never freed)
  pe_bell* bells() const { return reinterpret_cast<pe_bell*>(base + bells_offset); }
  shared_slot* slots() const { return reinterpret_cast<shared_slot*>(base + slots_offset); }
};

void open_segment(own_segment& o) {
  if (std::getenv("ROAM_DIRECT_NO_HOST")) return;
  const int fd = ::memfd_create("roam-direct", MFD_CLOEXEC);
  if (fd < 0) return;
  if (::ftruncate(fd, static_cast<off_t>(segment_bytes)) != 0) {
    ::close(fd);
    return;
  }
  void* p = ::mmap(nullptr, segment_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    ::close(fd);
    return;
  }
  std::random_device rd;
  const std::uint64_t token = (std::uint64_t{rd()} << 32) | rd();
  auto* base = static_cast<std::byte*>(p);
  auto* h = ::new (base) segment_header;
  h->token = token;
  for (std::size_t i = 0; i < max_bells; ++i) ::new (reinterpret_cast<pe_bell*>(base + bells_offset) + i) pe_bell;
  h->magic = segment_magic;
  o.fd = fd;
  o.token = token;
  o.base = base;
}

own_segment& segment() {
  static own_segment s;
  static std::once_flag once;
  std::call_once(once, [] { open_segment(s); });
  return s;
}

// Peers' segments mapped here, by (pid, fd, token); never unmapped (a
// sender may hold a slot pointer for the run).
struct peer_segments {
  std::mutex mu;
  std::map<std::tuple<std::int32_t, std::int32_t, std::uint64_t>, std::byte*> mapped;
};
peer_segments& peers() {
  static peer_segments p;
  return p;
}

std::byte* map_peer(const host_view& v) {
  peer_segments& ps = peers();
  std::lock_guard lock(ps.mu);
  auto key = std::make_tuple(v.pid, v.fd, v.token);
  if (auto it = ps.mapped.find(key); it != ps.mapped.end()) return it->second;
  std::byte* base = nullptr;
  const std::string path = "/proc/" + std::to_string(v.pid) + "/fd/" + std::to_string(v.fd);
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd >= 0) {
    void* p = ::mmap(nullptr, segment_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (p != MAP_FAILED) {
      auto* h = static_cast<const segment_header*>(p);
      if (h->magic == segment_magic && h->token == v.token) base = static_cast<std::byte*>(p);
      else ::munmap(p, segment_bytes);
    }
  }
  ps.mapped.emplace(key, base);  // a failure is remembered too: messages from then on
  return base;
}

// A message that only wakes a PE that went to sleep; its poller then looks.
void wake_up() {}

// Quiescence detection's count of host-path puts: each sender counted one
// message sent (roam::count_external_send) and rang a bell once; the PE of
// that bell counts one processed per ring by running its credit notice that
// many times (posted with post_received, which does not count a send).
// The credit notice's run is also where the PE reports what landed: its
// own receivers' callbacks run right there (a counted work item, no further
// notice), others' are signalled.
void report_landed(std::uint32_t pe) noexcept;

struct credit {
  std::uint32_t pending = 0;  // rings not yet counted (this PE's thread only)
  bool queued = false;
  bool fresh = false;         // rings added since the last look
  std::uint32_t pe = 0;
  roam::pe_notice notice{[this] { absorb(); }};
  void absorb() {
    // A look covers every ring counted before it (each put landed before
    // its ring); rings counted later make the next run look again.
    if (fresh) {
      fresh = false;
      report_landed(pe);
    }
    if (--pending > 0) notice.post_received(pe);
    else queued = false;
  }
  void add(std::uint32_t pe_id, std::uint32_t rings) {
    pe = pe_id;
    pending += rings;
    fresh = true;
    if (!queued && pending > 0) {
      queued = true;
      notice.post_received(pe);
    }
  }
};
std::array<credit, max_bells>& credits() {
  static std::array<credit, max_bells> c;
  return c;
}

class bell_poller final : public roam::pe_poller {
 public:
  bool poll(std::uint32_t pe) noexcept override {
    if (pe >= max_bells || !bells_) return false;
    const std::uint32_t r = bells_[pe].ring.load(std::memory_order_seq_cst);
    if (r == seen_[pe]) return false;
    credits()[pe].add(pe, r - seen_[pe]);
    seen_[pe] = r;
    return true;  // the credit notice is queued
  }
  void sleeping(std::uint32_t pe, bool asleep) noexcept override {
    if (pe < max_bells && bells_) bells_[pe].asleep.store(asleep ? 1 : 0, std::memory_order_seq_cst);
  }
  // Before the poller is installed: polls then read the bells without
  // going through segment()'s once-flag on every spin turn.
  void set_bells(pe_bell* b) noexcept { bells_ = b; }

 private:
  pe_bell* bells_ = nullptr;
  std::array<std::uint32_t, max_bells> seen_{};  // each PE its own entry
};
bell_poller g_poller;

// Which receivers have a put that landed and is not yet reported: all of
// the process's, not only this PE's (the sender rang the PE it knew, and the
// receiver may have moved to another PE of this process since).
void report_landed(std::uint32_t pe) noexcept {
  std::vector<std::shared_ptr<endpoint>> here;
  {
    registry& reg = the_registry();
    std::lock_guard lock(reg.mu);
    for (auto& [owner, e] : reg.by_owner) {
      (void)owner;
      const std::uint32_t st = e->st().load(std::memory_order_acquire);
      if ((st & (landed | polling)) != (landed | polling) || (st & (queued | away))) continue;
      if (e->pe.load(std::memory_order_acquire) == pe) here.push_back(e);
      else signal(*e);
    }
  }
  for (auto& e : here) deliver_landed(*e);  // callbacks outside the registry's lock
}

struct news_table {
  std::mutex mu;
  std::unordered_map<std::uint64_t, host_view> views;
};
news_table& news() {
  static news_table t;
  return t;
}

}  // namespace

std::atomic<std::uint32_t>* claim_slot(std::uint32_t& index) noexcept {
  own_segment& s = segment();
  if (!s.base) return nullptr;
  const std::uint32_t i = s.next.fetch_add(1, std::memory_order_relaxed);
  if (i >= slot_capacity) return nullptr;
  index = i;
  start_polling();
  return &(::new (s.slots() + i) shared_slot)->state;
}

namespace {

// host_buffer memory: power-of-two classes from the staging region, kept
// on free lists when released (the region itself never shrinks).
struct shared_free_lists {
  std::mutex mu;
  std::array<std::vector<std::uint64_t>, 64> by_class;  // offsets, by log2 of the size
};
shared_free_lists& free_lists() {
  static shared_free_lists f;
  return f;
}
unsigned size_class(std::size_t bytes) noexcept {
  unsigned c = 6;  // 64 bytes at least: a line of its own
  while ((std::size_t{1} << c) < bytes) ++c;
  return c;
}

}  // namespace

bool in_own_segment(const void* p, std::size_t bytes, std::uint64_t& offset) noexcept {
  const own_segment& s = segment();
  if (!s.base || bytes == 0) return false;
  const auto* b = static_cast<const std::byte*>(p);
  if (b < s.base + staging_offset || b >= s.base + segment_bytes || bytes > static_cast<std::size_t>(s.base + segment_bytes - b))
    return false;
  offset = static_cast<std::uint64_t>(b - s.base);
  return true;
}

std::byte* claim_staging(std::size_t bytes, std::uint64_t& offset) noexcept {
  own_segment& s = segment();
  if (!s.base || bytes == 0) return nullptr;
  const std::uint64_t size = (bytes + 63) & ~std::uint64_t{63};
  const std::uint64_t at = s.staged.fetch_add(size, std::memory_order_relaxed);
  if (at + size > segment_bytes) return nullptr;
  offset = at;
  return s.base + at;
}

host_view view_of(std::uint32_t slot, std::uint64_t staging, const void* buffer, std::uint32_t pe,
                  std::uint32_t epoch) noexcept {
  const own_segment& s = segment();
  host_view v;
  v.node = roam::my_node().value();
  v.pid = static_cast<std::int32_t>(::getpid());
  v.fd = s.fd;
  v.token = s.token;
  v.slot = slot;
  v.staging = staging;
  v.address = reinterpret_cast<std::uint64_t>(buffer);
  v.pe = pe;
  v.epoch = epoch;
  return v;
}

bool reach(const host_view& v, peer_access& out) noexcept {
  if (!v.valid() || v.node == roam::my_node().value() || v.slot >= slot_capacity || v.pe >= max_bells) return false;
  if (!roam::shares_host(roam::node_id{v.node})) return false;
  std::byte* base;
  try {
    base = map_peer(v);
  } catch (...) {
    return false;
  }
  if (!base) return false;
  out.state = &reinterpret_cast<shared_slot*>(base + slots_offset)[v.slot].state;
  out.bell = &reinterpret_cast<pe_bell*>(base + bells_offset)[v.pe];
  out.staging = v.staging >= staging_offset && v.staging < segment_bytes ? base + v.staging : nullptr;
  return true;
}

bool write_peer(const host_view& v, const void* source, std::size_t bytes) noexcept {
  if (bytes == 0) return true;
  ::iovec local{const_cast<void*>(source), bytes};
  ::iovec remote{reinterpret_cast<void*>(v.address), bytes};
  std::size_t done = 0;
  while (done < bytes) {
    local.iov_base = const_cast<std::byte*>(static_cast<const std::byte*>(source) + done);
    local.iov_len = bytes - done;
    remote.iov_base = reinterpret_cast<std::byte*>(v.address) + done;
    remote.iov_len = bytes - done;
    const ssize_t n = ::process_vm_writev(v.pid, &local, 1, &remote, 1, 0);
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

void ring(const host_view& v, pe_bell& bell) noexcept {
  bell.ring.fetch_add(1, std::memory_order_seq_cst);  // one per put: quiescence detection's receipt
  if (bell.asleep.load(std::memory_order_seq_cst)) roam::call_on_pe<&wake_up>(v.pe);
}

void start_polling() noexcept {
  static std::once_flag once;
  std::call_once(once, [] {
    if (roam::num_nodes() < 2) return;  // no other process can ring
    g_poller.set_bells(segment().bells());
    roam::add_pe_poller(g_poller);
  });
}

void remember_view(std::uint64_t id, const host_view& v) {
  news_table& t = news();
  std::lock_guard lock(t.mu);
  auto& slot = t.views[id];
  if (!slot.valid() || slot.epoch <= v.epoch) slot = v;
}

bool recall_view(std::uint64_t id, host_view& v) {
  news_table& t = news();
  std::lock_guard lock(t.mu);
  auto it = t.views.find(id);
  if (it == t.views.end()) return false;
  v = it->second;
  return true;
}

std::uint32_t node_of(std::uint32_t pe) noexcept {
  const std::uint32_t nodes = roam::num_nodes();
  const std::uint32_t per = nodes ? roam::num_pes() / nodes : 1;
  return per ? pe / per : 0;
}


// host_buffer's memory (include/roam/direct/host_buffer.hpp).
void* host_allocate(std::size_t bytes) noexcept {
  own_segment& s = segment();
  if (!s.base || bytes == 0) return nullptr;
  const unsigned c = size_class(bytes);
  if (c >= 40) return nullptr;
  {
    shared_free_lists& f = free_lists();
    std::lock_guard lock(f.mu);
    if (auto& list = f.by_class[c]; !list.empty()) {
      const std::uint64_t at = list.back();
      list.pop_back();
      return s.base + at;
    }
  }
  std::uint64_t at = 0;
  std::byte* p = claim_staging(std::size_t{1} << c, at);
  return p;
}

void host_release(void* p, std::size_t bytes) noexcept {
  std::uint64_t at = 0;
  if (!p || !in_own_segment(p, bytes, at)) return;
  shared_free_lists& f = free_lists();
  std::lock_guard lock(f.mu);
  try {
    f.by_class[size_class(bytes)].push_back(at);
  } catch (...) {  // out of memory for the list: the block stays unused
  }
}

}  // namespace roam::direct::detail
