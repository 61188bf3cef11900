// Checks a trace directory written by +trace against what every trace must
// satisfy, and against counts the test expects:
//   - every file reads and validates (roam-trace's reader);
//   - per PE, timestamps never go back, and entry begins and ends nest;
//   - for every entry method, sends equal receipts (a message parked and
//     delivered again, or passed on towards a migrated element, is received
//     once, where it runs), and every receipt is linked to its send (a
//     broadcast or multicast is received once per PE and begun once per
//     member there);
//   - every linked message arrives after it was sent, across processes too
//     (clock offsets applied), and the start-up offsets were right within
//     100 us (the reader's alignment by the messages moved no node further);
//   - ENTRY=N: exactly N begins of that entry, and N sends and receipts when
//     it is sent point to point (ENTRY~N: N begins only, for broadcasts);
//   - the Perfetto JSON parses, has a track per PE, slices, and one flow
//     start per flow end.
//   trace_verify DIR [ENTRY=N | ENTRY~N]...
#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "analysis.hpp"
#include "perfetto.hpp"

namespace {

struct per_entry {
  std::uint64_t sent = 0, received = 0, begun = 0;
};

int fail(const std::string& why) {
  std::printf("trace_verify: WRONG: %s\n", why.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: trace_verify DIR [ENTRY=N | ENTRY~N]...\n");
    return 2;
  }
  try {
    const roam_trace::trace_run run = roam_trace::read_trace(argv[1]);
    const roam_trace::analysis a = roam_trace::analyze(run);
    if (a.unbalanced) return fail(std::to_string(a.unbalanced) + " entry begins and ends do not pair up");
    if (a.unmatched_receipts) return fail(std::to_string(a.unmatched_receipts) + " receipts without their send");
    std::map<std::string, per_entry> entries;
    std::uint64_t events = 0;
    for (const auto& t : run.pe) {
      std::int64_t last = 0;
      for (const auto& e : t.events) {
        ++events;
        if (e.ns < last) return fail("pe " + std::to_string(t.pe) + ": time goes back");
        last = e.ns;
        using roam_trace::record_type;
        if (e.r.type == record_type::send) ++entries[run.entry_name(e.r.c)].sent;
        if (e.r.type == record_type::receive) ++entries[run.entry_name(e.r.c)].received;
        if (e.r.type == record_type::entry_begin && e.r.how == 0) ++entries[run.entry_name(e.r.b)].begun;
      }
    }
    for (const auto& [name, c] : entries) {
      if (c.sent != c.received)
        return fail(name + ": " + std::to_string(c.sent) + " sent, " + std::to_string(c.received) + " received");
    }
    for (const auto& f : a.flows)
      if (f.received_ns < f.sent_ns)
        return fail("a message from pe " + std::to_string(f.src_pe) + " to pe " + std::to_string(f.dst_pe) +
                    " arrives " + std::to_string(f.sent_ns - f.received_ns) + " ns before it was sent");
    for (std::size_t n = 0; n < run.clock_corrections.size(); ++n)
      if (std::llabs(run.clock_corrections[n]) > 100'000)
        return fail("node " + std::to_string(n) + "'s clock needed a correction of " +
                    std::to_string(run.clock_corrections[n]) + " ns after the start-up offset");
    for (int i = 2; i < argc; ++i) {
      const std::string arg = argv[i];
      const auto at = arg.find_last_of("=~");
      if (at == std::string::npos) return fail("bad expectation '" + arg + "'");
      const std::string name = arg.substr(0, at);
      const std::uint64_t n = std::stoull(arg.substr(at + 1));
      const per_entry c = entries.count(name) ? entries[name] : per_entry{};
      if (c.begun != n) return fail(name + ": " + std::to_string(c.begun) + " begun, expected " + std::to_string(n));
      if (arg[at] == '=' && (c.sent != n || c.received != n))
        return fail(name + ": " + std::to_string(c.sent) + " sent and " + std::to_string(c.received) +
                    " received, expected " + std::to_string(n) + " (point to point)");
    }
    const auto j = nlohmann::json::parse(roam_trace::perfetto_json(run, a));
    std::set<std::uint64_t> tracks;
    std::uint64_t slices = 0, starts = 0, finishes = 0;
    for (const auto& e : j.at("traceEvents")) {
      const std::string ph = e.at("ph");
      if (ph == "M" && e.at("name") == "thread_name") tracks.insert(e.at("tid").get<std::uint64_t>());
      slices += ph == "X";
      starts += ph == "s";
      finishes += ph == "f";
    }
    if (tracks.size() != run.pes) return fail("perfetto: " + std::to_string(tracks.size()) + " PE tracks");
    if (slices == 0 || starts != finishes || starts != a.flows.size()) return fail("perfetto: slices or flows missing");
    std::printf("trace_verify: OK (%u pes, %u processes, %llu events, %zu messages linked)\n", run.pes, run.nodes,
                static_cast<unsigned long long>(events), a.flows.size());
    return 0;
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}
