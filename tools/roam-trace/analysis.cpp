// analysis.hpp
#include "analysis.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <unordered_map>

namespace roam_trace {

analysis analyze(const trace_run& run) {
  analysis a;
  a.pe.resize(run.pe.size());
  struct open {
    std::int64_t begin;
    std::size_t event;
  };
  // Sends by (PE, flow number), in time order, for the receipts to find.
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> sends;
  for (std::size_t p = 0; p < run.pe.size(); ++p) {
    const auto& ev = run.pe[p].events;
    pe_analysis& pa = a.pe[p];
    if (!ev.empty()) pa.first_ns = ev.front().ns, pa.last_ns = ev.back().ns;
    std::vector<open> stack, spans;
    std::int64_t idle_since = -1;
    for (std::size_t i = 0; i < ev.size(); ++i) {
      const event& e = ev[i];
      switch (e.r.type) {
        case record_type::entry_begin:
          stack.push_back({e.ns, i});
          break;
        case record_type::entry_end: {
          if (stack.empty()) {
            ++a.unbalanced;
            break;
          }
          open o = stack.back();
          stack.pop_back();
          pa.slices.push_back({o.begin, e.ns, o.event, static_cast<int>(stack.size())});
          if (stack.empty()) pa.busy_ns += e.ns - o.begin;
          break;
        }
        case record_type::idle_begin:
          idle_since = e.ns;
          break;
        case record_type::idle_end:
          if (idle_since >= 0) {
            pa.idle.push_back({idle_since, e.ns, 0});
            pa.idle_ns += e.ns - idle_since;
          }
          idle_since = -1;
          break;
        case record_type::send:
          ++pa.sent;
          pa.sent_bytes += e.r.b & 0xffffffffu;
          sends[(std::uint64_t{static_cast<std::uint32_t>(p)} << 32) | (e.r.b >> 32)].push_back(i);
          break;
        case record_type::receive:
          ++pa.received;
          pa.received_bytes += e.r.b & 0xffffffffu;
          break;
        case record_type::span_begin:
          spans.push_back({e.ns, e.r.a});
          break;
        case record_type::span_end:
          if (!spans.empty()) {
            pa.spans.push_back({spans.back().begin, e.ns, static_cast<std::uint32_t>(spans.back().event)});
            spans.pop_back();
          }
          break;
        default:
          break;
      }
    }
    a.unbalanced += stack.size();
    std::sort(pa.slices.begin(), pa.slices.end(), [](const slice& x, const slice& y) {
      return x.begin != y.begin ? x.begin < y.begin : x.depth < y.depth;
    });
  }
  for (std::size_t p = 0; p < run.pe.size(); ++p) {
    const auto& ev = run.pe[p].events;
    for (std::size_t i = 0; i < ev.size(); ++i) {
      const event& e = ev[i];
      if (e.r.type != record_type::receive) continue;
      const std::uint32_t src = e.r.a;
      auto it = sends.find((std::uint64_t{src} << 32) | (e.r.b >> 32));
      if (src >= run.pe.size() || it == sends.end()) {
        ++a.unmatched_receipts;
        continue;
      }
      // Flow numbers wrap after 2^20 sends of a PE: the send is the one so
      // numbered nearest in time (clocks of processes may still disagree a little).
      const auto& sv = it->second;
      const auto& sev = run.pe[src].events;
      auto after = std::upper_bound(sv.begin(), sv.end(), e.ns,
                                    [&](std::int64_t t, std::size_t k) { return t < sev[k].ns; });
      std::size_t s = after == sv.end() ? sv.back() : *after;
      if (after != sv.begin() && (after == sv.end() || e.ns - sev[*(after - 1)].ns <= sev[*after].ns - e.ns))
        s = *(after - 1);
      flow_link f{src, static_cast<std::uint32_t>(p), s, i, sev[s].ns, e.ns, -1};
      for (std::size_t k = i + 1; k < ev.size() && k < i + 4; ++k)
        if (ev[k].r.type == record_type::entry_begin) {
          f.started_ns = ev[k].ns;
          break;
        }
      a.flows.push_back(f);
    }
  }
  return a;
}

void align_clocks(trace_run& run) {
  run.clock_corrections.assign(run.nodes, 0);
  if (run.nodes < 2) return;
  const analysis a = analyze(run);
  for (std::uint32_t k = 1; k < run.nodes; ++k) {
    // The shift d of node k must keep send <= receipt for messages with nodes before it.
    std::int64_t lo = INT64_MIN, hi = INT64_MAX;
    for (const flow_link& f : a.flows) {
      const std::uint32_t from = run.pe[f.src_pe].node, to = run.pe[f.dst_pe].node;
      if (to == k && from < k) lo = std::max(lo, f.sent_ns + run.clock_corrections[from] - f.received_ns);
      if (from == k && to < k) hi = std::min(hi, f.received_ns + run.clock_corrections[to] - f.sent_ns);
    }
    std::int64_t d = 0;
    if (lo > hi) d = lo / 2 + hi / 2;  // no shift satisfies both (clocks drifted): split the difference
    else if (lo > 0) d = lo;
    else if (hi < 0) d = hi;
    run.clock_corrections[k] = d;
  }
  for (auto& t : run.pe)
    if (const std::int64_t d = run.clock_corrections[t.node])
      for (auto& e : t.events) e.ns += d;
}

std::vector<entry_total> entry_totals(const trace_run& run, const analysis& a) {
  std::map<std::string, entry_total> by;
  for (std::size_t p = 0; p < run.pe.size(); ++p)
    for (const slice& s : a.pe[p].slices) {
      const std::string name = run.entry_name(run.pe[p].events[s.event].r.b);
      entry_total& t = by[name];
      t.name = name;
      ++t.count;
      t.total_ns += s.end - s.begin;
      t.max_ns = std::max(t.max_ns, s.end - s.begin);
    }
  std::vector<entry_total> out;
  for (auto& [k, v] : by) out.push_back(v);
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.total_ns > y.total_ns; });
  return out;
}

std::string summary_text(const trace_run& run, const analysis& a) {
  std::string out;
  char line[512];
  const double wall = static_cast<double>(run.end_ns) / 1e9;
  std::snprintf(line, sizeof line, "%s: %u PEs in %u process(es), transport %s, %.3f ms traced\n", run.program.c_str(),
                run.pes, run.nodes, run.transport.c_str(), wall * 1e3);
  out += line;
  std::snprintf(line, sizeof line, "  %-44s %12s %12s %11s %11s\n", "entry method", "count", "total ms", "mean us",
                "max us");
  out += line;
  // Long names (class templates) keep their end, where the method is.
  auto fit = [](const std::string& name) { return name.size() <= 44 ? name : "..." + name.substr(name.size() - 41); };
  for (const entry_total& t : entry_totals(run, a)) {
    std::snprintf(line, sizeof line, "  %-44.44s %12" PRIu64 " %12.3f %11.3f %11.3f\n", fit(t.name).c_str(), t.count,
                  static_cast<double>(t.total_ns) / 1e6, static_cast<double>(t.total_ns) / 1e3 / static_cast<double>(t.count),
                  static_cast<double>(t.max_ns) / 1e3);
    out += line;
  }
  // User spans (roam::trace::span), all PEs; nested ones count in their own row too.
  std::map<std::string, entry_total> spans;
  for (std::size_t p = 0; p < a.pe.size(); ++p)
    for (const interval& i : a.pe[p].spans) {
      const std::string& name = run.user_name(run.pe[p].node, i.name);
      entry_total& t = spans[name];
      t.name = name;
      ++t.count;
      t.total_ns += i.end - i.begin;
      t.max_ns = std::max(t.max_ns, i.end - i.begin);
    }
  if (!spans.empty()) {
    std::snprintf(line, sizeof line, "  %-44s %12s %12s %11s %11s\n", "user span", "count", "total ms", "mean us", "max us");
    out += line;
    for (const auto& [name, t] : spans) {
      std::snprintf(line, sizeof line, "  %-44.44s %12" PRIu64 " %12.3f %11.3f %11.3f\n", fit(name).c_str(), t.count,
                    static_cast<double>(t.total_ns) / 1e6,
                    static_cast<double>(t.total_ns) / 1e3 / static_cast<double>(t.count),
                    static_cast<double>(t.max_ns) / 1e3);
      out += line;
    }
  }
  std::snprintf(line, sizeof line, "  %-6s %8s %8s %9s %12s %12s %12s %12s\n", "pe", "busy %", "idle %", "other %",
                "msgs sent", "bytes sent", "msgs recv", "bytes recv");
  out += line;
  for (std::size_t p = 0; p < a.pe.size(); ++p) {
    const pe_analysis& pa = a.pe[p];
    const double span = std::max<double>(1, static_cast<double>(pa.last_ns - pa.first_ns));
    const double busy = 100.0 * static_cast<double>(pa.busy_ns) / span, idle = 100.0 * static_cast<double>(pa.idle_ns) / span;
    std::snprintf(line, sizeof line, "  %-6zu %8.1f %8.1f %9.1f %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n",
                  p, busy, idle, std::max(0.0, 100.0 - busy - idle), pa.sent, pa.sent_bytes, pa.received,
                  pa.received_bytes);
    out += line;
  }
  return out;
}

}  // namespace roam_trace
