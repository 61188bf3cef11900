// process-<node>.json (index_file.hpp), written with nlohmann::json.
#include "index_file.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

#include <roam/msg/detail/entry_ops.hpp>
#include <roam/obj/detail/objects.hpp>
#include <roam/sched/clock.hpp>

#include "names.hpp"

namespace roam::trace::detail {

std::string write_index(const roam::detail::runtime_state& rt, const trace_writer& w, const std::string& dir) {
  using nlohmann::json;
  const clock_pair origin = clock_origin();
  json j;
  j["format"] = "roam-trace";
  j["version"] = format_version;
  j["command_line"] = rt.command_line;
  j["program"] = rt.command_line.empty() ? std::string() : rt.command_line[0];
  j["transport"] = rt.transport_name.empty() ? "none" : rt.transport_name;
  j["node"] = rt.my_node;
  j["nodes"] = rt.num_nodes;
  j["pes"] = rt.num_pes;
  j["first_pe"] = rt.first_pe;
  j["ppn"] = rt.ppn;
  j["deterministic"] = rt.opts.deterministic;
  j["clock"] = {{"source", clock_is_tsc() ? "tsc" : "steady_ns"},
                {"ticks_per_second", clock_ticks_per_second()},
                {"origin_ticks", origin.ticks},
                {"origin_unix_ns", origin.unix_ns},
                {"offset_ns", clock_offset_ns()}};
  j["files"] = w.file_names();
  json entries = json::object();
  for (std::uint64_t id : w.seen().entries) {
    const roam::detail::entry_ops* e = roam::detail::find_entry(id);
    entries[std::to_string(id)] = e ? std::string(e->name) : "entry " + std::to_string(id);
  }
  j["entries"] = entries;
  json collections = json::object();
  for (std::uint32_t id : w.seen().collections) {
    const roam::detail::collection_desc* d = roam::detail::find_collection(id);
    collections[std::to_string(id)] = d && d->cls ? std::string(d->cls->name) : "collection " + std::to_string(id);
  }
  j["collections"] = collections;
  j["names"] = user_names();
  const std::string path = dir + "/process-" + std::to_string(rt.my_node) + ".json";
  std::ofstream out(path);
  out << j.dump(1) << "\n";
  out.close();
  if (!out) return "+trace: cannot write '" + path + "'";
  return {};
}

}  // namespace roam::trace::detail
