// memory_store (memory_store.hpp): a process's in-memory checkpoints, and
// the recovery's choice among what the survivors hold.
#include "memory_store.hpp"

#include <roam/machine/detail/byte_block.hpp>

#include <algorithm>
#include <cstring>
#include <optional>

namespace roam::detail::ckpt {

namespace {

constexpr std::uint32_t manifest_item = ~std::uint32_t{0};

class writer {
 public:
  void u32(std::uint32_t v) { raw(&v, 4); }
  void u64(std::uint64_t v) { raw(&v, 8); }
  void bytes(std::span<const std::byte> b) {
    u64(b.size());
    out.insert(out.end(), b.begin(), b.end());
  }
  std::vector<std::byte> out;

 private:
  void raw(const void* p, std::size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    out.insert(out.end(), b, b + n);
  }
};

class reader {
 public:
  explicit reader(std::span<const std::byte> in) : in_(in) {}
  std::uint32_t u32() { return raw<std::uint32_t>(); }
  std::uint64_t u64() { return raw<std::uint64_t>(); }
  std::span<const std::byte> bytes() {
    const std::uint64_t n = u64();
    if (n > in_.size() - at_) throw checkpoint_error("a recovery message is truncated");
    auto b = in_.subspan(at_, n);
    at_ += n;
    return b;
  }
  bool done() const { return at_ == in_.size(); }

 private:
  template <class T>
  T raw() {
    if (sizeof(T) > in_.size() - at_) throw checkpoint_error("a recovery message is truncated");
    T v;
    std::memcpy(&v, in_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  std::span<const std::byte> in_;
  std::size_t at_ = 0;
};

// A part of a received contribution, which stays alive as long as a part of it does.
class slice_region final : public byte_region {
 public:
  slice_region(std::shared_ptr<const std::vector<std::byte>> whole, std::span<const std::byte> part)
      : whole_(std::move(whole)), part_(part) {}
  std::span<const std::byte> bytes() const noexcept override { return part_; }

 private:
  std::shared_ptr<const std::vector<std::byte>> whole_;
  std::span<const std::byte> part_;
};

// One process's inventory, decoded.
struct holding {
  std::uint64_t number;
  std::uint32_t processes, pes;
  bool manifest;
  std::vector<std::uint32_t> files;
};

std::vector<holding> decode_inventory(std::span<const std::byte> blob) {
  reader r(blob);
  std::vector<holding> out;
  const std::uint32_t n = r.u32();
  for (std::uint32_t i = 0; i < n; ++i) {
    holding h{};
    h.number = r.u64();
    h.processes = r.u32();
    h.pes = r.u32();
    h.manifest = r.u32() != 0;
    const std::uint32_t files = r.u32();
    for (std::uint32_t f = 0; f < files; ++f) h.files.push_back(r.u32());
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace

memory_store& store() {
  static memory_store s;
  return s;
}

std::uint64_t memory_store::next_number() {
  std::lock_guard lock(mutex_);
  return ++last_number_;
}

void memory_store::add_file(std::uint64_t number, std::uint32_t processes, std::uint32_t pes, std::uint32_t process,
                            std::shared_ptr<const byte_region> file) {
  std::lock_guard lock(mutex_);
  last_number_ = std::max(last_number_, number);
  auto it = std::find_if(held_.begin(), held_.end(), [&](const held_checkpoint& h) { return h.number == number; });
  if (it == held_.end()) {
    held_checkpoint h;
    h.number = number;
    h.processes = processes;
    h.pes = pes;
    it = held_.insert(std::upper_bound(held_.begin(), held_.end(), number,
                                       [](std::uint64_t n, const held_checkpoint& c) { return n < c.number; }),
                      std::move(h));
  }
  it->files[process] = std::move(file);
}

void memory_store::commit(std::uint64_t number, std::shared_ptr<const byte_region> manifest) {
  std::lock_guard lock(mutex_);
  auto it = std::find_if(held_.begin(), held_.end(), [&](const held_checkpoint& h) { return h.number == number; });
  if (it == held_.end()) {
    held_checkpoint h;
    h.number = number;
    it = held_.insert(held_.end(), std::move(h));
  }
  it->manifest = std::move(manifest);
  // The previous checkpoint goes only now that this one is complete everywhere.
  // The next one needs as much memory again (this process's file and its
  // buddy's copy): the block cache keeps the freed blocks, whose pages are
  // mapped already, instead of returning them. Twice their size: a block's
  // capacity is up to a quarter above its size (the cache's classes: the
  // tail is never touched, so it costs no memory), and the cache's other
  // blocks (messages) count against the same bound.
  std::uint64_t dropped = 0;
  for (auto h = held_.begin(); h != it; ++h)
    for (const auto& [p, f] : h->files) dropped += f->bytes().size();
  if (dropped != 0) block_cache_hold(static_cast<std::size_t>(2 * dropped));
  held_.erase(held_.begin(), it);
}

void memory_store::abandon(std::uint64_t number) {
  std::lock_guard lock(mutex_);
  std::erase_if(held_, [&](const held_checkpoint& h) { return h.number == number && !h.manifest; });
}

std::uint64_t memory_store::bytes() const {
  std::lock_guard lock(mutex_);
  std::uint64_t n = 0;
  for (const auto& h : held_) {
    if (h.manifest) n += h.manifest->bytes().size();
    for (const auto& [p, f] : h.files) n += f->bytes().size();
  }
  return n;
}

std::vector<std::byte> memory_store::inventory() const {
  std::lock_guard lock(mutex_);
  writer w;
  w.u32(static_cast<std::uint32_t>(held_.size()));
  for (const auto& h : held_) {
    w.u64(h.number);
    w.u32(h.processes);
    w.u32(h.pes);
    w.u32(h.manifest ? 1 : 0);
    w.u32(static_cast<std::uint32_t>(h.files.size()));
    for (const auto& [p, f] : h.files) w.u32(p);
  }
  return std::move(w.out);
}

bool memory_store::plan(const std::vector<std::vector<std::byte>>& inventories, std::uint32_t me,
                        std::vector<std::byte>& contribution, std::string& error) const {
  std::vector<std::vector<holding>> all;
  try {
    for (const auto& blob : inventories) all.push_back(decode_inventory(blob));
  } catch (const std::exception& e) {
    error = e.what();
    return false;
  }
  // Candidates, newest first: a number whose manifest someone holds.
  std::vector<std::uint64_t> numbers;
  for (const auto& inv : all)
    for (const auto& h : inv)
      if (h.manifest) numbers.push_back(h.number);
  std::sort(numbers.rbegin(), numbers.rend());
  numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
  for (std::uint64_t number : numbers) {
    std::uint32_t processes = 0;
    std::optional<std::uint32_t> manifest_from;
    for (std::uint32_t k = 0; k < all.size(); ++k)
      for (const auto& h : all[k])
        if (h.number == number) {
          processes = std::max(processes, h.processes);
          if (h.manifest && !manifest_from) manifest_from = k;
        }
    // Who gives each data file: the first live process holding it.
    std::vector<std::optional<std::uint32_t>> file_from(processes);
    for (std::uint32_t k = 0; k < all.size(); ++k)
      for (const auto& h : all[k])
        if (h.number == number)
          for (std::uint32_t p : h.files)
            if (p < processes && !file_from[p]) file_from[p] = k;
    if (processes == 0 || std::any_of(file_from.begin(), file_from.end(), [](const auto& f) { return !f; }))
      continue;  // a file of it died with its holders: an older one may be whole
    writer w;
    w.u64(number);
    std::lock_guard lock(mutex_);
    auto it = std::find_if(held_.begin(), held_.end(), [&](const held_checkpoint& h) { return h.number == number; });
    std::vector<std::pair<std::uint32_t, std::shared_ptr<const byte_region>>> items;
    if (*manifest_from == me) items.emplace_back(manifest_item, it->manifest);
    for (std::uint32_t p = 0; p < processes; ++p)
      if (*file_from[p] == me) items.emplace_back(p, it->files.at(p));
    w.u32(static_cast<std::uint32_t>(items.size()));
    for (const auto& [what, region] : items) {
      w.u32(what);
      w.bytes(region->bytes());
    }
    contribution = std::move(w.out);
    return true;
  }
  error = numbers.empty() ? "no in-memory checkpoint was completed (roam::checkpoint_in_memory)"
                          : "no complete in-memory checkpoint survived (every copy of a process's data was lost; +ftcopies K keeps "
                            "K copies, so that any K processes may fail at once)";
  return false;
}

bool memory_store::install(std::vector<std::vector<std::byte>> contributions, std::uint64_t program_hash,
                           std::string& error) {
  held_checkpoint whole;
  std::vector<std::shared_ptr<const byte_region>> files;
  try {
    for (auto& contribution : contributions) {
      const auto blob = std::make_shared<const std::vector<std::byte>>(std::move(contribution));
      reader r(*blob);
      const std::uint64_t number = r.u64();
      if (whole.number != 0 && whole.number != number) throw checkpoint_error("processes chose different checkpoints");
      whole.number = number;
      const std::uint32_t items = r.u32();
      for (std::uint32_t i = 0; i < items; ++i) {
        const std::uint32_t what = r.u32();
        std::shared_ptr<const byte_region> region = std::make_shared<slice_region>(blob, r.bytes());
        if (what == manifest_item) {
          whole.manifest = std::move(region);
        } else {
          if (files.size() <= what) files.resize(what + 1);
          files[what] = region;
          whole.files[what] = std::move(region);
        }
      }
    }
    auto loaded = std::make_shared<loaded_checkpoint>("memory/ckpt-" + std::to_string(whole.number), whole.manifest,
                                                      files, program_hash);
    whole.processes = loaded->identity().processes;
    whole.pes = loaded->identity().pes;
    std::lock_guard lock(mutex_);
    // Every survivor now holds all of it: a second failure finds it anywhere.
    held_.clear();
    held_.push_back(std::move(whole));
    last_number_ = std::max(last_number_, held_.back().number);
    installed_ = std::move(loaded);
    return true;
  } catch (const std::exception& e) {
    error = e.what();
    return false;
  }
}

std::shared_ptr<loaded_checkpoint> memory_store::installed() const {
  std::lock_guard lock(mutex_);
  return installed_;
}

void memory_store::clear() {
  std::lock_guard lock(mutex_);
  held_.clear();
  last_number_ = 0;
  installed_.reset();
  block_cache_hold(0);
}

}  // namespace roam::detail::ckpt
