// +summary (summary.hpp).
#include "summary.hpp"
#include "trace_options.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include <roam/msg/detail/entry_ops.hpp>
#include <roam/sched/clock.hpp>

namespace roam::trace::detail {

namespace {
constexpr std::uint64_t empty_slot = ~std::uint64_t{0};
constexpr std::size_t max_bins = 200;
std::size_t slot_of(std::uint64_t id, std::size_t capacity) noexcept {
  return static_cast<std::size_t>((id * 0x9e3779b97f4a7c15ull) >> 40) & (capacity - 1);
}
}  // namespace

entry_stats& pe_summary::lookup(std::uint64_t id) noexcept {
  for (;;) {
    const std::size_t mask = table.size() - 1;
    for (std::size_t i = slot_of(id, table.size());; i = (i + 1) & mask) {
      entry_stats& s = table[i];
      if (s.id == id) return s;
      if (s.id == empty_slot) {
        if ((used + 1) * 2 > table.size()) break;  // grow first, keep probes short
        ++used;
        s.id = id;
        return s;
      }
    }
    std::vector<entry_stats> old(table.size() * 2);
    for (auto& s : old) s.id = empty_slot;
    old.swap(table);
    used = 0;
    last_stats = nullptr;
    for (const entry_stats& s : old)
      if (s.id != empty_slot) {
        entry_stats& t = lookup(s.id);
        t = s;
      }
  }
}

void pe_summary::add_busy(std::uint64_t origin, std::uint64_t from, std::uint64_t to) noexcept {
  if (from >= last_bin_begin && to <= last_bin_end) [[likely]] {  // within the bin last filled: no division
    bins[last_bin] += to - from;
    return;
  }
  if (to <= from || from < origin) return;
  for (;;) {
    if ((to - 1 - origin) / bin_ticks < max_bins) break;
    // Too many bins: halve the resolution.
    for (std::size_t i = 0; i < bins.size(); ++i) bins[i / 2] = (i % 2 ? bins[i / 2] : 0) + bins[i];
    bins.resize((bins.size() + 1) / 2);
    bin_ticks *= 2;
    last_bin_begin = 1, last_bin_end = 0;
  }
  while (from < to) {
    const std::uint64_t b = (from - origin) / bin_ticks;
    const std::uint64_t bin_end = origin + (b + 1) * bin_ticks;
    const std::uint64_t upto = std::min(to, bin_end);
    if (bins.size() <= b) bins.resize(b + 1, 0);
    bins[b] += upto - from;
    last_bin = b;
    last_bin_begin = bin_end - bin_ticks;
    last_bin_end = bin_end;
    from = upto;
  }
}

summary_observer::summary_observer(const roam::detail::runtime_state& rt)
    : needs_(rt.opts.deterministic ? need_begin_times | need_end_times : need_begin_times),
      first_pe_(rt.first_pe),
      origin_(clock_ticks()),
      pes_(rt.ppn) {
  const auto ms = static_cast<std::uint64_t>(clock_ticks_per_second() / 1000);
  for (auto& p : pes_) {
    for (auto& s : p.table) s.id = empty_slot;
    p.bin_ticks = std::max<std::uint64_t>(1, ms);
  }
}

void pe_summary::add_time(std::uint64_t origin, entry_stats& s, std::uint64_t begin, std::uint64_t end,
                          bool top) noexcept {
  const std::uint64_t t = end > begin ? end - begin : 0;
  s.total += t;
  s.longest = std::max(s.longest, t);
  if (top) {
    busy += t;
    add_busy(origin, begin, end);
  }
}

void pe_summary::close_pending(std::uint64_t origin, std::uint64_t now) noexcept {
  if (!pending) return;
  pending = false;
  add_time(origin, stats(ended.id), ended.begin, now, true);
}

void summary_observer::entry_end(const entry_event& e) noexcept {
  pe_summary* p = of(e.pe);
  if (!p) return;
  // An entry not nested in another began at the PE's first timed event after the pending one
  // ended (one nested in it began later, so only an outermost begin closes the pending entry).
  if (!e.nested) p->close_pending(origin_, e.begin_ticks);
  if (p->first == 0) [[unlikely]]
    p->first = e.begin_ticks;
  entry_stats& s = p->stats(e.entry);
  ++s.count;
  if (e.ticks == 0) {  // untimed end (never nested): timed by the PE's next event
    p->pending = true;
    p->ended = {e.entry, e.begin_ticks};
    return;
  }
  p->add_time(origin_, s, e.begin_ticks, e.ticks, !e.nested);
}

void summary_observer::pe_stopped(std::uint32_t pe, std::uint64_t ticks) noexcept {
  if (pe_summary* p = of(pe)) {
    p->close_pending(origin_, ticks);
    p->stopped = ticks;
  }
}

void summary_observer::message_sent(const message_event& e) noexcept {
  if (pe_summary* p = of(e.pe)) {
    ++p->sent;
    p->sent_bytes += e.bytes;
  }
}

void summary_observer::message_received(const message_event& e) noexcept {
  if (pe_summary* p = of(e.pe)) {
    ++p->received;
    p->received_bytes += e.bytes;
  }
}

void summary_observer::idle_begin(std::uint32_t pe, std::uint64_t ticks) noexcept {
  if (pe_summary* p = of(pe)) {
    p->close_pending(origin_, ticks);
    p->idle_since = ticks;
  }
}

void summary_observer::idle_end(std::uint32_t pe, std::uint64_t ticks) noexcept {
  pe_summary* p = of(pe);
  // Idle time counts from the PE's first entry on, as the shares do.
  if (p && p->first && p->idle_since && ticks > p->idle_since) p->idle += ticks - std::max(p->idle_since, p->first);
  if (p) p->idle_since = 0;
}

void summary_observer::report(const roam::detail::runtime_state& rt) {
  const std::uint64_t end = clock_ticks();
  const double tick_s = 1.0 / clock_ticks_per_second();
  const double wall = static_cast<double>(end - origin_) * tick_s;
  struct total {
    std::uint64_t count = 0, ticks = 0, longest = 0;
  };
  std::map<std::string, total> by_name;
  for (const pe_summary& p : pes_)
    for (const entry_stats& s : p.table) {
      if (s.id == empty_slot) continue;
      std::string name = "(coroutine task resumptions)";
      if (s.id != 0) {
        const roam::detail::entry_ops* e = roam::detail::find_entry(s.id);
        name = e ? std::string(e->name) : "entry " + std::to_string(s.id);
      }
      total& t = by_name[name];
      t.count += s.count;
      t.ticks += s.total;
      t.longest = std::max(t.longest, s.total ? s.longest : 0);
    }
  std::vector<std::pair<std::string, total>> rows(by_name.begin(), by_name.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.ticks > b.second.ticks; });

  std::string out = "roam summary, node " + std::to_string(rt.my_node) + ": " + std::to_string(rt.ppn) + " PEs, " +
                    std::to_string(wall * 1e3) + " ms\n";
  char line[512];
  std::snprintf(line, sizeof line, "  %-44s %12s %12s %11s %11s\n", "entry method", "count", "total ms", "mean us",
                "max us");
  out += line;
  for (const auto& [name, t] : rows) {
    std::snprintf(line, sizeof line, "  %-44.44s %12" PRIu64 " %12.3f %11.3f %11.3f\n", name.c_str(), t.count,
                  static_cast<double>(t.ticks) * tick_s * 1e3,
                  t.count ? static_cast<double>(t.ticks) * tick_s * 1e6 / static_cast<double>(t.count) : 0.0,
                  static_cast<double>(t.longest) * tick_s * 1e6);
    out += line;
  }
  std::snprintf(line, sizeof line, "  %-6s %8s %8s %9s %12s %12s %12s %12s\n", "pe", "busy %", "idle %", "other %",
                "msgs sent", "bytes sent", "msgs recv", "bytes recv");
  out += line;
  nlohmann::json pes = nlohmann::json::array();
  for (std::size_t i = 0; i < pes_.size(); ++i) {
    const pe_summary& p = pes_[i];
    const double busy = static_cast<double>(p.busy) * tick_s, idle = static_cast<double>(p.idle) * tick_s;
    // Shares of the PE's own active time: from its first entry to its stop.
    const std::uint64_t from = p.first ? p.first : origin_, to = p.stopped > from ? p.stopped : end;
    const double active = std::max(1e-9, static_cast<double>(to - from) * tick_s);
    const double other = std::max(0.0, active - busy - idle);
    std::snprintf(line, sizeof line, "  %-6u %8.1f %8.1f %9.1f %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n",
                  rt.first_pe + static_cast<std::uint32_t>(i), 100 * busy / active, 100 * idle / active,
                  100 * other / active,
                  p.sent, p.sent_bytes, p.received, p.received_bytes);
    out += line;
    nlohmann::json util = nlohmann::json::array();
    for (std::uint64_t b : p.bins) util.push_back(static_cast<double>(b) / static_cast<double>(p.bin_ticks));
    pes.push_back({{"pe", rt.first_pe + i}, {"active_s", active}, {"busy_s", busy}, {"idle_s", idle}, {"other_s", other},
                   {"sent", p.sent}, {"sent_bytes", p.sent_bytes}, {"received", p.received},
                   {"received_bytes", p.received_bytes}, {"bin_s", static_cast<double>(p.bin_ticks) * tick_s},
                   {"utilization", util}});
  }
  // Utilization over time, a digit per bin: 0 below 10%, ..., 9 from 90%.
  for (std::size_t i = 0; i < pes_.size(); ++i) {
    const pe_summary& p = pes_[i];
    std::string digits;
    for (std::uint64_t b : p.bins)
      digits += static_cast<char>('0' + std::min<std::uint64_t>(9, b * 10 / std::max<std::uint64_t>(1, p.bin_ticks)));
    std::snprintf(line, sizeof line, "  pe %u utilization over time (%.3g ms a digit, 0-9 = 0-90%%+): ",
                  rt.first_pe + static_cast<std::uint32_t>(i), static_cast<double>(p.bin_ticks) * tick_s * 1e3);
    out += line + digits + "\n";
  }
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
  if (settings().summary_json.empty()) return;
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& [name, t] : rows)
    entries.push_back({{"entry", name}, {"count", t.count}, {"total_s", static_cast<double>(t.ticks) * tick_s},
                       {"max_s", static_cast<double>(t.longest) * tick_s}});
  nlohmann::json j{{"node", rt.my_node}, {"nodes", rt.num_nodes}, {"pes", rt.num_pes}, {"wall_s", wall},
                   {"entries", entries}, {"pe", pes}};
  std::string path = settings().summary_json;
  if (rt.num_nodes > 1) {
    path += '.';  // piecewise: `"." + std::string` warns falsely under GCC 12 -O2
    path += std::to_string(rt.my_node);
  }
  std::ofstream f(path);
  f << j.dump(1) << "\n";
  f.close();
  if (!f) std::fprintf(stderr, "roam: node %u: +summary: cannot write '%s'\n", rt.my_node, path.c_str());
}

}  // namespace roam::trace::detail
