#pragma once
// +trace: the observer that turns runtime, lifecycle and user events into
// records in the calling PE's buffer (recorder.hpp).
#include <memory>

#include <roam/obj/lifecycle.hpp>
#include <roam/sched/observe.hpp>

#include "recorder.hpp"

namespace roam::trace::detail {

class trace_observer final : public runtime_observer, public lifecycle_observer {
 public:
  explicit trace_observer(trace_writer& w) : writer_(w) {}

  void entry_begin(const entry_event& e) noexcept override;
  void entry_end(const entry_event& e) noexcept override;
  void message_sent(const message_event& e) noexcept override;
  void message_received(const message_event& e) noexcept override;
  void idle_begin(std::uint32_t pe, std::uint64_t ticks) noexcept override;
  void idle_end(std::uint32_t pe, std::uint64_t ticks) noexcept override;
  void phase(const phase_event& e) noexcept override;

  void born(const object_event& e) noexcept override { object_record(record_type::born, e); }
  void arrived(const object_event& e) noexcept override { object_record(record_type::arrived, e); }
  void leaving(const object_event& e) noexcept override { object_record(record_type::leaving, e); }
  void died(const object_event& e) noexcept override { object_record(record_type::died, e); }

  /// User events, on the calling PE (roam/trace/trace.hpp).
  void user(record_type t, std::uint32_t name, std::uint64_t value) noexcept;

 private:
  void object_record(record_type t, const object_event& e) noexcept;
  /// Fills kind, dims, a and c with the object; adds an index_ext record for more than 2 dims.
  void put_object(pe_recorder& r, record& x, const object_identity& o) noexcept;

  trace_writer& writer_;
};

}  // namespace roam::trace::detail
