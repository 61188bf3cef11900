#pragma once
/// \file
/// roam::direct::host_buffer<T>: an array for a channel's receiving side that
/// the processes of this host can write directly. A receiver whose buffer
/// is a host_buffer gets puts from other processes of its host in one copy,
/// the sender's, straight into the buffer (as an MPI_Put into a window);
/// with any other buffer such a put lands in a staging area of the
/// receiving process first and is copied into the buffer on arrival.
/// Within a process it makes no difference (the sender copies into the
/// buffer either way). Elsewhere it behaves like a fixed-size vector of
/// trivially copyable values: copies are deep, pup carries the contents
/// (and a copy made in another process is a host_buffer there).
///
/// ```cpp
/// roam::direct::host_buffer<double> ghost{n};
/// in = roam::direct::make_channel(*this, ghost.span(), [this] { ghost_arrived(); });
/// ```
///
/// The memory comes from the process's shared segment (docs/design/direct.md,
/// "The host path"); when that is missing (no memfd, ROAM_DIRECT_NO_HOST) or
/// full, from the heap, and puts from other processes are staged as usual.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <span>
#include <type_traits>
#include <utility>

#include <roam/msg/pup.hpp>

namespace roam::direct {

namespace detail {
/// `bytes` from this process's shared segment, 64-byte aligned; nullptr
/// when there is no segment or no room (the caller falls back to the heap).
void* host_allocate(std::size_t bytes) noexcept;
/// Gives back what host_allocate returned (the same `bytes`).
void host_release(void* p, std::size_t bytes) noexcept;
}  // namespace detail

template <class T>
  requires std::is_trivially_copyable_v<T>
class host_buffer {
 public:
  host_buffer() = default;
  explicit host_buffer(std::size_t n, const T& value = T{}) {
    allocate(n);
    std::fill(data_, data_ + size_, value);
  }
  explicit host_buffer(std::span<const T> from) {
    allocate(from.size());
    if (size_) std::memcpy(static_cast<void*>(data_), from.data(), size_ * sizeof(T));
  }
  host_buffer(const host_buffer& o) : host_buffer(o.span()) {}
  host_buffer(host_buffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)), shared_(std::exchange(o.shared_, false)) {}
  host_buffer& operator=(host_buffer o) noexcept {
    swap(o);
    return *this;
  }
  ~host_buffer() { release(); }

  void swap(host_buffer& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(shared_, o.shared_);
  }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  T* begin() noexcept { return data_; }
  T* end() noexcept { return data_ + size_; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size_; }
  std::span<T> span() noexcept { return {data_, size_}; }
  std::span<const T> span() const noexcept { return {data_, size_}; }
  /// True when the memory is in the shared segment (puts from other
  /// processes of this host land in it directly).
  bool shared() const noexcept { return shared_; }

  void pup(roam::pup_er& p) {
    std::uint64_t n = p.check_count(size_, sizeof(T));
    if (p.is_unpacking()) *this = host_buffer(static_cast<std::size_t>(n));
    if (size_) p.bytes(static_cast<void*>(data_), size_ * sizeof(T));
  }

 private:
  static std::size_t bytes_for(std::size_t n) noexcept { return std::max<std::size_t>(n * sizeof(T), 1); }
  void allocate(std::size_t n) {
    size_ = n;
    if (n == 0) return;
    if (void* p = detail::host_allocate(bytes_for(n))) {
      data_ = static_cast<T*>(p);
      shared_ = true;
    } else {
      data_ = static_cast<T*>(::operator new(bytes_for(n), std::align_val_t{64}));
    }
  }
  void release() noexcept {
    if (!data_) return;
    if (shared_) detail::host_release(data_, bytes_for(size_));
    else ::operator delete(static_cast<void*>(data_), std::align_val_t{64});
    data_ = nullptr;
    size_ = 0;
    shared_ = false;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  bool shared_ = false;
};

}  // namespace roam::direct
