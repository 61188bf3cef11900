#include <roam/msg/detail/control.hpp>

namespace roam::detail {

void deliver_control(work_item* w, work_action a) noexcept {
  auto* m = static_cast<message*>(w);
  if (a == work_action::run) {
    try {
      m->ops->invoke(m, nullptr);
    } catch (const pup_error& e) {
      report_fatal("runtime control message " + std::string(m->ops->name) + ": corrupt message: " + e.what());
    } catch (const std::exception& e) {
      report_fatal("runtime control message " + std::string(m->ops->name) + ": " + e.what());
    } catch (...) {
      report_fatal("runtime control message " + std::string(m->ops->name) + ": unknown exception");
    }
  }
  m->ops->destroy(m);
  free_message(m);
}

}  // namespace roam::detail
