#pragma once
// The one tag every frame travels with on the transport's data communicator.
// One tag (and receives that match any source) keeps MPI's non-overtaking
// rule in force for every pair of nodes.
namespace roam::detail {
inline constexpr int mpi_frame_tag = 1;
}  // namespace roam::detail
