#pragma once
// Test and benchmark matrices, the same for a seed on any PE count.
#include <cstdint>

#include "sparse.hpp"

namespace sptrsv {

// The k^dims-point Laplacian (5-point in 2-D, 7-point in 3-D) on a k^dims
// grid with Dirichlet boundaries: symmetric positive definite, to be
// factored (superlu.hpp) for a real factor's structure.
triplets laplacian(int dims, std::int64_t k);

// The graph Laplacian (plus the identity) of n random points in the unit
// square, each joined to the points within the radius that gives about
// `degree` neighbours: an irregular mesh, symmetric positive definite, to
// be factored.
triplets random_geometric(std::int64_t n, std::uint64_t seed, int degree);

// A random lower-triangular n×n matrix: a diagonal in [1, 2), about
// `per_column` entries below it in each column (some columns have none),
// each in [-0.5, 0.5) / per_column, and `regions` fully dense rectangles
// below the diagonal (n/16 columns by n/8 rows, at most 200 by 2000: the
// structure the solver splits off).
csc random_lower(std::int64_t n, std::uint64_t seed, int per_column, int regions);

}  // namespace sptrsv
