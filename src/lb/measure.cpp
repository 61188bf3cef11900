// Load measurement (balancer.hpp): each entry's time, from its begin to its
// end, charged to the object it ran on, and each PE's idle time, over the
// period since the PE's last balancing step.
#include "balancer.hpp"

#include <time.h>

#include <cstdio>

#include <roam/sched/clock.hpp>

namespace roam::lb::detail {

namespace {
// `ticks` of the running entry are `object`'s (charge_load, a thread's
// slice resumed inside another object's entry): added to it, taken off the
// running entry's object when that entry ends.
void charge_ticks(pe_meter& m, const void* object, std::uint64_t ticks) noexcept {
  if (m.last_obj == object) m.last_obj = nullptr, m.last_ticks = nullptr;
  m.ticks[object] += ticks;
  m.charged_away += ticks;
}

// This thread's CPU time, ns (a system call: only under +LBCpuTime).
std::uint64_t thread_cpu_ns() noexcept {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(t.tv_nsec);
}
}  // namespace

run_times thread_run_times() noexcept {
  // Linux: "on-CPU ns, waiting-on-a-runqueue ns, timeslices" of the calling thread.
  std::FILE* f = std::fopen("/proc/thread-self/schedstat", "r");
  if (!f) return {};
  unsigned long long on_cpu = 0, waiting = 0;
  const int n = std::fscanf(f, "%llu %llu", &on_cpu, &waiting);
  std::fclose(f);
  if (n != 2) return {};
  return {static_cast<std::int64_t>(on_cpu), static_cast<std::int64_t>(waiting)};
}

void load_meter::entry_begin(const entry_event& e) noexcept {
  pe_lb* p = s_.of(e.pe);
  if (!p) return;
  if (s_.comm) p->meter.running.push_back(e.obj);
  if (s_.cpu_time) p->meter.cpu_begin.push_back(thread_cpu_ns());
}

void load_meter::message_sent(const message_event& e) noexcept {
  if (!s_.comm || e.to.kind == object_kind::none) return;
  pe_lb* p = s_.of(e.pe);
  if (!p || p->meter.running.empty() || !p->meter.running.back()) return;
  comm_total& t = p->meter.sent[p->meter.running.back()][identity_key{e.to}];
  ++t.messages;
  t.bytes += e.bytes;
}

void load_meter::entry_end(const entry_event& e) noexcept {
  pe_lb* p = s_.of(e.pe);
  if (!p) return;
  if (s_.comm && !p->meter.running.empty()) p->meter.running.pop_back();
  pe_meter& m = p->meter;
  std::uint64_t cpu = 0;
  if (s_.cpu_time && !m.cpu_begin.empty()) {
    cpu = thread_cpu_ns() - m.cpu_begin.back();
    m.cpu_begin.pop_back();
  }
  // A nested entry's time is inside its outer entry's already, except a
  // migratable thread's slice resumed inside another object's entry: that
  // time is the thread's owner's, taken from the outer entry (as charge_load).
  const bool owned_slice = e.nested && e.obj && e.how == run_kind::thread && e.entry == 0;
  if ((e.nested && !owned_slice) || !e.obj) return;
  // Wall time in event-clock ticks, or under +LBCpuTime the thread's CPU time (ns converted to ticks,
  // so that the rest of the meter needs no second unit).
  const std::uint64_t wall = e.ticks > e.begin_ticks ? e.ticks - e.begin_ticks : 0;
  std::uint64_t t = wall;
  if (s_.cpu_time) {
    t = static_cast<std::uint64_t>(static_cast<double>(cpu) * s_.ticks_per_second / 1e9);

  }
  if (owned_slice) {
    charge_ticks(m, e.obj, t);
    return;
  }
  // Time the entry charged to other objects (charge_load) is theirs, not its object's.
  if (m.charged_away != 0) {
    t = t > m.charged_away ? t - m.charged_away : 0;
    m.charged_away = 0;
  }
  if (m.last_obj != e.obj) {
    m.last_ticks = &m.ticks[e.obj];  // node-based map: the pointer stays valid until erased
    m.last_obj = e.obj;
  }
  *m.last_ticks += t;
}

void charge(std::uint32_t pe, const void* object, std::chrono::nanoseconds t) noexcept {
  lb_state* s = state();
  pe_lb* p = s && s->measuring ? s->of(pe) : nullptr;
  if (!p || t.count() <= 0) return;
  charge_ticks(p->meter, object, static_cast<std::uint64_t>(static_cast<double>(t.count()) * s->ticks_per_second / 1e9));
}

void set(std::uint32_t pe, const void* object, std::chrono::nanoseconds t) noexcept {
  lb_state* s = state();
  pe_lb* p = s && s->measuring ? s->of(pe) : nullptr;
  if (!p || t.count() < 0) return;
  p->meter.set_ticks[object] = static_cast<std::uint64_t>(static_cast<double>(t.count()) * s->ticks_per_second / 1e9);
}

void load_meter::idle_begin(std::uint32_t pe, std::uint64_t ticks) noexcept {
  if (pe_lb* p = s_.of(pe)) p->meter.idle_since = ticks;
}

void load_meter::idle_end(std::uint32_t pe, std::uint64_t ticks) noexcept {
  pe_lb* p = s_.of(pe);
  if (!p || !p->meter.idle_since) return;
  pe_meter& m = p->meter;
  const std::uint64_t from = m.idle_since > m.period_start ? m.idle_since : m.period_start;
  if (ticks > from) m.idle_ticks += ticks - from;
  m.idle_since = 0;
}

namespace {
void forget(lb_state& s, const object_event& e) {
  pe_lb* p = s.of(e.pe);
  if (!p) return;
  pe_meter& m = p->meter;
  if (m.last_obj == e.obj) m.last_obj = nullptr, m.last_ticks = nullptr;
  m.ticks.erase(e.obj);  // its address may be reused by another object
  m.set_ticks.erase(e.obj);
  m.sent.erase(e.obj);
}
}  // namespace

void membership_watch::leaving(const object_event& e) noexcept {
  changed(e);
  if (pe_lb* p = s_.of(e.pe)) note_leaving(*p, e);
}

void membership_watch::died(const object_event& e) noexcept {
  changed(e);
  if (pe_lb* p = s_.of(e.pe)) note_died(*p, e);
}

void membership_watch::arrived(const object_event& e) noexcept {
  changed(e);
  if (pe_lb* p = s_.of(e.pe)) note_arrival(*p, e.object);
}
void load_meter::leaving(const object_event& e) noexcept { forget(s_, e); }
void load_meter::died(const object_event& e) noexcept { forget(s_, e); }

void restart_period(pe_lb& p) {
  pe_meter& m = p.meter;
  m.ticks.clear();
  m.set_ticks.clear();
  m.sent.clear();
  m.last_obj = nullptr;
  m.last_ticks = nullptr;
  m.idle_ticks = 0;
  m.charged_away = 0;
  m.run_start = thread_run_times();
  m.period_start = clock_ticks();
  if (m.idle_since) m.idle_since = m.period_start;
}

}  // namespace roam::lb::detail
