#pragma once
// What the checkpoint layer (src/ft/) asks the load balancer: whether a
// balancing step is under way on this PE. Objects waiting in at_sync for a
// step a restarted program would not know of could never resume, so a
// checkpoint is refused while one is (docs/design/checkpoint.md).
#include <string>

namespace roam::lb::detail {

/// Says which step is under way on the calling PE and how far (empty: none).
std::string balancing_in_progress_here();

}  // namespace roam::lb::detail
