#pragma once
// MPI datatypes as lists of contiguous blocks (displacement, bytes) of one
// element, with MPI's bounds, and the one predefined type they are made of
// when there is one (reductions need it). Packing walks the blocks.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <roam/msg/buffer.hpp>
#include <roam/msg/pup.hpp>

namespace roam::ampi {

inline constexpr int first_derived_type = 1000;
inline constexpr int last_predefined_type = 54;

// What MPI_Type_get_contents gives back: the constructor's arguments.
struct type_contents {
  std::vector<int> ints;
  std::vector<std::int64_t> aints;
  std::vector<int> types;  // handles; derived ones are kept alive while this type lives
  void pup(pup_er& p) { p | ints | aints | types; }
};

// A run of basic elements of one kind: `count` elements of `bytes` each, of
// the predefined type `handle` (a pair type's are two runs, its value's
// type then MPI_INT; a complex number is one element of its own type).
struct element_run {
  std::int64_t bytes = 0;
  std::int64_t count = 0;
  int handle = 0;
  void pup(pup_er& p) { p | bytes | count | handle; }
};

struct type_info {
  std::vector<std::pair<std::int64_t, std::int64_t>> blocks;  // (displacement, bytes), adjacent ones merged
  // The basic elements of one element in type-map order, run-length coded
  // (adjacent runs of one type merged): what MPI_Get_elements counts and
  // what external32 converts.
  std::vector<element_run> elements;
  std::int64_t lb = 0, ub = 0;            // MPI's bounds (extent = ub - lb)
  std::int64_t true_lb = 0, true_ub = 0;  // where the bytes really are
  std::int64_t size = 0;                  // bytes of data in one element
  std::int64_t basic_count = 0;           // predefined elements in one element
  int primitive = 0;                      // the predefined type of every basic element (0: mixed)
  int combiner = 1;                       // MPI_COMBINER_*
  int alignment = 1;                      // for MPI_Type_create_struct's padding
  // Bounds set by an MPI_LB / MPI_UB marker or MPI_Type_create_resized:
  // they win over the data's in the types built from this one (MPI-1's
  // "sticky" markers).
  bool explicit_lb = false, explicit_ub = false;
  bool committed = false;
  bool predefined = false;
  type_contents contents;

  std::int64_t extent() const noexcept { return ub - lb; }
  bool contiguous() const noexcept {
    return blocks.size() == 1 && blocks[0].first == 0 && blocks[0].second == extent();
  }
  void pup(pup_er& p) {
    p | blocks | elements | lb | ub | true_lb | true_ub | size | basic_count | primitive | combiner | alignment |
        explicit_lb | explicit_ub | committed | predefined | contents;
  }
};

/// The predefined type `handle`, or null.
const type_info* predefined_type(int handle) noexcept;
/// The size of one predefined basic element (0: not predefined).
std::int64_t primitive_size(int handle) noexcept;

/// A new type made of `old` repeated at the given (displacement in bytes,
/// number of old elements) places.
type_info replicate(const type_info& old, const std::vector<std::pair<std::int64_t, std::int64_t>>& places,
                    int combiner);
/// MPI_Type_create_struct's result.
type_info make_struct(const std::vector<const type_info*>& types, const std::vector<std::int64_t>& displacements,
                      const std::vector<std::int64_t>& lengths);
/// The MPI_LB / MPI_UB markers as types (size 0, one explicit bound at 0).
const type_info& lb_marker() noexcept;
const type_info& ub_marker() noexcept;
/// MPI_Get_elements of `bytes` received as elements of `t`: whole basic
/// elements, or -1 when the bytes end inside one.
std::int64_t count_elements(const type_info& t, std::int64_t bytes) noexcept;
/// The bytes of the first `n` basic elements of a run of `t` (MPI_Status_set_elements).
std::int64_t element_bytes(const type_info& t, std::int64_t n) noexcept;

/// Packs `count` elements at `buf` into `out` (count * size bytes).
void pack(const type_info& t, const void* buf, std::int64_t count, std::byte* out) noexcept;
/// `count` elements at `buf` packed into a new buffer (count * size bytes).
buffer<std::byte> packed(const void* buf, std::int64_t count, const type_info& t);
/// Unpacks `bytes` bytes (at most count * size) into `count` elements at buf.
void unpack(const type_info& t, const std::byte* in, std::int64_t bytes, void* buf, std::int64_t count) noexcept;

// external32 (MPI-3.1 13.5.2; external32.cpp): big-endian, fixed sizes.
/// Bytes of one element of `t` in external32.
std::int64_t external32_size(const type_info& t) noexcept;
/// `count` packed elements of `t` (native, count * t.size bytes at `in`)
/// written as external32 at `out`: MPI_SUCCESS, or MPI_ERR_CONVERSION when
/// a value does not fit its external32 size (a long beyond 32 bits).
int to_external32(const type_info& t, const std::byte* in, std::int64_t count, std::byte* out) noexcept;
/// The reverse: `count` elements of external32 at `in` as packed native
/// elements of `t` at `out`; MPI_ERR_CONVERSION as above.
int from_external32(const type_info& t, const std::byte* in, std::int64_t count, std::byte* out) noexcept;

}  // namespace roam::ampi
