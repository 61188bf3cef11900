#pragma once
// The parallel sparse triangular solve L x = b (docs/design/sptrsv.md).
//
// Columns are cut into blocks of about equal nonzeros, more blocks than PEs,
// elements of a 1-D array (`column_block`) placed round-robin. A block holds
// its columns: the diagonal part (rows inside the block) and the entries
// below it, grouped by the block their rows belong to. Where those entries
// form a dense region, the block splits it off into an element of its own
// (`dense_region`, a sparse array filled at run time) placed on another PE.
//
// A solve: each block solves its rows as their inputs arrive: a row waits
// for the contributions announced for it and for the rows of its own block
// its entries point to. The rows that wait for nothing are its independent
// work, run at a low priority; every contribution that arrives (a higher
// priority) frees rows, solved at once, and what they free in turn. As
// soon as the columns that feed another block's rows are solved, the block
// sends it their partial sums; when all its rows are solved it multicasts
// its x to its dense regions (the highest priority), which send theirs.
// Each block's control flow is a coroutine over a mailbox of contributions.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <roam/roam.hpp>

#include "sparse.hpp"

namespace sptrsv {

struct solver_options {
  int blocks = 0;                 // column blocks (0: 8 per PE, at most one per column)
  std::string map = "round_robin";  // or "block": consecutive blocks on a PE
  double dense = 0.5;             // a region's fill (nonzeros / rows·columns) that makes it an element of its own
  bool regions = true;            // split dense regions at all
};

struct solver_stats {
  std::int32_t blocks = 0, regions = 0;
  std::int64_t region_nonzeros = 0;  // entries moved into regions
  std::int64_t messages = 0;         // contributions per solve
};

namespace detail {
struct state;
}

class solver {
 public:
  // Distributes L (lower triangular, checked) from the caller's PE; the
  // blocks analyse their columns and split dense regions off.
  static roam::task<solver> create(const csc& l, solver_options o = {});
  // x = L⁻¹ b for nrhs right-hand sides (row-major: row r's values at b[r·nrhs ...]).
  roam::task<std::vector<double>> solve(const std::vector<double>& b, int nrhs);
  const solver_stats& stats() const;
  // Ends the blocks' coroutines (call once, after the last solve).
  void close();

 private:
  explicit solver(std::shared_ptr<detail::state> s) : state_(std::move(s)) {}
  std::shared_ptr<detail::state> state_;
};

}  // namespace sptrsv
