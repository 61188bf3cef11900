#pragma once
// Which transport's progress thread the calling thread is. send() uses it to
// take the direct path (MPI_Isend at once, no queue hop) in non-SMP mode,
// where the only PE is the progress thread. Inline: it is on the
// latency-critical path of every send.

namespace roam::detail {

class mpi_transport;

inline thread_local const mpi_transport* t_mpi_progress_owner = nullptr;

/// Marks the calling thread as `t`'s progress thread (nullptr: none).
inline void set_progress_owner(const mpi_transport* t) noexcept { t_mpi_progress_owner = t; }

/// True if the calling thread is `t`'s progress thread.
inline bool is_progress_owner(const mpi_transport* t) noexcept { return t_mpi_progress_owner == t; }

}  // namespace roam::detail
