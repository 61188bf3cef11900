#pragma once

/// \file
/// Serialization for roam messages and checkpoints, after Charm++'s PUP idea:
/// one `pup` function per type serves the sizing, packing and unpacking
/// passes, so the three can never disagree about the layout.
///
/// Wire format: scalars are copied in native byte order and container
/// lengths are unsigned 64-bit integers in native byte order, so only peers of
/// the same endianness (and the same `sizeof` for every packed scalar) can
/// exchange bytes. There is no padding and no type tagging: both sides must
/// pup the same static types in the same order.
///
/// Unpacking treats its input as untrusted: every length is checked against
/// the bytes that remain before anything is allocated, and truncated or
/// corrupt input is reported as `pup_error`, never as a crash or a huge
/// allocation. Two limits guard what cannot be checked that way: element
/// types that may pack to zero bytes are capped at
/// `pup_er::max_zero_size_elements` per container, and user-type nesting is
/// capped at `pup_er::max_nesting_depth`. A class that is not empty is assumed
/// to pack at least one byte; a class whose pup writes nothing must be empty.
/// Types opted in through `bitwise_serializable` are copied without
/// validation, so they should be valid for every bit pattern (no `bool` or
/// enum members) when the input is not protected by a checksum.
///
/// When `pup_error` escapes an unpack, the target object is left valid but
/// with unspecified contents.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "roam/msg/names.hpp"

namespace roam {

/// Thrown when bytes cannot be produced or consumed: truncated or corrupt
/// input while unpacking, a buffer too small while packing, or nesting beyond
/// `pup_er::max_nesting_depth`. what() says what was being read or written
/// and at which byte offset.
class pup_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Opts a type in to serialization as its raw object bytes (one memcpy, also
/// for whole vectors and arrays of it): specialize as
/// `template <> inline constexpr bool roam::bitwise_serializable<my_pod> = true;`.
/// The type must be trivially copyable (a static_assert says so otherwise) and
/// hold no pointers; its bytes are not validated when unpacking.
/// (std::complex: include <roam/msg/complex.hpp>.)
template <class T>
inline constexpr bool bitwise_serializable = false;

class pup_er;

namespace detail {
/// Per-type sizing/packing/unpacking rules; specialized in detail/pup_traits.hpp.
template <class T>
struct pup_traits;
/// Shared container algorithms; a friend of pup_er.
struct pup_impl;
/// Out-of-line segments of a message frame (detail/segments.hpp).
class segment_table;

/// roam::type_name<T>() forced to compile time, for error messages that cost
/// nothing until they are thrown.
template <class T>
inline constexpr std::string_view type_name_v = roam::type_name<T>();

/// The representation of a scalar: the underlying type of an enum, else T.
template <class T>
struct scalar_repr {
  using type = T;
};
template <class T>
  requires std::is_enum_v<T>
struct scalar_repr<T> {
  using type = std::underlying_type_t<T>;
};

/// True for bool and enums over bool, whose only valid bytes are 0 and 1.
template <class T>
inline constexpr bool is_bool_like_v = std::is_same_v<typename scalar_repr<T>::type, bool>;
}  // namespace detail

/// True for every type `pup_er::operator|` accepts: arithmetic types, enums,
/// std::byte, the supported standard containers and wrappers whose element
/// types are themselves serializable, types with a member
/// `void pup(roam::pup_er&)` or an ADL-found free `pup(roam::pup_er&, T&)`,
/// and types opted in through `bitwise_serializable`. Raw pointers are never
/// serializable. Usable in static_asserts on message parameter types.
template <class T>
concept serializable = detail::pup_traits<std::remove_cvref_t<T>>::serializable;

namespace detail {
/// The one place that states the not-serializable diagnostic.
template <class T>
constexpr void check_serializable() noexcept {
  static_assert(serializable<T>,
                "roam: type is not serializable. Give it a member `void pup(roam::pup_er&)` "
                "(or `template <class P> void pup(P&)`), a free function "
                "`pup(roam::pup_er&, T&)` found by ADL, or opt in to bitwise copying with "
                "`template <> inline constexpr bool roam::bitwise_serializable<T> = true;`. "
                "Raw pointers are never serializable; containers need serializable elements.");
}

/// Rejects input with bytes left over after the last value.
[[noreturn, gnu::noinline, gnu::cold]] inline void fail_trailing(std::size_t offset, std::size_t remaining) {
  throw pup_error("roam::pup: " + std::to_string(remaining) + " trailing bytes after the last value at byte offset " +
                  std::to_string(offset));
}

/// The one place that states the default-constructible diagnostic. Returns
/// whether T is default constructible, so callers can skip the unpacking code
/// (`if constexpr`) and leave only this message instead of a cascade.
template <class T>
constexpr bool require_default_constructible() noexcept {
  static_assert(std::is_default_constructible_v<T>,
                "roam: unpacking default-constructs each object and then pups into it, so "
                "this type needs a default constructor: add one to T (pup overwrites its "
                "fields), or pup the enclosing object by hand.");
  return std::is_default_constructible_v<T>;
}
}  // namespace detail

/// A sizing, packing or unpacking pass over one buffer. Write one `pup`
/// per type with `p | field;` for every field; the same code then counts
/// bytes, writes them, or reads them back, depending on get_mode().
/// Not copyable: pass it by reference so progress is not lost.
class pup_er {
 public:
  /// Which pass this is.
  enum class mode : unsigned char { sizing, packing, unpacking };

  /// Deepest nesting of user types (those with a pup function) accepted in
  /// any mode; deeper input is rejected with pup_error instead of
  /// overflowing the stack.
  static constexpr std::uint32_t max_nesting_depth = 512;

  /// Largest element count accepted when unpacking a container whose
  /// elements may pack to zero bytes (so the remaining input cannot bound it).
  static constexpr std::uint64_t max_zero_size_elements = std::uint64_t{1} << 20;

  /// Not copyable: a copy would advance its own offset and lose progress.
  pup_er(const pup_er&) = delete;
  /// Not assignable, for the same reason.
  pup_er& operator=(const pup_er&) = delete;

  /// A pass that only counts bytes; offset() is the packed size afterwards.
  static pup_er sizer() noexcept {
    return pup_er(nullptr, std::numeric_limits<std::size_t>::max(), mode::sizing);
  }

  /// A pass that writes into buf[0, capacity); writing past capacity throws pup_error.
  static pup_er packer(std::byte* buf, std::size_t capacity) noexcept {
    return pup_er(buf, capacity, mode::packing);
  }

  /// A pass that reads from buf[0, size); reading past the end, or reading
  /// corrupt values, throws pup_error. The buffer is never written.
  static pup_er unpacker(const std::byte* buf, std::size_t size) noexcept {
    // The pointer is stored non-const so one member serves both directions;
    // nothing writes through it in unpacking mode.
    return pup_er(const_cast<std::byte*>(buf), size, mode::unpacking);
  }

  /// The pass this pup_er performs.
  mode get_mode() const noexcept { return mode_; }
  /// True in the sizing pass.
  bool is_sizing() const noexcept { return mode_ == mode::sizing; }
  /// True in the packing pass.
  bool is_packing() const noexcept { return mode_ == mode::packing; }
  /// True in the unpacking pass.
  bool is_unpacking() const noexcept { return mode_ == mode::unpacking; }

  /// Bytes counted, written or consumed so far.
  std::size_t offset() const noexcept { return off_; }

  /// Bytes left in the buffer when packing or unpacking; effectively
  /// unbounded (SIZE_MAX - offset()) when sizing.
  std::size_t remaining() const noexcept { return cap_ - off_; }

  /// Copies n raw bytes: counts them, writes them from p, or reads them into
  /// p. Throws pup_error when packing past capacity or unpacking past the end.
  void bytes(void* p, std::size_t n) { raw_(p, n, "raw bytes", {}); }

  /// Pups one value with the rule for its type and returns *this for
  /// chaining (`p | a | b;`). Compile error (static_assert) if T is not
  /// serializable; pup_error on truncated or corrupt input, a buffer too small
  /// or nesting too deep.
  template <class T>
  pup_er& operator|(T& value) {
    detail::check_serializable<T>();
    if constexpr (serializable<T>) detail::pup_traits<std::remove_cv_t<T>>::apply(*this, value);
    return *this;
  }

  /// Pups a const value (or a temporary) when sizing or packing. Throws
  /// std::logic_error when unpacking, since there is nowhere to store the
  /// result; otherwise reports errors like the non-const overload.
  template <class T>
  pup_er& operator|(T const& value) {
    detail::check_serializable<T>();
    if constexpr (serializable<T>) {
      if (mode_ == mode::unpacking) [[unlikely]]
        fail_const_(detail::type_name_v<T>);
      // pup functions take non-const references so one function serves all
      // passes; sizing and packing only read through them.
      detail::pup_traits<std::remove_cv_t<T>>::apply(*this, const_cast<std::remove_cv_t<T>&>(value));
    }
    return *this;
  }

  /// Pups a container length for hand-written containers: counts or writes
  /// n when sizing or packing; when unpacking, reads the packed length
  /// (ignoring n) and rejects it with pup_error unless that many elements of
  /// at least min_bytes_per_element packed bytes each fit in remaining()
  /// (min_bytes_per_element == 0 means up to max_zero_size_elements).
  /// Returns the length: n, or the value read.
  std::uint64_t check_count(std::uint64_t n, std::size_t min_bytes_per_element) {
    return count_(n, min_bytes_per_element, "container length", {});
  }

 private:
  friend struct detail::pup_impl;

  pup_er(std::byte* buf, std::size_t cap, mode m) noexcept : buf_(buf), cap_(cap), mode_(m) {}

  // Every transfer funnels through here; `what`/`of` only feed error text.
  void raw_(void* p, std::size_t n, std::string_view what, std::string_view of) {
    if (n > cap_ - off_) [[unlikely]]
      fail_bounds_(n, what, of);
    if (n != 0) {  // p may be null for empty containers; memcpy forbids that.
      if (mode_ == mode::packing)
        std::memcpy(buf_ + off_, p, n);
      else if (mode_ == mode::unpacking)
        std::memcpy(p, buf_ + off_, n);
    }
    off_ += n;
  }

  template <class T>
  void scalar_(T& v, std::string_view what) {
    if constexpr (detail::is_bool_like_v<T>) {
      // A bool object holding anything but 0 or 1 is undefined behaviour, so
      // other bytes are corruption rather than "true". The target is not read
      // when unpacking (it may be uninitialized), and written only then:
      // sizing and packing only read, so several PEs may size one shared
      // payload at once (observers count what a message carries).
      const bool b = bool_(mode_ != mode::unpacking && static_cast<bool>(v), what, {});
      if (mode_ == mode::unpacking) v = static_cast<T>(b);
    } else {
      raw_(std::addressof(v), sizeof(T), what, {});
    }
  }

  bool bool_(bool b, std::string_view what, std::string_view of) {
    const std::size_t at = off_;
    unsigned char c = b ? 1 : 0;
    raw_(&c, 1, what, of);
    if (mode_ == mode::unpacking && c > 1) [[unlikely]]
      fail_corrupt_(at, what, of, "a bool byte must be 0 or 1, got " + std::to_string(c));
    return c != 0;
  }

  std::uint64_t length_(std::uint64_t n, std::string_view what, std::string_view of) {
    raw_(&n, sizeof n, what, of);
    return n;
  }

  std::uint64_t count_(std::uint64_t n, std::size_t min_bytes, std::string_view what, std::string_view of) {
    const std::size_t at = off_;
    n = length_(n, what, of);
    if (mode_ == mode::unpacking) {
      const bool fits = min_bytes == 0 ? n <= max_zero_size_elements : n <= remaining() / min_bytes;
      if (!fits) [[unlikely]]
        fail_count_(at, n, min_bytes, what, of);
    }
    return n;
  }

  // Only valid when sizing: adds bytes without touching memory.
  void skip_(std::size_t n) noexcept { off_ += n; }

  static std::string describe_(std::string_view what, std::string_view of) {
    std::string s(what);
    if (!of.empty()) {
      s += " of ";
      s += of;
    }
    return s;
  }

  [[noreturn, gnu::noinline, gnu::cold]] void fail_bounds_(std::size_t n, std::string_view what,
                                                           std::string_view of) const {
    if (mode_ == mode::packing)
      throw pup_error("roam::pup: buffer too small writing " + describe_(what, of) + " at byte offset " +
                      std::to_string(off_) + ": needs " + std::to_string(n) + " bytes, " +
                      std::to_string(cap_ - off_) + " left of capacity " + std::to_string(cap_));
    throw pup_error("roam::pup: truncated input reading " + describe_(what, of) + " at byte offset " +
                    std::to_string(off_) + ": needs " + std::to_string(n) + " bytes, " +
                    std::to_string(cap_ - off_) + " remain");
  }

  [[noreturn, gnu::noinline, gnu::cold]] void fail_corrupt_(std::size_t at, std::string_view what,
                                                            std::string_view of, const std::string& why) const {
    throw pup_error("roam::pup: corrupt input reading " + describe_(what, of) + " at byte offset " +
                    std::to_string(at) + ": " + why);
  }

  [[noreturn, gnu::noinline, gnu::cold]] void fail_count_(std::size_t at, std::uint64_t n, std::size_t min_bytes,
                                                          std::string_view what, std::string_view of) const {
    // A length that overruns the input is as likely truncation as corruption.
    std::string why = min_bytes == 0 ? "exceeds the limit of " + std::to_string(max_zero_size_elements) +
                                           " for elements that may pack to zero bytes"
                                     : "with at least " + std::to_string(min_bytes) +
                                           " bytes per element cannot fit in the " + std::to_string(cap_ - off_) +
                                           " remaining bytes";
    throw pup_error("roam::pup: truncated or corrupt input reading " + describe_(what, of) + " at byte offset " +
                    std::to_string(at) + ": length " + std::to_string(n) + " " + why);
  }

  [[noreturn, gnu::noinline, gnu::cold]] void fail_depth_(std::string_view what) const {
    throw pup_error("roam::pup: nesting deeper than " + std::to_string(max_nesting_depth) + " levels at " +
                    std::string(what) + ", byte offset " + std::to_string(off_));
  }

  [[noreturn, gnu::noinline, gnu::cold]] static void fail_const_(std::string_view what) {
    throw std::logic_error("roam::pup_er: cannot unpack into a const " + std::string(what));
  }

  std::byte* buf_;
  std::size_t cap_;
  std::size_t off_ = 0;
  std::uint32_t depth_ = 0;
  mode mode_;
  // Set only while packing or unpacking a message frame: where roam::buffer
  // contents travel out of line. Null elsewhere (buffers are then inline).
  detail::segment_table* segments_ = nullptr;
};

/// The number of bytes pack(values...) produces (a sizing pass). Compile
/// error if a type is not serializable; pup_error only if a user pup throws
/// it (e.g. nesting deeper than pup_er::max_nesting_depth).
template <class... T>
std::size_t packed_size(T const&... values) {
  (detail::check_serializable<T>(), ...);
  pup_er p = pup_er::sizer();
  ((void)(p | values), ...);
  return p.offset();
}

/// Packs values, in order, into the front of out and returns the number of
/// bytes written. Throws pup_error if out is too small.
template <class... T>
std::size_t pack_into(std::span<std::byte> out, T const&... values) {
  (detail::check_serializable<T>(), ...);
  pup_er p = pup_er::packer(out.data(), out.size());
  ((void)(p | values), ...);
  return p.offset();
}

/// Packs values, in order, into a new exactly-sized byte vector (a sizing
/// pass, then a packing pass). Reports errors like packed_size().
template <class... T>
std::vector<std::byte> pack(T const&... values) {
  std::vector<std::byte> out(packed_size(values...));
  pack_into(std::span<std::byte>(out), values...);
  return out;
}

/// Unpacks into existing objects, in order, from bytes that must be consumed
/// exactly. Containers, optionals, variants and unique_ptrs are rebuilt;
/// other values are pupped in place. Throws pup_error on truncated or corrupt
/// input and on trailing bytes.
template <class... T>
void unpack_into(std::span<const std::byte> in, T&... values) {
  static_assert((!std::is_const_v<T> && ...), "roam::unpack_into needs non-const targets");
  (detail::check_serializable<T>(), ...);
  pup_er p = pup_er::unpacker(in.data(), in.size());
  ((void)(p | values), ...);
  if (p.remaining() != 0) [[unlikely]]
    detail::fail_trailing(p.offset(), p.remaining());
}

/// Unpacks one value that must span all of in: a value-initialized T is
/// pupped from the bytes. Throws pup_error on truncated or corrupt input and
/// on trailing bytes. Compile error if T is not serializable or not default
/// constructible; use unpack_into for C arrays.
template <class T>
T unpack(std::span<const std::byte> in) {
  static_assert(!std::is_array_v<T>, "roam::unpack cannot return a C array; use roam::unpack_into");
  static_assert(!std::is_const_v<T> && !std::is_reference_v<T>, "roam::unpack<T> needs a plain object type");
  detail::check_serializable<T>();
  if constexpr (detail::require_default_constructible<T>()) {
    T value{};
    unpack_into(in, value);
    return value;
  }
}

}  // namespace roam

#include "roam/msg/detail/pup_traits.hpp"
