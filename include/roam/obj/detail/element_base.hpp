#pragma once
// The part of every array element the runtime reads and moves with it: who
// it is, how far it got in reductions and broadcasts, how often it moved, and
// what it asked for (to move, to be destroyed) while an entry method ran.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include <roam/msg/detail/message.hpp>
#include <roam/msg/pup.hpp>
#include <roam/sched/task.hpp>

namespace roam::detail {

struct collection_desc;
struct element_access;

/// Runtime fields that travel with a migrating element.
struct element_fields {
  std::uint32_t reductions = 0;  ///< number of the next reduction it contributes to
  std::uint32_t broadcasts = 0;  ///< number of the last broadcast it received
  std::uint32_t epoch = 0;       ///< incarnation and migration count: newer location news wins
  std::vector<std::pair<std::uint32_t, std::uint32_t>> section_reductions;  ///< (section, next number)
  std::uint32_t restarts = 0;  ///< restart-entry tasks ended by a packed move, to start again on arrival
  void pup(pup_er& p) { p | reductions | broadcasts | epoch | section_reductions | restarts; }
};

inline constexpr std::uint32_t no_pe = ~0u;

class element_base {
 public:
  element_base(const element_base&) = delete;
  element_base& operator=(const element_base&) = delete;

  /// Moves this element to PE `pe` once the running entry method returns: its
  /// state travels through its pup, and every message sent to it still
  /// reaches it exactly once. Moving to the PE it is on does nothing.
  void migrate_to(std::uint32_t pe) noexcept { move_to_ = pe; }
  /// Destroys this element once the running entry method returns. Reductions
  /// stop counting it from its next one; later messages to it are errors.
  void destroy_self() noexcept { destroy_ = true; }

  /// The collection, the index as stored in envelopes.
  const collection_desc* descriptor() const noexcept { return desc_; }
  const index_storage& stored_index() const noexcept { return index_; }

 protected:
  element_base() = default;
  ~element_base() = default;

 private:
  friend struct element_access;
  const collection_desc* desc_ = nullptr;
  index_storage index_;
  element_fields fields_;
  std::uint32_t move_to_ = no_pe;
  // Blocked threaded entries and tasks held on a future or timer: moving or
  // destroying waits for 0. Declared before tasks_, whose frames release it.
  std::uint32_t threads_ = 0;
  task_roots tasks_;  ///< unfinished entry tasks (not state: they stay with the object)
  bool destroy_ = false;
};

/// The runtime's access to an element's fields.
struct element_access {
  static element_fields& fields(element_base& e) noexcept { return e.fields_; }
  static void bind(element_base& e, const collection_desc* d, const index_storage& i) noexcept {
    e.desc_ = d;
    e.index_ = i;
    e.tasks_.owner = &e;
    e.tasks_.kind = task_owner_kind::element;
    e.tasks_.holds = &e.threads_;
  }
  static std::uint32_t take_move(element_base& e) noexcept { return std::exchange(e.move_to_, no_pe); }
  static bool take_destroy(element_base& e) noexcept { return std::exchange(e.destroy_, false); }
  static bool has_request(const element_base& e) noexcept { return e.move_to_ != no_pe || e.destroy_; }
  static task_roots& tasks(element_base& e) noexcept { return e.tasks_; }
  static std::size_t unfinished_tasks(const element_base& e) noexcept { return e.tasks_.size(); }
  static std::uint32_t& threads(element_base& e) noexcept { return e.threads_; }
  static std::uint32_t* reduction_counter(element_base& e) noexcept { return &e.fields_.reductions; }
  static std::uint32_t* section_counter(element_base& e, std::uint32_t section) {
    for (auto& [id, n] : e.fields_.section_reductions)
      if (id == section) return &n;
    e.fields_.section_reductions.emplace_back(section, 0);
    return &e.fields_.section_reductions.back().second;
  }
};

}  // namespace roam::detail
