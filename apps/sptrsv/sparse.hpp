#pragma once
// A sparse matrix in compressed columns, and what the solver's driver and
// tests do with one serially: the lower-triangular check, forward
// substitution, the residual.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace sptrsv {

// Column-compressed n×n: column c's entries are row[colptr[c] .. colptr[c+1])
// with values val[...]. In a lower-triangular matrix each column's rows are
// ascending and the first is the diagonal.
struct csc {
  std::int64_t n = 0;
  std::vector<std::int64_t> colptr{0};
  std::vector<std::int32_t> row;
  std::vector<double> val;
  std::int64_t nnz() const { return static_cast<std::int64_t>(row.size()); }
};

// Entries as read from a file or made by a generator, in any order.
struct triplets {
  std::int64_t n = 0;
  std::vector<std::int32_t> i, j;
  std::vector<double> v;
  void add(std::int64_t r, std::int64_t c, double x) {
    i.push_back(static_cast<std::int32_t>(r));
    j.push_back(static_cast<std::int32_t>(c));
    v.push_back(x);
  }
};

// A refused input: the message names the row or the line.
struct input_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Compressed columns, rows ascending, duplicates summed.
csc compress(const triplets& t);

// Throws input_error naming the first row with an entry above the diagonal,
// or with a zero or missing diagonal (singular).
void check_lower(const csc& l);

// x = L⁻¹ b for nrhs right-hand sides (b row-major: row r's values at
// b[r·nrhs ...]), column by column.
std::vector<double> forward_substitution(const csc& l, std::vector<double> b, int nrhs);

// max over the right-hand sides of ||Lx − b||∞ / (ε ||L||∞ ||x||∞ n): HPL's form.
double scaled_residual(const csc& l, const std::vector<double>& x, const std::vector<double>& b, int nrhs);

// The lower-triangular matrix J U J (J reverses the order of rows and
// columns) of an upper-triangular U: U x = y is (J U J)(J x) = J y.
csc reversed(const csc& u);

}  // namespace sptrsv
