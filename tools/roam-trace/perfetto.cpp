// perfetto.hpp
#include "perfetto.hpp"

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cstdio>
#include <map>

namespace roam_trace {

namespace {

std::string escaped(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 2);
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

class writer {
 public:
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  void begin_event() {
    if (!first) out += ",\n";
    first = false;
  }
  // Microseconds with nanosecond digits, as the format wants.
  static std::string us(std::int64_t ns) {
    ns = std::max<std::int64_t>(ns, 0);  // times count from the run's first event
    char buf[40];
    std::snprintf(buf, sizeof buf, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
    return buf;
  }
  void meta(const char* what, std::uint32_t pid, std::uint32_t tid, const std::string& name) {
    begin_event();
    out += "{\"ph\":\"M\",\"name\":\"" + std::string(what) + "\",\"pid\":" + std::to_string(pid) +
           ",\"tid\":" + std::to_string(tid) + ",\"args\":{\"name\":\"" + escaped(name) + "\"}}";
  }
  void complete(std::uint32_t pid, std::uint32_t tid, std::int64_t b, std::int64_t e, const std::string& name,
                const char* cat, const std::string& args) {
    begin_event();
    out += "{\"ph\":\"X\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + us(b) +
           ",\"dur\":" + us(std::max<std::int64_t>(e - b, 0)) + ",\"name\":\"" + escaped(name) + "\",\"cat\":\"" + cat +
           "\"" + (args.empty() ? "" : ",\"args\":{" + args + "}") + "}";
  }
  void instant(std::uint32_t pid, std::uint32_t tid, std::int64_t t, const std::string& name, const char* cat) {
    begin_event();
    out += "{\"ph\":\"i\",\"s\":\"t\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
           ",\"ts\":" + us(t) + ",\"name\":\"" + escaped(name) + "\",\"cat\":\"" + cat + "\"}";
  }
  void counter(std::uint32_t pid, std::int64_t t, const std::string& name, double v) {
    begin_event();
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    out += "{\"ph\":\"C\",\"pid\":" + std::to_string(pid) + ",\"ts\":" + us(t) + ",\"name\":\"" + escaped(name) +
           "\",\"args\":{\"value\":" + buf + "}}";
  }
  void flow(char ph, std::uint64_t id, std::uint32_t pid, std::uint32_t tid, std::int64_t t) {
    begin_event();
    out += "{\"ph\":\"";
    out += ph;
    out += "\",\"id\":" + std::to_string(id) + ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
           ",\"ts\":" + us(t) + ",\"name\":\"message\",\"cat\":\"message\"" + (ph == 'f' ? ",\"bp\":\"e\"" : "") + "}";
  }
};

const char* phase_name(std::uint8_t k) {
  switch (static_cast<roam::phase_kind>(k)) {
    case roam::phase_kind::reduction_done: return "reduction done";
    case roam::phase_kind::quiescence: return "quiescence";
    case roam::phase_kind::load_balance: return "load balancing";
    case roam::phase_kind::checkpoint: return "checkpoint";
  }
  return "phase";
}

}  // namespace

std::string perfetto_json(const trace_run& run, const analysis& a) {
  writer w;
  for (std::uint32_t n = 0; n < run.nodes; ++n) w.meta("process_name", n, 0, "roam node " + std::to_string(n));
  for (const pe_trace& t : run.pe) w.meta("thread_name", t.node, t.pe, "pe " + std::to_string(t.pe));
  for (std::size_t p = 0; p < run.pe.size(); ++p) {
    const pe_trace& t = run.pe[p];
    const pe_analysis& pa = a.pe[p];
    for (const slice& s : pa.slices) {
      const event& e = t.events[s.event];
      std::string obj = run.object_name(e);
      const char* how = e.r.how == 1 ? "task resumption" : e.r.how == 2 ? "thread slice" : "entry";
      std::string args = "\"object\":\"" + escaped(obj) + "\",\"run\":\"" + how + "\"";
      w.complete(t.node, t.pe, s.begin, s.end, run.entry_name(e.r.b), "entry", args);
    }
    for (const interval& i : pa.idle) w.complete(t.node, t.pe, i.begin, i.end, "(idle)", "idle", "");
    for (const interval& i : pa.spans) w.complete(t.node, t.pe, i.begin, i.end, run.user_name(t.node, i.name), "user", "");
    for (const event& e : t.events) {
      switch (e.r.type) {
        case record_type::mark:
          w.instant(t.node, t.pe, e.ns, run.user_name(t.node, e.r.a), "user");
          break;
        case record_type::counter:
          w.counter(t.node, e.ns, run.user_name(t.node, e.r.a) + " (pe " + std::to_string(t.pe) + ")",
                    std::bit_cast<double>(e.r.b));
          break;
        case record_type::phase: {
          std::string name = phase_name(e.r.kind);
          if (static_cast<roam::phase_kind>(e.r.kind) == roam::phase_kind::reduction_done) {
            auto c = run.collections.find(e.r.a);
            name += " #" + std::to_string(e.r.b) + (c != run.collections.end() ? " (" + c->second + ")" : "");
          }
          w.instant(t.node, t.pe, e.ns, name, "phase");
          break;
        }
        case record_type::leaving:
          w.instant(t.node, t.pe, e.ns, "migrate " + run.object_name(e) + " to pe " + std::to_string(e.r.b), "migration");
          break;
        case record_type::arrived:
          w.instant(t.node, t.pe, e.ns, "arrived " + run.object_name(e), "migration");
          break;
        default:
          break;
      }
    }
    // Utilization per PE in 1000 bins over the run (at least 1 us each).
    const std::int64_t bin = std::max<std::int64_t>(1000, run.end_ns / 1000 + 1);
    std::map<std::int64_t, std::int64_t> busy;
    for (const slice& s : pa.slices) {
      if (s.depth) continue;
      for (std::int64_t b = s.begin; b < s.end;) {
        const std::int64_t k = b / bin, upto = std::min(s.end, (k + 1) * bin);
        busy[k] += upto - b;
        b = upto;
      }
    }
    const std::string util = "utilization % (pe " + std::to_string(t.pe) + ")";
    std::int64_t prev = -1;  // the last bin written
    for (const auto& [k, v] : busy) {
      if (prev >= 0 && k != prev + 1) w.counter(t.node, (prev + 1) * bin, util, 0);  // idle bins between
      w.counter(t.node, k * bin, util, 100.0 * static_cast<double>(v) / static_cast<double>(bin));
      prev = k;
    }
    if (prev >= 0) w.counter(t.node, (prev + 1) * bin, util, 0);
  }
  // Flow arrows, and each PE's queue: messages sent to it and not yet received.
  std::vector<std::vector<std::pair<std::int64_t, int>>> queue(run.pe.size());
  std::uint64_t id = 1;
  for (const flow_link& f : a.flows) {
    const pe_trace& s = run.pe[f.src_pe];
    const pe_trace& d = run.pe[f.dst_pe];
    w.flow('s', id, s.node, s.pe, f.sent_ns);
    w.flow('f', id, d.node, d.pe, f.started_ns >= 0 ? f.started_ns : f.received_ns);
    ++id;
    queue[f.dst_pe].push_back({f.sent_ns, +1});
    queue[f.dst_pe].push_back({f.received_ns, -1});
  }
  for (std::size_t p = 0; p < queue.size(); ++p) {
    auto& q = queue[p];
    std::sort(q.begin(), q.end());
    const std::string name = "queued messages (pe " + std::to_string(p) + ")";
    int depth = 0;
    for (std::size_t i = 0; i < q.size(); ++i) {
      depth += q[i].second;
      if (i + 1 < q.size() && q[i + 1].first == q[i].first) continue;
      w.counter(run.pe[p].node, q[i].first, name, depth);
    }
  }
  w.out += "\n],\"metadata\":{\"program\":\"" + escaped(run.program) + "\",\"pes\":" + std::to_string(run.pes) +
           ",\"nodes\":" + std::to_string(run.nodes) + "}}\n";
  return w.out;
}

}  // namespace roam_trace
