#pragma once
// Sends that MPI has started but not completed. Each keeps what its
// MPI_Isend reads (no copy) until the request completes: the frame whose
// inline bytes it sends, or the block of the segment it sends.
//
// Completion is tested in a rotating window of at most `cap` requests per
// call (the burst cap on tests): a window stuck on big rendezvous sends to a
// busy peer then cannot keep finished sends to other peers from being
// released for ever.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include <roam/machine/detail/frame.hpp>

namespace roam::detail {

class mpi_inflight_sends {
 public:
  /// Keeps `frame` and `block` alive until `request` completes.
  void add(MPI_Request request, std::uint32_t dst, out_frame frame, block_ref block = {});

  std::size_t size() const noexcept { return requests_.size(); }
  bool empty() const noexcept { return requests_.empty(); }

  /// A request that completed with an error: the destination and MPI's code.
  struct failure {
    std::uint32_t dst;
    int code;
  };

  /// Tests up to `cap` requests (MPI_Testsome), releases the completed ones
  /// and appends the failed ones to `failures`. Returns how many completed.
  /// Progress thread only. Returns -1 with `call_error` set when MPI_Testsome
  /// itself fails in a way no request explains.
  long test_some(std::size_t cap, std::vector<failure>& failures, int& call_error);

 private:
  // Tests requests_[first, first + n) and marks completions in done_.
  long test_range(std::size_t first, std::size_t n, std::vector<failure>& failures, int& call_error);
  void release_completed();

  // Parallel arrays: MPI_Testsome wants contiguous requests.
  std::vector<MPI_Request> requests_;
  std::vector<std::uint32_t> dsts_;
  std::vector<out_frame> frames_;
  std::vector<block_ref> blocks_;
  std::size_t cursor_ = 0;
  // Scratch for MPI_Testsome, kept to avoid allocating per call.
  std::vector<int> indices_;
  std::vector<MPI_Status> statuses_;
};

}  // namespace roam::detail
