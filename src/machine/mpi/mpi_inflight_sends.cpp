#include "mpi/mpi_inflight_sends.hpp"

#include <algorithm>

namespace roam::detail {

void mpi_inflight_sends::add(MPI_Request request, std::uint32_t dst, out_frame frame, block_ref block) {
  requests_.push_back(request);
  dsts_.push_back(dst);
  frames_.push_back(std::move(frame));
  blocks_.push_back(std::move(block));
}

long mpi_inflight_sends::test_range(std::size_t first, std::size_t n, std::vector<failure>& failures,
                                    int& call_error) {
  if (n == 0) return 0;
  if (indices_.size() < n) {
    indices_.resize(n);
    statuses_.resize(n);
  }
  int outcount = 0;
  int rc = MPI_Testsome(static_cast<int>(n), requests_.data() + first, &outcount, indices_.data(), statuses_.data());
  if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
    call_error = rc;
    return -1;
  }
  if (outcount == MPI_UNDEFINED) return 0;  // every request in the window was already null
  for (int k = 0; k < outcount; ++k) {
    std::size_t i = first + static_cast<std::size_t>(indices_[static_cast<std::size_t>(k)]);
    if (rc == MPI_ERR_IN_STATUS && statuses_[static_cast<std::size_t>(k)].MPI_ERROR != MPI_SUCCESS)
      failures.push_back({dsts_[i], statuses_[static_cast<std::size_t>(k)].MPI_ERROR});
    // MPI_Testsome set requests_[i] to MPI_REQUEST_NULL (a failed one too);
    // release_completed() drops the entry and its frame.
    requests_[i] = MPI_REQUEST_NULL;
  }
  return outcount;
}

long mpi_inflight_sends::test_some(std::size_t cap, std::vector<failure>& failures, int& call_error) {
  std::size_t total = requests_.size();
  if (total == 0) return 0;
  std::size_t n = std::min(cap, total);
  if (cursor_ >= total) cursor_ = 0;
  // The window [cursor_, cursor_ + n) may wrap around the end.
  std::size_t first_part = std::min(n, total - cursor_);
  long done = test_range(cursor_, first_part, failures, call_error);
  if (done < 0) return -1;
  if (first_part < n) {
    long more = test_range(0, n - first_part, failures, call_error);
    if (more < 0) return -1;
    done += more;
  }
  cursor_ = (cursor_ + n) % total;
  if (done > 0) release_completed();
  return done;
}

void mpi_inflight_sends::release_completed() {
  // Stable compaction: the survivors keep their (roughly oldest-first) order,
  // and the cursor moves back by the number of removed entries before it.
  std::size_t out = 0, removed_before_cursor = 0;
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    if (requests_[i] == MPI_REQUEST_NULL) {
      if (i < cursor_) ++removed_before_cursor;
      continue;
    }
    if (out != i) {
      requests_[out] = requests_[i];
      dsts_[out] = dsts_[i];
      frames_[out] = std::move(frames_[i]);
      blocks_[out] = std::move(blocks_[i]);
    }
    ++out;
  }
  requests_.resize(out);
  dsts_.resize(out);
  frames_.resize(out);  // destroys the completed frames
  blocks_.resize(out);  // and drops their blocks
  cursor_ -= std::min(cursor_, removed_before_cursor);
}

}  // namespace roam::detail
