// Predefined datatypes, type construction and packing.
#include "datatype.hpp"

#include <algorithm>
#include <array>
#include <complex>
#include <cstring>
#include <limits>

#include <mpi.h>

namespace roam::ampi {
namespace {

type_info basic(std::int64_t size, std::int64_t align, int handle) {
  type_info t;
  t.blocks = {{0, size}};
  t.elements = {{size, 1, handle}};
  t.ub = t.true_ub = t.size = size;
  t.basic_count = 1;
  t.primitive = handle;
  t.alignment = static_cast<int>(align);
  t.committed = t.predefined = true;
  return t;
}

// A (value, int) pair laid out as the C struct { T value; int index; }: its
// packed form is the two fields back to back; `value_handle` is T's type.
template <class T>
type_info pair_of(int handle, int value_handle) {
  struct layout {
    T value;
    int index;
  };
  type_info t;
  t.blocks = {{0, static_cast<std::int64_t>(sizeof(T))}};
  const auto at = static_cast<std::int64_t>(offsetof(layout, index));
  if (at == static_cast<std::int64_t>(sizeof(T))) t.blocks[0].second += sizeof(int);
  else t.blocks.push_back({at, static_cast<std::int64_t>(sizeof(int))});
  t.ub = static_cast<std::int64_t>(sizeof(layout));
  t.true_ub = at + static_cast<std::int64_t>(sizeof(int));
  t.size = static_cast<std::int64_t>(sizeof(T) + sizeof(int));
  t.elements = {{static_cast<std::int64_t>(sizeof(T)), 1, value_handle},
                {static_cast<std::int64_t>(sizeof(int)), 1, MPI_INT}};
  if (value_handle == MPI_INT) t.elements = {{static_cast<std::int64_t>(sizeof(int)), 2, MPI_INT}};
  t.basic_count = 2;  // MPI_Get_elements counts the value and the index
  t.primitive = handle;
  t.alignment = static_cast<int>(alignof(layout));
  t.committed = t.predefined = true;
  return t;
}

// Two elements of the type `each` (A in C).
template <class A, class B>
type_info two_of(int handle, int each) {
  type_info t = basic(static_cast<std::int64_t>(sizeof(A) + sizeof(B)), alignof(A), handle);
  static_assert(sizeof(A) == sizeof(B));
  t.elements = {{static_cast<std::int64_t>(sizeof(A)), 2, each}};
  t.basic_count = 2;
  return t;
}

std::array<type_info, last_predefined_type + 1> make_table() {
  std::array<type_info, last_predefined_type + 1> t{};
  auto set = [&](int h, std::int64_t size, std::int64_t align) { t[static_cast<std::size_t>(h)] = basic(size, align, h); };
  set(MPI_CHAR, 1, 1);
  set(MPI_SIGNED_CHAR, 1, 1);
  set(MPI_UNSIGNED_CHAR, 1, 1);
  set(MPI_BYTE, 1, 1);
  set(MPI_SHORT, sizeof(short), alignof(short));
  set(MPI_UNSIGNED_SHORT, sizeof(short), alignof(short));
  set(MPI_INT, sizeof(int), alignof(int));
  set(MPI_UNSIGNED, sizeof(int), alignof(int));
  set(MPI_LONG, sizeof(long), alignof(long));
  set(MPI_UNSIGNED_LONG, sizeof(long), alignof(long));
  set(MPI_LONG_LONG_INT, sizeof(long long), alignof(long long));
  set(MPI_UNSIGNED_LONG_LONG, sizeof(long long), alignof(long long));
  set(MPI_FLOAT, sizeof(float), alignof(float));
  set(MPI_DOUBLE, sizeof(double), alignof(double));
  set(MPI_LONG_DOUBLE, sizeof(long double), alignof(long double));
  set(MPI_WCHAR, sizeof(wchar_t), alignof(wchar_t));
  set(MPI_C_BOOL, sizeof(bool), alignof(bool));
  set(MPI_INT8_T, 1, 1);
  set(MPI_INT16_T, 2, 2);
  set(MPI_INT32_T, 4, 4);
  set(MPI_INT64_T, 8, 8);
  set(MPI_UINT8_T, 1, 1);
  set(MPI_UINT16_T, 2, 2);
  set(MPI_UINT32_T, 4, 4);
  set(MPI_UINT64_T, 8, 8);
  set(MPI_C_FLOAT_COMPLEX, 2 * sizeof(float), alignof(float));
  set(MPI_C_DOUBLE_COMPLEX, 2 * sizeof(double), alignof(double));
  set(MPI_C_LONG_DOUBLE_COMPLEX, 2 * sizeof(long double), alignof(long double));
  set(MPI_AINT, sizeof(MPI_Aint), alignof(MPI_Aint));
  set(MPI_OFFSET, sizeof(MPI_Offset), alignof(MPI_Offset));
  set(MPI_COUNT, sizeof(MPI_Count), alignof(MPI_Count));
  set(MPI_PACKED, 1, 1);
  set(MPI_CXX_BOOL, sizeof(bool), alignof(bool));
  set(MPI_CXX_FLOAT_COMPLEX, 2 * sizeof(float), alignof(float));
  set(MPI_CXX_DOUBLE_COMPLEX, 2 * sizeof(double), alignof(double));
  set(MPI_CXX_LONG_DOUBLE_COMPLEX, 2 * sizeof(long double), alignof(long double));
  t[MPI_FLOAT_INT] = pair_of<float>(MPI_FLOAT_INT, MPI_FLOAT);
  t[MPI_DOUBLE_INT] = pair_of<double>(MPI_DOUBLE_INT, MPI_DOUBLE);
  t[MPI_LONG_INT] = pair_of<long>(MPI_LONG_INT, MPI_LONG);
  t[MPI_2INT] = pair_of<int>(MPI_2INT, MPI_INT);
  t[MPI_SHORT_INT] = pair_of<short>(MPI_SHORT_INT, MPI_SHORT);
  t[MPI_LONG_DOUBLE_INT] = pair_of<long double>(MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE);
  t[MPI_2FLOAT] = two_of<float, float>(MPI_2FLOAT, MPI_REAL);
  t[MPI_2DOUBLE_PRECISION] = two_of<double, double>(MPI_2DOUBLE_PRECISION, MPI_DOUBLE_PRECISION);
  t[MPI_2INTEGER] = two_of<int, int>(MPI_2INTEGER, MPI_INTEGER);
  set(MPI_INTEGER, sizeof(int), alignof(int));
  set(MPI_REAL, sizeof(float), alignof(float));
  set(MPI_DOUBLE_PRECISION, sizeof(double), alignof(double));
  set(MPI_LOGICAL, sizeof(int), alignof(int));
  set(MPI_CHARACTER, 1, 1);
  set(MPI_COMPLEX, 2 * sizeof(float), alignof(float));
  set(MPI_DOUBLE_COMPLEX, 2 * sizeof(double), alignof(double));
  return t;
}

const std::array<type_info, last_predefined_type + 1>& table() {
  static const auto t = make_table();
  return t;
}

void append_block(std::vector<std::pair<std::int64_t, std::int64_t>>& blocks, std::int64_t at, std::int64_t bytes) {
  if (bytes == 0) return;
  if (!blocks.empty() && blocks.back().first + blocks.back().second == at) blocks.back().second += bytes;
  else blocks.emplace_back(at, bytes);
}

using runs = std::vector<element_run>;

// Appends `times` copies of the basic-element runs `old` to `out` (a run
// merges with the last one when both are of the same type).
void append_elements(runs& out, const runs& old, std::int64_t times) {
  auto add = [&out](const element_run& run, std::int64_t n) {
    if (n == 0) return;
    if (!out.empty() && out.back().bytes == run.bytes && out.back().handle == run.handle) out.back().count += n;
    else out.push_back({run.bytes, n, run.handle});
  };
  if (times <= 0) return;
  if (old.size() == 1) return add(old[0], old[0].count * times);
  for (std::int64_t i = 0; i < times; ++i)
    for (const element_run& run : old) add(run, run.count);
}

// The least or greatest of some bounds, if there was any.
struct bound {
  bool any = false;
  std::int64_t value = 0;
  void lower(std::int64_t v) { value = any ? std::min(value, v) : v, any = true; }
  void raise(std::int64_t v) { value = any ? std::max(value, v) : v, any = true; }
};

type_info marker(bool lower) {
  type_info t;
  t.explicit_lb = lower;
  t.explicit_ub = !lower;
  t.combiner = MPI_COMBINER_NAMED;
  t.committed = t.predefined = true;
  return t;
}

}  // namespace

const type_info& lb_marker() noexcept {
  static const type_info t = marker(true);
  return t;
}
const type_info& ub_marker() noexcept {
  static const type_info t = marker(false);
  return t;
}

std::int64_t count_elements(const type_info& t, std::int64_t bytes) noexcept {
  if (t.size == 0) return bytes == 0 ? 0 : -1;
  std::int64_t n = bytes / t.size * t.basic_count, rest = bytes % t.size;
  for (const element_run& run : t.elements) {
    if (rest == 0) break;
    const std::int64_t k = std::min(run.count, rest / run.bytes);
    n += k;
    rest -= k * run.bytes;
    if (k < run.count) break;
  }
  return rest == 0 ? n : -1;
}

std::int64_t element_bytes(const type_info& t, std::int64_t n) noexcept {
  if (t.basic_count == 0) return 0;
  std::int64_t bytes = n / t.basic_count * t.size, rest = n % t.basic_count;
  for (const element_run& run : t.elements) {
    const std::int64_t k = std::min(run.count, rest);
    bytes += k * run.bytes;
    rest -= k;
    if (rest == 0) break;
  }
  return bytes;
}

const type_info* predefined_type(int handle) noexcept {
  if (handle == MPI_LB) return &lb_marker();
  if (handle == MPI_UB) return &ub_marker();
  if (handle <= 0 || handle > last_predefined_type) return nullptr;
  const type_info& t = table()[static_cast<std::size_t>(handle)];
  return t.size == 0 ? nullptr : &t;
}

std::int64_t primitive_size(int handle) noexcept {
  const type_info* t = predefined_type(handle);
  return t ? t->size : 0;
}

type_info replicate(const type_info& old, const std::vector<std::pair<std::int64_t, std::int64_t>>& places,
                    int combiner) {
  type_info t;
  t.combiner = combiner;
  t.primitive = old.primitive;
  t.alignment = old.alignment;
  t.explicit_lb = old.explicit_lb;
  t.explicit_ub = old.explicit_ub;
  bound lb, ub, true_lb, true_ub;
  std::int64_t n = 0;
  const std::int64_t ext = old.extent();
  for (const auto& [disp, count] : places) {
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t base = disp + i * ext;
      for (const auto& [d, len] : old.blocks) append_block(t.blocks, base + d, len);
    }
    if (count == 0) continue;  // an empty block has no place in the type map
    // The copies' bounds: the first and the last copy hold the extremes
    // (the extent may be negative).
    const std::int64_t low = disp + std::min<std::int64_t>(0, (count - 1) * ext);
    const std::int64_t high = disp + std::max<std::int64_t>(0, (count - 1) * ext);
    lb.lower(low + old.lb), ub.raise(high + old.ub);
    true_lb.lower(low + old.true_lb), true_ub.raise(high + old.true_ub);
    n += count;
  }
  t.lb = lb.value, t.ub = ub.value, t.true_lb = true_lb.value, t.true_ub = true_ub.value;
  t.size = n * old.size;
  t.basic_count = n * old.basic_count;
  append_elements(t.elements, old.elements, n);
  return t;
}

type_info make_struct(const std::vector<const type_info*>& types, const std::vector<std::int64_t>& displacements,
                      const std::vector<std::int64_t>& lengths) {
  type_info t;
  t.combiner = MPI_COMBINER_STRUCT;
  // MPI-1's rule: bounds from MPI_LB/MPI_UB markers (and resized types)
  // win over the data's; without any, the data's, padded as a C compiler
  // pads the struct.
  bound marked_lb, marked_ub, data_lb, data_ub, true_lb, true_ub;
  bool first_data = true;
  for (std::size_t k = 0; k < types.size(); ++k) {
    if (lengths[k] == 0) continue;
    const type_info part = replicate(*types[k], {{displacements[k], lengths[k]}}, MPI_COMBINER_STRUCT);
    const bool data = part.size > 0;
    if (part.explicit_lb) marked_lb.lower(part.lb);
    else if (data) data_lb.lower(part.lb);
    if (part.explicit_ub) marked_ub.raise(part.ub);
    else if (data) data_ub.raise(part.ub);
    if (!data) continue;
    for (const auto& [d, len] : part.blocks) append_block(t.blocks, d, len);
    append_elements(t.elements, part.elements, 1);
    true_lb.lower(part.true_lb), true_ub.raise(part.true_ub);
    if (first_data) t.primitive = part.primitive;
    else if (t.primitive != part.primitive) t.primitive = 0;
    first_data = false;
    t.size += part.size;
    t.basic_count += part.basic_count;
    t.alignment = std::max(t.alignment, types[k]->alignment);
  }
  t.explicit_lb = marked_lb.any;
  t.explicit_ub = marked_ub.any;
  t.lb = marked_lb.any ? marked_lb.value : data_lb.value;
  t.ub = marked_ub.any ? marked_ub.value : data_ub.value;
  t.true_lb = true_lb.value, t.true_ub = true_ub.value;
  if (!t.explicit_lb && !t.explicit_ub) {
    const std::int64_t a = t.alignment;
    const std::int64_t ext = t.ub - t.lb;
    if (ext % a != 0) t.ub += a - ext % a;
  }
  return t;
}

void pack(const type_info& t, const void* buf, std::int64_t count, std::byte* out) noexcept {
  if (count <= 0 || t.size == 0) return;  // the program may pass null with nothing in it
  const auto* base = static_cast<const std::byte*>(buf);
  if (t.contiguous()) {
    std::memcpy(out, base, static_cast<std::size_t>(count * t.size));
    return;
  }
  const std::int64_t ext = t.extent();
  for (std::int64_t i = 0; i < count; ++i, base += ext)
    for (const auto& [d, len] : t.blocks) {
      std::memcpy(out, base + d, static_cast<std::size_t>(len));
      out += len;
    }
}

buffer<std::byte> packed(const void* buf, std::int64_t count, const type_info& t) {
  auto b = buffer<std::byte>::uninitialized(static_cast<std::size_t>(count * t.size));
  if (count > 0) pack(t, buf, count, b.mutable_data());
  return b;
}

void unpack(const type_info& t, const std::byte* in, std::int64_t bytes, void* buf, std::int64_t count) noexcept {
  auto* base = static_cast<std::byte*>(buf);
  bytes = std::min(bytes, count * t.size);
  if (bytes <= 0) return;
  if (t.contiguous()) {
    std::memcpy(base, in, static_cast<std::size_t>(bytes));
    return;
  }
  const std::int64_t ext = t.extent();
  for (std::int64_t i = 0; i < count && bytes > 0; ++i, base += ext)
    for (const auto& [d, len] : t.blocks) {
      const std::int64_t n = std::min(len, bytes);
      std::memcpy(base + d, in, static_cast<std::size_t>(n));
      in += n;
      bytes -= n;
      if (bytes == 0) return;
    }
}

}  // namespace roam::ampi
