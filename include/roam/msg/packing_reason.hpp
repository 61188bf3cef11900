#pragma once
/// \file
/// Why a pup function is packing: for a migration (the object leaves this
/// PE once it is packed) or for something else (a checkpoint, a copy), in
/// which case the object stays as it is. A member whose state cannot be in
/// two places at once asks, e.g. a channel receiver (roam::direct) that must
/// stop taking puts into a buffer that is being packed away.
#include <roam/msg/detail/packing_to_move.hpp>

namespace roam {

/// True while the calling PE packs (sizes or writes) an object that migrates.
inline bool packing_to_move() noexcept { return detail::tls_packing_to_move; }

}  // namespace roam
