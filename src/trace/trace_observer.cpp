// +trace: runtime, lifecycle and user events to records (trace_observer.hpp).
#include "trace_observer.hpp"

#include <roam/sched/detail/pe_state.hpp>

namespace roam::trace::detail {

void trace_observer::put_object(pe_recorder& r, record& x, const object_identity& o) noexcept {
  x.kind = static_cast<std::uint8_t>(o.kind);
  x.dims = o.dims;
  x.a = o.collection;
  switch (o.kind) {
    case object_kind::chare:
      x.c = o.chare_id;
      break;
    case object_kind::array_element:
      x.c = pack_pair(o.index[0], o.index[1]);
      if (o.dims > 2) [[unlikely]] {
        record& ext = r.next();
        ext = record{x.ticks, record_type::index_ext, 0, o.dims, 0, 0, pack_pair(o.index[2], o.index[3]),
                     pack_pair(o.index[4], o.index[5])};
      }
      break;
    default:
      x.c = static_cast<std::uint32_t>(o.index[0]);
      break;
  }
}

void trace_observer::entry_begin(const entry_event& e) noexcept {
  pe_recorder* r = writer_.recorder(e.pe);
  if (!r) return;
  record& x = r->next();
  x.ticks = r->stamp(e.ticks);
  x.type = record_type::entry_begin;
  x.how = static_cast<std::uint8_t>(e.how);
  x.b = e.entry;
  put_object(*r, x, e.object);
}

void trace_observer::entry_end(const entry_event& e) noexcept {
  pe_recorder* r = writer_.recorder(e.pe);
  if (!r) return;
  r->next() = record{r->stamp(e.ticks), record_type::entry_end, 0, 0, static_cast<std::uint8_t>(e.how), 0, 0, 0};
}

void trace_observer::message_sent(const message_event& e) noexcept {
  pe_recorder* r = writer_.recorder(e.pe);
  if (!r) return;
  r->next() = record{r->stamp(e.ticks), record_type::send, static_cast<std::uint8_t>(e.to_node), 0, 0, e.peer,
                     (e.bytes & 0xffffffffu) | (std::uint64_t{e.flow} << 32), e.entry};
}

void trace_observer::message_received(const message_event& e) noexcept {
  pe_recorder* r = writer_.recorder(e.pe);
  if (!r) return;
  r->next() = record{r->stamp(e.ticks), record_type::receive, static_cast<std::uint8_t>(e.to_node), 0, 0, e.peer,
                     (e.bytes & 0xffffffffu) | (std::uint64_t{e.flow} << 32), e.entry};
}

void trace_observer::idle_begin(std::uint32_t pe, std::uint64_t ticks) noexcept {
  if (pe_recorder* r = writer_.recorder(pe)) r->next() = record{r->stamp(ticks), record_type::idle_begin, 0, 0, 0, 0, 0, 0};
}

void trace_observer::idle_end(std::uint32_t pe, std::uint64_t ticks) noexcept {
  if (pe_recorder* r = writer_.recorder(pe)) r->next() = record{r->stamp(ticks), record_type::idle_end, 0, 0, 0, 0, 0, 0};
}

void trace_observer::phase(const phase_event& e) noexcept {
  if (pe_recorder* r = writer_.recorder(e.pe))
    r->next() = record{r->stamp(e.ticks), record_type::phase, static_cast<std::uint8_t>(e.kind), 0, 0, e.collection, e.number, 0};
}

void trace_observer::object_record(record_type t, const object_event& e) noexcept {
  pe_recorder* r = writer_.recorder(e.pe);
  if (!r) return;
  record& x = r->next();
  x = record{r->stamp(clock_ticks()), t, 0, 0, 0, 0, t == record_type::leaving ? e.peer : 0u, 0};
  put_object(*r, x, e.object);
}

void trace_observer::user(record_type t, std::uint32_t name, std::uint64_t value) noexcept {
  roam::detail::pe_state* pe = roam::detail::tls_pe;
  if (!pe) return;  // not on a PE: nowhere to show it
  if (pe_recorder* r = writer_.recorder(pe->id())) r->next() = record{r->stamp(clock_ticks()), t, 0, 0, 0, name, value, 0};
}

}  // namespace roam::trace::detail
