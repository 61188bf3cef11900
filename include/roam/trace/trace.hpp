#pragma once
// User events in a trace (+trace, docs/design/trace.md): scoped spans, marks
// and counters, shown beside the runtime's own events in Perfetto and in the
// report of roam-trace. When the run is not traced each call is one relaxed
// load and a branch.
//
//   static const roam::trace::name step_name{"step"};
//   void cell::step() {
//     roam::trace::span s(step_name);           // the span ends with the scope
//     ...
//     roam::trace::counter("atoms", n_atoms);   // a string works too (interned each call)
//   }
#include <atomic>
#include <cstdint>
#include <string_view>

namespace roam::trace {

/// A user event name, interned once (names are process-wide; the same text
/// gives the same id). Cheap to copy.
class name {
 public:
  explicit name(std::string_view text);
  std::uint32_t id() const noexcept { return id_; }

 private:
  std::uint32_t id_;
};

namespace detail {
/// Whether this process records a trace; set before the PEs start.
inline std::atomic<bool> g_user_events{false};
void span_begin(std::uint32_t name) noexcept;
void span_end(std::uint32_t name) noexcept;
void mark(std::uint32_t name) noexcept;
void counter(std::uint32_t name, double value) noexcept;
}  // namespace detail

/// Whether this run records a trace (+trace).
inline bool enabled() noexcept { return detail::g_user_events.load(std::memory_order_relaxed); }

/// A named span on the calling PE, from construction to destruction. Spans
/// nest with each other and with the entry methods they run in.
class span {
 public:
  explicit span(const name& n) noexcept : id_(n.id()), on_(enabled()) {
    if (on_) [[unlikely]] detail::span_begin(id_);
  }
  explicit span(std::string_view text) : on_(enabled()) {
    if (on_) [[unlikely]] {
      id_ = name(text).id();
      detail::span_begin(id_);
    }
  }
  ~span() {
    if (on_) [[unlikely]] detail::span_end(id_);
  }
  span(const span&) = delete;
  span& operator=(const span&) = delete;

 private:
  std::uint32_t id_ = 0;
  bool on_;
};

/// An instant on the calling PE.
inline void mark(const name& n) noexcept {
  if (enabled()) [[unlikely]] detail::mark(n.id());
}
inline void mark(std::string_view text) {
  if (enabled()) [[unlikely]] detail::mark(name(text).id());
}

/// A value that changes over time (one track per name and PE).
inline void counter(const name& n, double value) noexcept {
  if (enabled()) [[unlikely]] detail::counter(n.id(), value);
}
inline void counter(std::string_view text, double value) {
  if (enabled()) [[unlikely]] detail::counter(name(text).id(), value);
}

}  // namespace roam::trace
