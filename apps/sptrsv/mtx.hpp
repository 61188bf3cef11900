#pragma once
// Matrix Market input: `coordinate real|integer general|symmetric` files,
// plain or gzip-compressed (zlib reads both).
#include <string>

#include "sparse.hpp"

namespace sptrsv {

// The square matrix in `path` (a symmetric file's lower triangle mirrored).
// Throws input_error "PATH:LINE: what" for a wrong header or size line, an
// index outside the matrix, a missing value, or a file that ends before its
// declared number of entries.
triplets read_matrix_market(const std::string& path);

}  // namespace sptrsv
