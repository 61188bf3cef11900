#pragma once
// A square matrix's LU factors from SuperLU (serial, libsuperlu-dev): the
// solver's input when the driver is given A instead of L.
#include <string>
#include <vector>

#include "sparse.hpp"

namespace sptrsv {

struct factors {
  csc l;           // unit lower triangular, rows in SuperLU's pivoted order
  csc u_reversed;  // J U J: U x = y solved as a lower-triangular system
  // Row i of A is row perm_r[i] of Pr A; column i of A is column perm_c[i] of A Pc.
  std::vector<int> perm_r, perm_c;
  double seconds = 0;
};

// Pr A Pc = L U with the column ordering `order` ("nd": METIS's nested
// dissection of A + Aᵀ, "mmd": minimum degree on A + Aᵀ, "colamd",
// "natural") and partial pivoting (threshold `pivot`, 1:
// always the largest, SuperLU's default). Throws input_error if A is singular.
factors factor_with_superlu(const triplets& a, const std::string& order = "nd", double pivot = 1.0);

}  // namespace sptrsv
