#pragma once
// Lifecycle observers: the extension point for layers that keep per-object
// records (load balancing, checkpointing, tracing). Any number may subscribe;
// each is told, on the PE where it happens, when an object is
//   born     built here: an array's initial elements, an insertion, a demand
//            creation, a group or nodegroup member, a singleton chare;
//   arrived  migrated in (after_migration has run);
//   leaving  about to migrate to `peer` (still here and intact);
//   died     destroyed while the program runs (not at shutdown).
// Same rules as runtime observers (roam/sched/observe.hpp): thread-safe, no
// messages, no blocking; a few loads when nobody subscribes.
#include <cstdint>

#include <roam/sched/observe.hpp>

namespace roam {

struct object_event {
  object_identity object;
  void* obj = nullptr;       ///< the object's address on this PE
  std::uint32_t pe = 0;      ///< where it happens
  std::uint32_t peer = ~0u;  ///< leaving: the destination PE
  bool syncs = false;        ///< takes part in load balancing at sync points (its type has resume_from_sync)
};

class lifecycle_observer {
 public:
  virtual ~lifecycle_observer() = default;
  virtual void born(const object_event&) noexcept {}
  virtual void arrived(const object_event&) noexcept {}
  virtual void leaving(const object_event&) noexcept {}
  virtual void died(const object_event&) noexcept {}
};

/// Subscribes `o` (false: already subscribed, or max_observers reached).
bool add_lifecycle_observer(lifecycle_observer& o) noexcept;
void remove_lifecycle_observer(lifecycle_observer& o) noexcept;

namespace detail {
inline subscriber_list<lifecycle_observer> g_lifecycle;
}  // namespace detail

}  // namespace roam
