// The "external32" data representation (MPI-3.1 13.5.2) and
// MPI_Pack_external / MPI_Unpack_external / MPI_Pack_external_size: the
// data packed natively (datatype.cpp), then every basic element converted
// in type-map order to its big-endian, fixed-size form, and back.
#include <bit>
#include <cfloat>
#include <cstring>
#include <cwchar>
#include <limits>
#include <type_traits>
#include <vector>

#include "api.hpp"

using namespace roam::ampi;

namespace {

// How one basic element (of its predefined type) is written: `parts`
// numbers (2 for a complex) of `native` bytes each in memory and `ext` bytes
// each in external32.
struct ext32_form {
  enum class how { none, raw, signed_int, unsigned_int, ieee, ieee_quad } kind = how::none;
  int native = 0, ext = 0, parts = 1;
};

template <class T>
constexpr ext32_form ext32_integer(int ext) {
  constexpr auto kind = std::is_signed_v<T> ? ext32_form::how::signed_int : ext32_form::how::unsigned_int;
  return {kind, static_cast<int>(sizeof(T)), ext, 1};
}
template <class T>
constexpr ext32_form ext32_real(int parts) {
  static_assert(std::numeric_limits<T>::is_iec559);
  return {ext32_form::how::ieee, static_cast<int>(sizeof(T)), static_cast<int>(sizeof(T)), parts};
}
constexpr ext32_form ext32_quad(int parts) {
  return {ext32_form::how::ieee_quad, static_cast<int>(sizeof(long double)), 16, parts};
}

// MPI-3.1 table 13.2: every predefined type's external32 size.
ext32_form ext32_form_of(int handle) noexcept {
  using how = ext32_form::how;
  switch (handle) {
    case MPI_CHAR:
    case MPI_SIGNED_CHAR:
    case MPI_UNSIGNED_CHAR:
    case MPI_BYTE:
    case MPI_PACKED:
    case MPI_CHARACTER:
    case MPI_INT8_T:
    case MPI_UINT8_T:
      return {how::raw, 1, 1, 1};
    case MPI_C_BOOL:
    case MPI_CXX_BOOL:
      return sizeof(bool) == 1 ? ext32_form{how::raw, 1, 1, 1} : ext32_form{how::unsigned_int, sizeof(bool), 1, 1};
    case MPI_SHORT: return ext32_integer<short>(2);
    case MPI_UNSIGNED_SHORT: return ext32_integer<unsigned short>(2);
    case MPI_INT:
    case MPI_INTEGER:
    case MPI_LOGICAL:
      return ext32_integer<int>(4);
    case MPI_UNSIGNED: return ext32_integer<unsigned>(4);
    case MPI_LONG: return ext32_integer<long>(4);
    case MPI_UNSIGNED_LONG: return ext32_integer<unsigned long>(4);
    case MPI_LONG_LONG_INT: return ext32_integer<long long>(8);
    case MPI_UNSIGNED_LONG_LONG: return ext32_integer<unsigned long long>(8);
    case MPI_WCHAR: return ext32_integer<wchar_t>(4);
    case MPI_INT16_T: return ext32_integer<std::int16_t>(2);
    case MPI_INT32_T: return ext32_integer<std::int32_t>(4);
    case MPI_INT64_T: return ext32_integer<std::int64_t>(8);
    case MPI_UINT16_T: return ext32_integer<std::uint16_t>(2);
    case MPI_UINT32_T: return ext32_integer<std::uint32_t>(4);
    case MPI_UINT64_T: return ext32_integer<std::uint64_t>(8);
    case MPI_AINT: return ext32_integer<MPI_Aint>(8);
    case MPI_OFFSET: return ext32_integer<MPI_Offset>(8);
    case MPI_COUNT: return ext32_integer<MPI_Count>(8);
    case MPI_FLOAT:
    case MPI_REAL:
      return ext32_real<float>(1);
    case MPI_DOUBLE:
    case MPI_DOUBLE_PRECISION:
      return ext32_real<double>(1);
    case MPI_LONG_DOUBLE: return ext32_quad(1);
    case MPI_C_FLOAT_COMPLEX:
    case MPI_CXX_FLOAT_COMPLEX:
    case MPI_COMPLEX:
      return ext32_real<float>(2);
    case MPI_C_DOUBLE_COMPLEX:
    case MPI_CXX_DOUBLE_COMPLEX:
    case MPI_DOUBLE_COMPLEX:
      return ext32_real<double>(2);
    case MPI_C_LONG_DOUBLE_COMPLEX:
    case MPI_CXX_LONG_DOUBLE_COMPLEX:
      return ext32_quad(2);
    default: return {};
  }
}

constexpr bool ext32_host_little = std::endian::native == std::endian::little;

// `n` bytes in the reverse order (a little-endian host's number as
// big-endian), or as they are.
void ext32_order(std::byte* out, const std::byte* in, int n) noexcept {
  if constexpr (ext32_host_little)
    for (int i = 0; i < n; ++i) out[i] = in[n - 1 - i];
  else
    std::memcpy(out, in, static_cast<std::size_t>(n));
}

// An integer of `n` (1, 2, 4, 8) native bytes, widened.
std::uint64_t ext32_load(const std::byte* in, int n, bool is_signed) noexcept {
  switch (n) {
    case 1: {
      std::uint8_t v;
      std::memcpy(&v, in, 1);
      return is_signed ? static_cast<std::uint64_t>(static_cast<std::int8_t>(v)) : v;
    }
    case 2: {
      std::uint16_t v;
      std::memcpy(&v, in, 2);
      return is_signed ? static_cast<std::uint64_t>(static_cast<std::int16_t>(v)) : v;
    }
    case 4: {
      std::uint32_t v;
      std::memcpy(&v, in, 4);
      return is_signed ? static_cast<std::uint64_t>(static_cast<std::int32_t>(v)) : v;
    }
    default: {
      std::uint64_t v;
      std::memcpy(&v, in, 8);
      return v;
    }
  }
}

void ext32_store(std::byte* out, int n, std::uint64_t v) noexcept {
  switch (n) {
    case 1: {
      const auto x = static_cast<std::uint8_t>(v);
      std::memcpy(out, &x, 1);
      break;
    }
    case 2: {
      const auto x = static_cast<std::uint16_t>(v);
      std::memcpy(out, &x, 2);
      break;
    }
    case 4: {
      const auto x = static_cast<std::uint32_t>(v);
      std::memcpy(out, &x, 4);
      break;
    }
    default: std::memcpy(out, &v, 8);
  }
}

// Whether the widened value `v` fits in `n` bytes.
bool ext32_fits(std::uint64_t v, int n, bool is_signed) noexcept {
  if (n >= 8) return true;
  const int bits = 8 * n;
  if (!is_signed) return v >> bits == 0;
  const auto s = static_cast<std::int64_t>(v);
  const std::int64_t half = std::int64_t{1} << (bits - 1);
  return s >= -half && s < half;
}

// long double <-> IEEE binary128, in the host's byte order.
#if LDBL_MANT_DIG == 113
void ext32_to_quad(const std::byte* in, std::byte* out) noexcept { std::memcpy(out, in, 16); }
void ext32_from_quad(const std::byte* in, std::byte* out) noexcept { std::memcpy(out, in, 16); }
#elif defined(__SIZEOF_FLOAT128__)
__extension__ typedef __float128 ext32_binary128;
void ext32_to_quad(const std::byte* in, std::byte* out) noexcept {
  long double v;
  std::memcpy(&v, in, sizeof v);
  const auto q = static_cast<ext32_binary128>(v);
  std::memcpy(out, &q, 16);
}
void ext32_from_quad(const std::byte* in, std::byte* out) noexcept {
  ext32_binary128 q;
  std::memcpy(&q, in, 16);
  const auto v = static_cast<long double>(q);
  std::memcpy(out, &v, sizeof v);
}
#else
#error "external32: no IEEE binary128 conversion for long double on this platform"
#endif

// One basic element's `parts` numbers, native -> external32.
bool ext32_write(const ext32_form& f, const std::byte* in, std::byte* out) noexcept {
  using how = ext32_form::how;
  for (int p = 0; p < f.parts; ++p, in += f.native, out += f.ext) {
    switch (f.kind) {
      case how::raw: std::memcpy(out, in, static_cast<std::size_t>(f.ext)); break;
      case how::ieee: ext32_order(out, in, f.ext); break;
      case how::ieee_quad: {
        std::byte q[16];
        ext32_to_quad(in, q);
        ext32_order(out, q, 16);
        break;
      }
      case how::signed_int:
      case how::unsigned_int: {
        const bool is_signed = f.kind == how::signed_int;
        const std::uint64_t v = ext32_load(in, f.native, is_signed);
        if (!ext32_fits(v, f.ext, is_signed)) return false;
        for (int i = 0; i < f.ext; ++i) out[i] = static_cast<std::byte>(v >> (8 * (f.ext - 1 - i)));
        break;
      }
      case how::none: return false;
    }
  }
  return true;
}

// One basic element, external32 -> native.
bool ext32_read(const ext32_form& f, const std::byte* in, std::byte* out) noexcept {
  using how = ext32_form::how;
  for (int p = 0; p < f.parts; ++p, in += f.ext, out += f.native) {
    switch (f.kind) {
      case how::raw: std::memcpy(out, in, static_cast<std::size_t>(f.ext)); break;
      case how::ieee: ext32_order(out, in, f.ext); break;
      case how::ieee_quad: {
        std::byte q[16];
        ext32_order(q, in, 16);
        std::memset(out, 0, static_cast<std::size_t>(f.native));  // x87's padding bytes
        ext32_from_quad(q, out);
        break;
      }
      case how::signed_int:
      case how::unsigned_int: {
        const bool is_signed = f.kind == how::signed_int;
        std::uint64_t v = 0;
        for (int i = 0; i < f.ext; ++i) v = v << 8 | std::to_integer<std::uint64_t>(in[i]);
        if (is_signed && f.ext < 8 && (v >> (8 * f.ext - 1)) != 0) v |= ~std::uint64_t{0} << (8 * f.ext);
        if (!ext32_fits(v, f.native, is_signed)) return false;
        ext32_store(out, f.native, v);
        break;
      }
      case how::none: return false;
    }
  }
  return true;
}

// The runs of `t` with their forms.
struct ext32_run {
  ext32_form form;
  std::int64_t count;
};
std::vector<ext32_run> ext32_runs(const type_info& t) {
  std::vector<ext32_run> runs;
  runs.reserve(t.elements.size());
  for (const element_run& r : t.elements) runs.push_back({ext32_form_of(r.handle), r.count});
  return runs;
}

template <bool Writing>
int ext32_convert(const type_info& t, const std::byte* in, std::int64_t count, std::byte* out) noexcept {
  const std::vector<ext32_run> runs = ext32_runs(t);
  for (std::int64_t e = 0; e < count; ++e)
    for (const ext32_run& r : runs) {
      const ext32_form& f = r.form;
      const std::int64_t native = static_cast<std::int64_t>(f.native) * f.parts;
      const std::int64_t ext = static_cast<std::int64_t>(f.ext) * f.parts;
      if (f.kind == ext32_form::how::raw) {  // the whole run at once
        std::memcpy(out, in, static_cast<std::size_t>(r.count * ext));
        in += r.count * ext, out += r.count * ext;
        continue;
      }
      for (std::int64_t i = 0; i < r.count; ++i) {
        if constexpr (Writing) {
          if (!ext32_write(f, in, out)) return MPI_ERR_CONVERSION;
          in += native, out += ext;
        } else {
          if (!ext32_read(f, in, out)) return MPI_ERR_CONVERSION;
          in += ext, out += native;
        }
      }
    }
  return MPI_SUCCESS;
}

// The datarep argument: only "external32" is defined for these functions.
int ext32_datarep(const char* datarep, const char* function) {
  if (datarep != nullptr && std::strcmp(datarep, "external32") == 0) return MPI_SUCCESS;
  return fail(MPI_COMM_WORLD, MPI_ERR_ARG, function,
              std::string("unknown data representation \"") + (datarep ? datarep : "(null)") +
                  "\" (only \"external32\")");
}

// The datatype and count of a call, checked; null with the error reported.
const type_info* ext32_type(MPI_Datatype datatype, int count, const char* function, int* err) {
  *err = MPI_SUCCESS;
  const type_info* t = find_type(me(), datatype);
  if (t == nullptr) {
    *err = fail(MPI_COMM_WORLD, MPI_ERR_TYPE, function, "invalid datatype " + std::to_string(datatype));
    return nullptr;
  }
  if (count < 0) {
    *err = fail(MPI_COMM_WORLD, MPI_ERR_COUNT, function, "negative count " + std::to_string(count));
    return nullptr;
  }
  for (const element_run& r : t->elements)
    if (ext32_form_of(r.handle).kind == ext32_form::how::none) {
      *err = fail(MPI_COMM_WORLD, MPI_ERR_TYPE, function,
                  "datatype " + std::to_string(datatype) + " has no external32 form");
      return nullptr;
    }
  return t;
}

}  // namespace

namespace roam::ampi {

std::int64_t external32_size(const type_info& t) noexcept {
  std::int64_t n = 0;
  for (const element_run& r : t.elements) {
    const ext32_form f = ext32_form_of(r.handle);
    n += r.count * f.ext * f.parts;
  }
  return n;
}

int to_external32(const type_info& t, const std::byte* in, std::int64_t count, std::byte* out) noexcept {
  return ext32_convert<true>(t, in, count, out);
}

int from_external32(const type_info& t, const std::byte* in, std::int64_t count, std::byte* out) noexcept {
  return ext32_convert<false>(t, in, count, out);
}

}  // namespace roam::ampi

extern "C" int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint* size) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const char* fn = "MPI_Pack_external_size";
  if (int e = ext32_datarep(datarep, fn)) return e;
  int err = 0;
  const type_info* t = ext32_type(datatype, incount, fn, &err);
  if (!t) return err;
  *size = static_cast<MPI_Aint>(incount * external32_size(*t));
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Pack_external_size)

extern "C" int PMPI_Pack_external(const char datarep[], const void* inbuf, int incount, MPI_Datatype datatype,
                                  void* outbuf, MPI_Aint outsize, MPI_Aint* position) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const char* fn = "MPI_Pack_external";
  if (int e = ext32_datarep(datarep, fn)) return e;
  int err = 0;
  const type_info* t = ext32_type(datatype, incount, fn, &err);
  if (!t) return err;
  const std::int64_t n = incount * external32_size(*t);
  if (*position < 0 || *position + n > outsize)
    return fail(MPI_COMM_WORLD, MPI_ERR_TRUNCATE, fn,
                "the output buffer is too small (" + std::to_string(n) + " bytes at " + std::to_string(*position) +
                    " of " + std::to_string(outsize) + ")");
  if (n == 0) return MPI_SUCCESS;
  const roam::buffer<std::byte> native = packed(inbuf, incount, *t);
  if (to_external32(*t, native.data(), incount, static_cast<std::byte*>(outbuf) + *position) != MPI_SUCCESS)
    return fail(MPI_COMM_WORLD, MPI_ERR_CONVERSION, fn,
                "a value does not fit its external32 size (a long beyond 32 bits?)");
  *position += n;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Pack_external)

extern "C" int PMPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize, MPI_Aint* position,
                                    void* outbuf, int outcount, MPI_Datatype datatype) {
  const roam::process_heap_scope runtime_heap;  // the rank's records live in the process heap
  const char* fn = "MPI_Unpack_external";
  if (int e = ext32_datarep(datarep, fn)) return e;
  int err = 0;
  const type_info* t = ext32_type(datatype, outcount, fn, &err);
  if (!t) return err;
  const std::int64_t n = outcount * external32_size(*t);
  if (*position < 0 || *position + n > insize)
    return fail(MPI_COMM_WORLD, MPI_ERR_TRUNCATE, fn,
                "the input buffer is too short (" + std::to_string(n) + " bytes at " + std::to_string(*position) +
                    " of " + std::to_string(insize) + ")");
  if (n == 0) return MPI_SUCCESS;
  auto native = roam::buffer<std::byte>::uninitialized(static_cast<std::size_t>(outcount * t->size));
  if (from_external32(*t, static_cast<const std::byte*>(inbuf) + *position, outcount, native.mutable_data()) !=
      MPI_SUCCESS)
    return fail(MPI_COMM_WORLD, MPI_ERR_CONVERSION, fn, "a value does not fit its native size");
  unpack(*t, native.data(), outcount * t->size, outbuf, outcount);
  *position += n;
  return MPI_SUCCESS;
}
ROAM_AMPI_PMPI(Unpack_external)
