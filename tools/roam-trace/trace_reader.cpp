// Reading and validating a trace directory (trace_reader.hpp).
#include "trace_reader.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#if defined(ROAM_HAVE_ZSTD)
#include <zstd.h>
#endif

namespace roam_trace {

namespace fmt = roam::trace::detail;

namespace {

std::vector<char> slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw trace_error(path + ": cannot open");
  return std::vector<char>(std::istreambuf_iterator<char>(f), {});
}

nlohmann::json read_json(const std::string& path) {
  std::vector<char> text = slurp(path);
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    throw trace_error(path + ": not a roam trace index (" + e.what() + ")");
  }
}

template <class T>
T field(const nlohmann::json& j, const char* key, const std::string& path) {
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw trace_error(path + ": missing or malformed field '" + key + "'");
  }
}

process_info read_process(const nlohmann::json& j, const std::string& path, trace_run& run) {
  if (field<std::string>(j, "format", path) != "roam-trace")
    throw trace_error(path + ": not a roam trace index (format is not roam-trace)");
  if (field<std::uint32_t>(j, "version", path) != fmt::format_version)
    throw trace_error(path + ": trace format version " + std::to_string(field<std::uint32_t>(j, "version", path)) +
                      ", this roam-trace reads version " + std::to_string(fmt::format_version));
  process_info p;
  p.node = field<std::uint32_t>(j, "node", path);
  const auto& clock = j.at("clock");
  const double tps = field<double>(clock, "ticks_per_second", path);
  if (!(tps > 0)) throw trace_error(path + ": clock.ticks_per_second must be positive");
  p.ticks_per_ns = tps / 1e9;
  p.origin_ticks = field<std::uint64_t>(clock, "origin_ticks", path);
  p.origin_ns = static_cast<std::int64_t>(field<std::uint64_t>(clock, "origin_unix_ns", path)) -
                field<std::int64_t>(clock, "offset_ns", path);
  p.names = field<std::vector<std::string>>(j, "names", path);
  // Named locals: a range-for over items() of a temporary would dangle.
  const auto entries = field<nlohmann::json>(j, "entries", path), collections = field<nlohmann::json>(j, "collections", path);
  try {
    for (const auto& [k, v] : entries.items()) run.entries[std::stoull(k)] = v.get<std::string>();
    for (const auto& [k, v] : collections.items())
      run.collections[static_cast<std::uint32_t>(std::stoul(k))] = v.get<std::string>();
  } catch (const std::exception&) {
    throw trace_error(path + ": malformed entries or collections");
  }
  return p;
}

struct cursor {
  const std::vector<char>& bytes;
  const std::string& path;
  std::size_t at = 0;
  template <class T>
  T take(const char* what) {
    if (bytes.size() - at < sizeof(T))
      throw trace_error(path + ": cut short at byte " + std::to_string(at) + " (expected " + what +
                        "); the run may not have finished writing it");
    T v;
    std::memcpy(&v, bytes.data() + at, sizeof(T));
    at += sizeof(T);
    return v;
  }
};

void check_record(const record& r, const std::string& path, std::uint64_t n) {
  if (r.type < record_type::entry_begin || r.type > record_type::last)
    throw trace_error(path + ": record " + std::to_string(n) + " has unknown type " +
                      std::to_string(static_cast<int>(r.type)) + " (file corrupt)");
}

pe_trace read_pe_file(const std::string& path, const process_info& proc, std::int64_t& run_start) {
  std::vector<char> bytes = slurp(path);
  cursor c{bytes, path};
  const auto h = c.take<fmt::file_header>("the file header");
  if (std::memcmp(h.magic, fmt::file_magic, sizeof(h.magic)) != 0) throw trace_error(path + ": not a roam trace file");
  if (h.version != fmt::format_version)
    throw trace_error(path + ": trace format version " + std::to_string(h.version) + ", expected " +
                      std::to_string(fmt::format_version));
  if (h.byte_order != fmt::byte_order_mark)
    throw trace_error(path + ": written on a machine of the other byte order; read it there");
  if (h.record_size != sizeof(record)) throw trace_error(path + ": record size " + std::to_string(h.record_size));
  pe_trace t;
  t.pe = h.pe;
  t.node = h.node;
  std::vector<record> records;
  std::uint32_t chunks = 0;
  for (;;) {
    const std::size_t at = c.at;
    const auto magic = c.take<std::uint32_t>("a chunk or the end marker");
    c.at = at;
    if (magic == fmt::trailer_magic) {
      const auto tr = c.take<fmt::file_trailer>("the end marker");
      if (tr.records != records.size() || tr.chunks != chunks)
        throw trace_error(path + ": the end marker counts " + std::to_string(tr.records) + " records in " +
                          std::to_string(tr.chunks) + " chunks, the file holds " + std::to_string(records.size()) +
                          " in " + std::to_string(chunks) + " (file corrupt)");
      if (c.at != bytes.size()) throw trace_error(path + ": bytes after the end marker (file corrupt)");
      t.stalls = tr.stalls;
      break;
    }
    const auto ch = c.take<fmt::chunk_header>("a chunk header");
    const std::string where = path + ": chunk " + std::to_string(chunks) + " at byte " + std::to_string(at);
    if (ch.magic != fmt::chunk_magic) throw trace_error(where + ": bad chunk marker (file corrupt)");
    if (bytes.size() - c.at < ch.stored_bytes)
      throw trace_error(where + ": cut short (" + std::to_string(ch.stored_bytes) + " bytes announced, " +
                        std::to_string(bytes.size() - c.at) + " left)");
    const char* data = bytes.data() + c.at;
    if (fmt::checksum(data, ch.stored_bytes) != ch.checksum) throw trace_error(where + ": checksum mismatch (file corrupt)");
    c.at += ch.stored_bytes;
    const std::size_t first = records.size();
    records.resize(first + ch.records);
    const std::size_t want = std::size_t{ch.records} * sizeof(record);
    if (ch.codec == static_cast<std::uint32_t>(fmt::codec::raw)) {
      if (ch.stored_bytes != want) throw trace_error(where + ": size does not match its record count (file corrupt)");
      std::memcpy(records.data() + first, data, want);
    } else if (ch.codec == static_cast<std::uint32_t>(fmt::codec::zstd)) {
#if defined(ROAM_HAVE_ZSTD)
      const std::size_t got = ZSTD_decompress(records.data() + first, want, data, ch.stored_bytes);
      if (ZSTD_isError(got) || got != want) throw trace_error(where + ": zstd data does not decode (file corrupt)");
#else
      throw trace_error(where + ": compressed with zstd, and this roam-trace was built without libzstd");
#endif
    } else {
      throw trace_error(where + ": unknown codec " + std::to_string(ch.codec));
    }
    ++chunks;
  }
  t.events.reserve(records.size());
  for (std::uint64_t i = 0; i < records.size(); ++i) {
    const record& r = records[i];
    check_record(r, path, i);
    const double since = (static_cast<double>(r.ticks) - static_cast<double>(proc.origin_ticks)) / proc.ticks_per_ns;
    if (r.type == record_type::index_ext) {
      if (t.events.empty()) throw trace_error(path + ": record " + std::to_string(i) + ": index extension first");
      event& prev = t.events.back();
      prev.ext[0] = fmt::low_of(r.b), prev.ext[1] = fmt::high_of(r.b);
      prev.ext[2] = fmt::low_of(r.c), prev.ext[3] = fmt::high_of(r.c);
      continue;
    }
    event e;
    e.ns = proc.origin_ns + static_cast<std::int64_t>(since);
    e.r = r;
    t.events.push_back(e);
  }
  if (!t.events.empty()) run_start = std::min(run_start, t.events.front().ns);
  return t;
}

}  // namespace

std::string trace_run::entry_name(std::uint64_t id) const {
  if (id == 0) return "(task resumption)";
  auto it = entries.find(id);
  return it != entries.end() ? it->second : "entry " + std::to_string(id);
}

const std::string& trace_run::user_name(std::uint32_t node, std::uint32_t id) const {
  static const std::string unknown = "(unnamed)";
  if (node >= processes.size() || id >= processes[node].names.size()) return unknown;
  return processes[node].names[id];
}

std::string trace_run::object_name(const event& e) const {
  const record& r = e.r;
  auto coll = [&] {
    auto it = collections.find(r.a);
    return it != collections.end() ? it->second : "collection " + std::to_string(r.a);
  };
  switch (static_cast<roam::object_kind>(r.kind)) {
    case roam::object_kind::chare:
      return "chare " + std::to_string(r.c);
    case roam::object_kind::array_element: {
      std::string s = coll() + "[";
      const std::int32_t idx[6] = {fmt::low_of(r.c), fmt::high_of(r.c), e.ext[0], e.ext[1], e.ext[2], e.ext[3]};
      for (int k = 0; k < std::max<int>(1, r.dims) && k < 6; ++k) s += (k ? "," : "") + std::to_string(idx[k]);
      return s + "]";
    }
    case roam::object_kind::group_member:
      return coll() + " (group) on pe " + std::to_string(r.c);
    case roam::object_kind::nodegroup_member:
      return coll() + " (nodegroup)";
    default:
      return "";
  }
}

trace_run read_trace(const std::string& dir) {
  trace_run run;
  run.dir = dir;
  const std::string first = dir + "/process-0.json";
  std::ifstream probe(first);
  if (!probe) throw trace_error(dir + ": no process-0.json: not a trace directory, or the traced run did not finish");
  nlohmann::json j0 = read_json(first);
  run.nodes = field<std::uint32_t>(j0, "nodes", first);
  run.pes = field<std::uint32_t>(j0, "pes", first);
  run.program = field<std::string>(j0, "program", first);
  run.command_line = field<std::vector<std::string>>(j0, "command_line", first);
  run.transport = field<std::string>(j0, "transport", first);
  if (run.nodes == 0 || run.nodes > 65536 || run.pes == 0 || run.pes > (1u << 20))
    throw trace_error(first + ": implausible nodes/pes");
  std::int64_t start = INT64_MAX;
  run.pe.resize(run.pes);
  std::vector<bool> have(run.pes, false);
  for (std::uint32_t n = 0; n < run.nodes; ++n) {
    const std::string path = dir + "/process-" + std::to_string(n) + ".json";
    nlohmann::json j = n == 0 ? j0 : read_json(path);
    run.processes.push_back(read_process(j, path, run));
    if (run.processes.back().node != n) throw trace_error(path + ": says it is node " + std::to_string(run.processes.back().node));
    for (const auto& f : field<std::vector<std::string>>(j, "files", path)) {
      if (f.find('/') != std::string::npos) throw trace_error(path + ": file name '" + f + "' leaves the directory");
      pe_trace t = read_pe_file(dir + "/" + f, run.processes.back(), start);
      if (t.pe >= run.pes || have[t.pe]) throw trace_error(dir + "/" + f + ": pe " + std::to_string(t.pe) + " out of range or twice");
      have[t.pe] = true;
      run.pe[t.pe] = std::move(t);
    }
  }
  for (std::uint32_t p = 0; p < run.pes; ++p)
    if (!have[p]) throw trace_error(dir + ": no trace file for pe " + std::to_string(p));
  if (start == INT64_MAX) start = run.processes[0].origin_ns;
  run.start_unix_ns = start;
  for (auto& t : run.pe)
    for (auto& e : t.events) e.ns -= start;
  align_clocks(run);
  std::int64_t earliest = 0;  // an aligned node may now start earlier
  for (auto& t : run.pe)
    if (!t.events.empty()) earliest = std::min(earliest, t.events.front().ns);
  run.start_unix_ns += earliest;
  for (auto& t : run.pe)
    for (auto& e : t.events) {
      e.ns -= earliest;
      run.end_ns = std::max(run.end_ns, e.ns);
    }
  return run;
}

}  // namespace roam_trace
