// Heap routing's part in the scheduler (include/roam/sched/detail/heap_route.hpp):
// the variable itself lives with the switch (ult.cpp); this is the posting
// path a routed thread takes.
#include <roam/sched/detail/heap_route.hpp>
#include <roam/sched/detail/post.hpp>

namespace roam::detail {

void post_from_routed_thread(std::uint32_t dst, work_item* w) noexcept {
  heap_route_pause pause;  // queues and transport buffers grow in the process heap
  post(dst, w);
}

}  // namespace roam::detail
