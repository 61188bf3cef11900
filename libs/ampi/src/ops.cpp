// Predefined and user reduction operations.
#include "ops.hpp"

#include <algorithm>
#include <complex>
#include <cstring>
#include <memory>
#include <type_traits>

#include <mpi.h>

#include "rank.hpp"

namespace roam::ampi {
namespace {

template <class T>
T load(const std::byte* p) noexcept {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <class T>
void store(std::byte* p, T v) noexcept {
  std::memcpy(p, &v, sizeof(T));
}

// One predefined element type: whether `op` applies, and applying it.
template <class T>
bool arithmetic(int op, const std::byte* in, std::byte* io, std::int64_t n) noexcept {
  constexpr bool is_integer = std::is_integral_v<T>;
  constexpr bool is_complex = !std::is_arithmetic_v<T>;
  constexpr bool is_bool = std::is_same_v<T, bool>;
  for (std::int64_t i = 0; i < n; ++i, in += sizeof(T), io += sizeof(T)) {
    const T a = load<T>(in);
    const T b = load<T>(io);
    T r{};
    switch (op) {
      case MPI_SUM:
      case MPI_PROD:
        if constexpr (is_bool) return false;
        else r = static_cast<T>(op == MPI_SUM ? a + b : a * b);
        break;
      case MPI_MAX:
      case MPI_MIN:
        if constexpr (is_complex || is_bool) return false;
        else r = op == MPI_MAX ? std::max(a, b) : std::min(a, b);
        break;
      case MPI_LAND:
      case MPI_LOR:
      case MPI_LXOR:
        if constexpr (is_complex) return false;
        else {
          const bool x = a != T{}, y = b != T{};
          r = static_cast<T>(op == MPI_LAND ? (x && y) : op == MPI_LOR ? (x || y) : (x != y));
        }
        break;
      case MPI_BAND:
      case MPI_BOR:
      case MPI_BXOR:
        if constexpr (!is_integer || is_bool) return false;
        else r = static_cast<T>(op == MPI_BAND ? (a & b) : op == MPI_BOR ? (a | b) : (a ^ b));
        break;
      case MPI_REPLACE: r = a; break;
      case MPI_NO_OP: r = b; break;
      default: return false;
    }
    store<T>(io, r);
  }
  return true;
}

template <class T>
bool located(int op, const std::byte* in, std::byte* io, std::int64_t n) noexcept {
  constexpr std::size_t step = sizeof(T) + sizeof(int);
  if (op != MPI_MINLOC && op != MPI_MAXLOC) {
    if (op == MPI_REPLACE) {
      std::memcpy(io, in, static_cast<std::size_t>(n) * step);
      return true;
    }
    return op == MPI_NO_OP;
  }
  for (std::int64_t i = 0; i < n; ++i, in += step, io += step) {
    const T a = load<T>(in), b = load<T>(io);
    const int ia = load<int>(in + sizeof(T)), ib = load<int>(io + sizeof(T));
    T v = b;
    int idx = ib;
    const bool a_wins = op == MPI_MINLOC ? a < b : a > b;
    if (a_wins) v = a, idx = ia;
    else if (a == b) idx = std::min(ia, ib);
    store<T>(io, v);
    store<int>(io + sizeof(T), idx);
  }
  return true;
}

// MPI_2FLOAT, MPI_2DOUBLE_PRECISION, MPI_2INTEGER: (value, index) both T.
template <class T>
bool located_twin(int op, const std::byte* in, std::byte* io, std::int64_t n) noexcept {
  if (op != MPI_MINLOC && op != MPI_MAXLOC) return arithmetic<T>(op, in, io, 2 * n);
  for (std::int64_t i = 0; i < n; ++i, in += 2 * sizeof(T), io += 2 * sizeof(T)) {
    const T a = load<T>(in), b = load<T>(io), ia = load<T>(in + sizeof(T)), ib = load<T>(io + sizeof(T));
    const bool a_wins = op == MPI_MINLOC ? a < b : a > b;
    if (a_wins) store<T>(io, a), store<T>(io + sizeof(T), ia);
    else if (a == b) store<T>(io + sizeof(T), std::min(ia, ib));
  }
  return true;
}

bool predefined_op(int op, int prim, const std::byte* in, std::byte* io, std::int64_t n) noexcept {
  switch (prim) {
    case MPI_CHAR:
    case MPI_SIGNED_CHAR:
    case MPI_INT8_T: return arithmetic<signed char>(op, in, io, n);
    case MPI_UNSIGNED_CHAR:
    case MPI_BYTE:
    case MPI_UINT8_T:
    case MPI_CHARACTER: return arithmetic<unsigned char>(op, in, io, n);
    case MPI_SHORT:
    case MPI_INT16_T: return arithmetic<short>(op, in, io, n);
    case MPI_UNSIGNED_SHORT:
    case MPI_UINT16_T: return arithmetic<unsigned short>(op, in, io, n);
    case MPI_INT:
    case MPI_INT32_T:
    case MPI_INTEGER:
    case MPI_LOGICAL: return arithmetic<int>(op, in, io, n);
    case MPI_UNSIGNED:
    case MPI_UINT32_T: return arithmetic<unsigned>(op, in, io, n);
    case MPI_LONG:
    case MPI_AINT: return arithmetic<long>(op, in, io, n);
    case MPI_UNSIGNED_LONG: return arithmetic<unsigned long>(op, in, io, n);
    case MPI_LONG_LONG_INT:
    case MPI_INT64_T:
    case MPI_OFFSET:
    case MPI_COUNT: return arithmetic<long long>(op, in, io, n);
    case MPI_UNSIGNED_LONG_LONG:
    case MPI_UINT64_T: return arithmetic<unsigned long long>(op, in, io, n);
    case MPI_FLOAT:
    case MPI_REAL: return arithmetic<float>(op, in, io, n);
    case MPI_DOUBLE:
    case MPI_DOUBLE_PRECISION: return arithmetic<double>(op, in, io, n);
    case MPI_LONG_DOUBLE: return arithmetic<long double>(op, in, io, n);
    case MPI_WCHAR: return arithmetic<wchar_t>(op, in, io, n);
    case MPI_C_BOOL:
    case MPI_CXX_BOOL: return op >= MPI_LAND && op <= MPI_LXOR && op != MPI_BAND && arithmetic<bool>(op, in, io, n);
    case MPI_C_FLOAT_COMPLEX:
    case MPI_CXX_FLOAT_COMPLEX:
    case MPI_COMPLEX: return arithmetic<std::complex<float>>(op, in, io, n);
    case MPI_C_DOUBLE_COMPLEX:
    case MPI_CXX_DOUBLE_COMPLEX:
    case MPI_DOUBLE_COMPLEX: return arithmetic<std::complex<double>>(op, in, io, n);
    case MPI_C_LONG_DOUBLE_COMPLEX:
    case MPI_CXX_LONG_DOUBLE_COMPLEX: return arithmetic<std::complex<long double>>(op, in, io, n);
    case MPI_FLOAT_INT: return located<float>(op, in, io, n);
    case MPI_DOUBLE_INT: return located<double>(op, in, io, n);
    case MPI_LONG_INT: return located<long>(op, in, io, n);
    case MPI_2INT: return located<int>(op, in, io, n);
    case MPI_SHORT_INT: return located<short>(op, in, io, n);
    case MPI_LONG_DOUBLE_INT: return located<long double>(op, in, io, n);
    case MPI_2FLOAT: return located_twin<float>(op, in, io, n);
    case MPI_2DOUBLE_PRECISION: return located_twin<double>(op, in, io, n);
    case MPI_2INTEGER: return located_twin<int>(op, in, io, n);
    default: return false;
  }
}

}  // namespace

bool apply_predefined(int op, int primitive, const std::byte* in, std::byte* inout, std::int64_t n) noexcept {
  return predefined_op(op, primitive, in, inout, n);
}

int apply_op(rank& r, int op, int datatype, const type_info& t, const std::byte* in, std::byte* inout,
             std::int64_t count) {
  if (op >= MPI_MAX && op <= MPI_NO_OP) {
    if (t.primitive == 0) return MPI_ERR_OP;
    const std::int64_t n = count * t.size / primitive_size(t.primitive);
    return predefined_op(op, t.primitive, in, inout, n) ? MPI_SUCCESS : MPI_ERR_OP;
  }
  auto it = r.ops.find(op);
  if (it == r.ops.end()) return MPI_ERR_OP;
  auto* fn = reinterpret_cast<MPI_User_function*>(it->second.fn);
  int len = static_cast<int>(count);
  int dt = datatype;
  if (t.contiguous()) {
    fn(const_cast<std::byte*>(in), inout, &len, &dt);
    return MPI_SUCCESS;
  }
  // The function sees the data laid out as the type says.
  const std::int64_t span = (count - 1) * t.extent() + t.true_ub - t.lb;
  auto a = std::make_unique<std::byte[]>(static_cast<std::size_t>(std::max<std::int64_t>(span, 1)));
  auto b = std::make_unique<std::byte[]>(static_cast<std::size_t>(std::max<std::int64_t>(span, 1)));
  unpack(t, in, count * t.size, a.get() - t.lb, count);
  unpack(t, inout, count * t.size, b.get() - t.lb, count);
  fn(a.get() - t.lb, b.get() - t.lb, &len, &dt);
  pack(t, b.get() - t.lb, count, inout);
  return MPI_SUCCESS;
}

bool op_known(const rank& r, int op) noexcept { return (op >= MPI_MAX && op <= MPI_NO_OP) || r.ops.count(op) != 0; }

bool op_commutative(const rank& r, int op) noexcept {
  if (op >= MPI_MAX && op <= MPI_NO_OP) return true;
  auto it = r.ops.find(op);
  return it == r.ops.end() || it->second.commutative;
}

}  // namespace roam::ampi
