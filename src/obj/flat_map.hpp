#pragma once
// Open-addressing hash map from small keys to pointers (linear probing,
// backward-shift deletion). The element table is on every delivery's path;
// std::unordered_map costs a pointer chase per lookup.
#include <cstdint>
#include <cstring>
#include <vector>

#include <roam/msg/detail/message.hpp>

namespace roam::detail {

struct u64_hash {
  std::size_t operator()(std::uint64_t k) const noexcept {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return static_cast<std::size_t>(k);
  }
};

/// Hashes an index (dense coordinates or a user index's bytes).
struct index_hash {
  std::size_t operator()(const index_storage& i) const noexcept {
    std::uint64_t w[3];
    std::memcpy(w, &i, sizeof w);
    std::uint64_t h = w[0] * 0x9e3779b97f4a7c15ull ^ (w[1] + 0x632be59bd9b4e019ull) * 0xff51afd7ed558ccdull ^ w[2];
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return static_cast<std::size_t>(h);
  }
};

template <class Key, class Hash>
class flat_map {
 public:
  flat_map() { slots_.resize(16); }

  void* find(const Key& key) const noexcept {
    std::size_t mask = slots_.size() - 1;
    for (std::size_t i = Hash{}(key) & mask;; i = (i + 1) & mask) {
      const slot& s = slots_[i];
      if (s.value == nullptr) return nullptr;
      if (s.key == key) return s.value;
    }
  }

  /// Inserts or replaces; `value` must not be null.
  void insert(const Key& key, void* value) {
    if ((size_ + 1) * 4 > slots_.size() * 3) grow();
    std::size_t mask = slots_.size() - 1;
    for (std::size_t i = Hash{}(key) & mask;; i = (i + 1) & mask) {
      slot& s = slots_[i];
      if (s.value == nullptr) {
        s = {key, value};
        ++size_;
        return;
      }
      if (s.key == key) {
        s.value = value;
        return;
      }
    }
  }

  bool erase(const Key& key) noexcept {
    std::size_t mask = slots_.size() - 1;
    std::size_t i = Hash{}(key) & mask;
    for (;; i = (i + 1) & mask) {
      if (slots_[i].value == nullptr) return false;
      if (slots_[i].key == key) break;
    }
    // Shift later members of the probe run back so lookups never stop early.
    for (std::size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
      if (slots_[j].value == nullptr) break;
      std::size_t home = Hash{}(slots_[j].key) & mask;
      bool movable = (i <= j) ? (home <= i || home > j) : (home <= i && home > j);
      if (movable) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i] = {};
    --size_;
    return true;
  }

  std::size_t size() const noexcept { return size_; }

 private:
  struct slot {
    Key key{};
    void* value = nullptr;
  };
  void grow() {
    std::vector<slot> old = std::move(slots_);
    slots_.assign(old.size() * 2, {});
    size_ = 0;
    for (const slot& s : old)
      if (s.value) insert(s.key, s.value);
  }

  std::vector<slot> slots_;
  std::size_t size_ = 0;
};

using flat_map_u64 = flat_map<std::uint64_t, u64_hash>;
using flat_map_index = flat_map<index_storage, index_hash>;

}  // namespace roam::detail
