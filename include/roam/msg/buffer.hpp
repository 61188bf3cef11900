#pragma once
/// \file
/// roam::buffer<T>: a reference-counted array of trivially copyable elements
/// that crosses processes without being copied (docs/design/zero-copy.md).
///
/// ```cpp
/// void halo(roam::buffer<double> ghost);              // an entry method
/// roam::buffer<double> b(1 << 20);                    // 8 MiB, zero-filled
/// std::ranges::fill(b.mutable_span(), 1.0);
/// neighbor.send<&cell::halo>(b);                      // no copy of the elements
/// ```
///
/// - Copies share the elements (like std::shared_ptr<T[]>); moving is free.
///   Inside one process an argument of this type is therefore never copied.
/// - Between processes, a buffer of more than 16 KiB is not serialized into
///   the message: the transport sends it from the buffer's own memory, and
///   the receiver's buffer adopts the memory it was received into. Smaller
///   buffers are packed inline like a std::vector.
/// - Reading is through const access (data(), span(), operator[], iteration).
///   Writing goes through mutable_span()/mutable_data(), which first make the
///   elements this buffer's own: when another buffer or a message in flight
///   shares them, they are copied (copy on write). So a buffer that was sent
///   may be reused at once; the message keeps what it was sent with.
/// - Thread safety: like std::shared_ptr. Distinct buffer objects sharing
///   elements may be used from different threads; one buffer object must not
///   be modified by one thread while another uses it.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <span>
#include <type_traits>

#include <roam/machine/detail/byte_block.hpp>
#include <roam/msg/detail/segments.hpp>
#include <roam/msg/pup.hpp>

namespace roam {

namespace detail {
/// Element types whose every bit pattern is a valid value: received bytes
/// are adopted without validation.
template <class T>
inline constexpr bool buffer_element_v =
    std::is_trivially_copyable_v<T> && !std::is_const_v<T> && !std::is_volatile_v<T> && alignof(T) <= 64 &&
    ((std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) || std::is_same_v<T, std::byte> ||
     bitwise_serializable<T>);
}  // namespace detail

/// A shared array of `T` that travels between processes without copies.
/// T: an arithmetic type other than bool, std::byte, or a type opted in with
/// roam::bitwise_serializable (trivially copyable, valid for every bit pattern).
template <class T>
class buffer {
  static_assert(detail::buffer_element_v<T>,
                "roam::buffer<T>: T must be an arithmetic type other than bool, std::byte, or a trivially copyable "
                "type opted in with `template <> inline constexpr bool roam::bitwise_serializable<T> = true;` "
                "(received bytes are adopted without validation, so every bit pattern must be a valid T)");

 public:
  using value_type = T;
  using size_type = std::size_t;
  using const_iterator = const T*;

  /// An empty buffer (no allocation).
  buffer() noexcept = default;
  /// `n` value-initialised (zero) elements.
  explicit buffer(std::size_t n) : buffer(uninitialized(n)) {
    if (n != 0) std::memset(static_cast<void*>(block_.data()), 0, n * sizeof(T));
  }
  /// `n` copies of `value`.
  buffer(std::size_t n, const T& value) : buffer(uninitialized(n)) { std::fill_n(ptr(), n, value); }
  /// A copy of `values`.
  buffer(std::initializer_list<T> values) : buffer(std::span<const T>(values.begin(), values.size())) {}
  /// A copy of `values` (a std::vector, an array, a span...).
  explicit buffer(std::span<const T> values) : buffer(uninitialized(values.size())) {
    if (!values.empty()) std::memcpy(static_cast<void*>(ptr()), values.data(), values.size_bytes());
  }
  /// `n` elements with indeterminate values, to be written through
  /// mutable_span() before they are read (no zero-filling pass).
  static buffer uninitialized(std::size_t n) {
    buffer b;
    if (n != 0) {
      if (n > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
      b.block_ = detail::block_ref::allocate(n * sizeof(T));
      b.size_ = n;
    }
    return b;
  }

  /// Shares the elements (no copy).
  buffer(const buffer&) noexcept = default;
  buffer& operator=(const buffer&) noexcept = default;
  buffer(buffer&& o) noexcept : block_(std::move(o.block_)), size_(std::exchange(o.size_, 0)) {}
  buffer& operator=(buffer&& o) noexcept {
    block_ = std::move(o.block_);
    size_ = std::exchange(o.size_, 0);
    return *this;
  }

  std::size_t size() const noexcept { return size_; }
  std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
  bool empty() const noexcept { return size_ == 0; }
  /// The elements, read-only (nullptr when empty).
  const T* data() const noexcept { return ptr(); }
  std::span<const T> span() const noexcept { return {ptr(), size_}; }
  const T& operator[](std::size_t i) const noexcept { return ptr()[i]; }
  const T* begin() const noexcept { return ptr(); }
  const T* end() const noexcept { return ptr() + size_; }

  /// The elements, writable. If they are shared (with another buffer or a
  /// message being sent) they are first copied, so nobody else sees the writes.
  std::span<T> mutable_span() {
    if (size_ != 0 && !block_.unique()) *this = clone();
    return {ptr(), size_};
  }
  T* mutable_data() { return mutable_span().data(); }

  /// A buffer with its own copy of the elements.
  buffer clone() const { return buffer(span()); }
  /// How many buffers (and messages) share these elements (0 when empty).
  std::size_t use_count() const noexcept { return block_.use_count(); }
  /// Empties this buffer (the elements are freed with their last holder).
  void reset() noexcept {
    block_.reset();
    size_ = 0;
  }

  /// Element-wise equality.
  friend bool operator==(const buffer& a, const buffer& b)
    requires requires(const T& x) { x == x; }
  {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

  /// Serialization (see the file comment).
  void pup(pup_er& p) { detail::pup_buffer_storage(p, block_, size_, sizeof(T), detail::type_name_v<buffer>); }

 private:
  T* ptr() const noexcept { return reinterpret_cast<T*>(block_.data()); }

  detail::block_ref block_;  // null when empty
  std::size_t size_ = 0;
};

/// Raw bytes that travel without copies.
using bytes = buffer<std::byte>;

}  // namespace roam
