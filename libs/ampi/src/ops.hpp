#pragma once
// Reduction operations on packed data (count elements of a datatype, each
// its `size` bytes back to back).
#include <cstddef>
#include <cstdint>

#include "datatype.hpp"

namespace roam::ampi {

struct rank;

/// inout[i] = in[i] op inout[i] for `count` elements of type `t` (packed).
/// Returns an MPI error class (MPI_ERR_OP when the op does not apply to
/// the type).
int apply_op(rank& r, int op, int datatype, const type_info& t, const std::byte* in, std::byte* inout,
             std::int64_t count);
/// A predefined `op` on `n` basic elements of predefined type `primitive`:
/// inout[i] = in[i] op inout[i]. False when the op does not apply to it.
bool apply_predefined(int op, int primitive, const std::byte* in, std::byte* inout, std::int64_t n) noexcept;
/// Whether `op` is a known operation, and commutative.
bool op_known(const rank& r, int op) noexcept;
bool op_commutative(const rank& r, int op) noexcept;

}  // namespace roam::ampi
