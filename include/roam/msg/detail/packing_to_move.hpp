#pragma once
// Why an object is being packed. Most of what a pup packs is copied; a few
// things cannot be in two places at once (a blocked migratable thread,
// roam/iso/thread.hpp): packed for a move they leave with the packed state,
// packed for a checkpoint they stay where they are.

namespace roam::detail {

/// True while the calling PE packs an object that leaves it (a migration).
inline constinit thread_local bool tls_packing_to_move = false;
/// ... and the object goes to a PE of this process, packed only because it
/// asked (pup_on_migration): what is the process's anyway may stay in place.
/// False under +serialize, which exercises the path between processes.
inline constinit thread_local bool tls_move_within_process = false;

/// Sets both for its lifetime.
class packing_to_move_scope {
 public:
  explicit packing_to_move_scope(bool within_process = false) noexcept
      : was_(tls_packing_to_move), was_within_(tls_move_within_process) {
    tls_packing_to_move = true;
    tls_move_within_process = within_process;
  }
  packing_to_move_scope(const packing_to_move_scope&) = delete;
  packing_to_move_scope& operator=(const packing_to_move_scope&) = delete;
  ~packing_to_move_scope() {
    tls_packing_to_move = was_;
    tls_move_within_process = was_within_;
  }

 private:
  bool was_, was_within_;
};

}  // namespace roam::detail
