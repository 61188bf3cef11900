#pragma once
// Why an object is being packed. Most of what a pup packs is copied; a few
// things cannot be in two places at once (a blocked migratable thread,
// roam/iso/thread.hpp): packed for a move they leave with the packed state,
// packed for a checkpoint they stay where they are.

namespace roam::detail {

/// True while the calling PE packs an object that leaves it (a migration).
inline constinit thread_local bool tls_packing_to_move = false;

/// Sets tls_packing_to_move for its lifetime.
class packing_to_move_scope {
 public:
  packing_to_move_scope() noexcept : was_(tls_packing_to_move) { tls_packing_to_move = true; }
  packing_to_move_scope(const packing_to_move_scope&) = delete;
  packing_to_move_scope& operator=(const packing_to_move_scope&) = delete;
  ~packing_to_move_scope() { tls_packing_to_move = was_; }

 private:
  bool was_;
};

}  // namespace roam::detail
