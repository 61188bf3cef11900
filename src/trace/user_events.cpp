// User events (roam/trace/trace.hpp): names interned once; spans, marks and
// counters recorded on the calling PE while the run is traced.
#include <bit>
#include <mutex>
#include <string>
#include <unordered_map>

#include <roam/trace/trace.hpp>

#include "names.hpp"
#include "setup.hpp"

namespace roam::trace {

namespace {
struct name_table {
  std::mutex mutex;
  std::unordered_map<std::string, std::uint32_t> ids;
  std::vector<std::string> names{std::string()};
};
name_table& table() {
  static name_table t;
  return t;
}
}  // namespace

name::name(std::string_view text) {
  name_table& t = table();
  std::lock_guard lock(t.mutex);
  auto [it, added] = t.ids.try_emplace(std::string(text), static_cast<std::uint32_t>(t.names.size()));
  if (added) t.names.emplace_back(text);
  id_ = it->second;
}

namespace detail {

std::vector<std::string> user_names() {
  name_table& t = table();
  std::lock_guard lock(t.mutex);
  return t.names;
}

void span_begin(std::uint32_t name) noexcept {
  if (trace_observer* o = active_tracer()) o->user(record_type::span_begin, name, 0);
}
void span_end(std::uint32_t name) noexcept {
  if (trace_observer* o = active_tracer()) o->user(record_type::span_end, name, 0);
}
void mark(std::uint32_t name) noexcept {
  if (trace_observer* o = active_tracer()) o->user(record_type::mark, name, 0);
}
void counter(std::uint32_t name, double value) noexcept {
  if (trace_observer* o = active_tracer()) o->user(record_type::counter, name, std::bit_cast<std::uint64_t>(value));
}

}  // namespace detail
}  // namespace roam::trace
