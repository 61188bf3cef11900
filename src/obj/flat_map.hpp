#pragma once
// Open-addressing hash map from 64-bit keys to pointers (linear probing,
// backward-shift deletion). The element table is on every delivery's path;
// std::unordered_map costs a pointer chase per lookup.
#include <cstdint>
#include <vector>

namespace roam::detail {

class flat_map_u64 {
 public:
  flat_map_u64() { slots_.resize(16); }

  void* find(std::uint64_t key) const noexcept {
    std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash(key) & mask;; i = (i + 1) & mask) {
      const slot& s = slots_[i];
      if (s.value == nullptr) return nullptr;
      if (s.key == key) return s.value;
    }
  }

  /// Inserts or replaces; `value` must not be null.
  void insert(std::uint64_t key, void* value) {
    if ((size_ + 1) * 4 > slots_.size() * 3) grow();
    std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash(key) & mask;; i = (i + 1) & mask) {
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

  bool erase(std::uint64_t key) noexcept {
    std::size_t mask = slots_.size() - 1;
    std::size_t i = hash(key) & mask;
    for (;; i = (i + 1) & mask) {
      if (slots_[i].value == nullptr) return false;
      if (slots_[i].key == key) break;
    }
    // Shift later members of the probe run back so lookups never stop early.
    for (std::size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
      if (slots_[j].value == nullptr) break;
      std::size_t home = hash(slots_[j].key) & mask;
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
    std::uint64_t key = 0;
    void* value = nullptr;
  };
  static std::size_t hash(std::uint64_t k) noexcept {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return static_cast<std::size_t>(k);
  }
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

}  // namespace roam::detail
