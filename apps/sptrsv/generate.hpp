#pragma once
// Test and benchmark matrices, the same for a seed on any PE count.
#include <cstdint>

#include "sparse.hpp"

namespace sptrsv {

// The k^dims-point Laplacian (5-point in 2-D, 7-point in 3-D) on a k^dims
// grid with Dirichlet boundaries: symmetric positive definite, to be
// factored (superlu.hpp) for a real factor's structure.
triplets laplacian(int dims, std::int64_t k);

// A random lower-triangular n×n matrix: a diagonal in [1, 2), about
// `per_column` entries below it in each column (some columns have none),
// each in [-0.5, 0.5) / per_column, and `regions` fully dense rectangles
// below the diagonal (the structure the solver splits off).
csc random_lower(std::int64_t n, std::uint64_t seed, int per_column, int regions);

}  // namespace sptrsv
