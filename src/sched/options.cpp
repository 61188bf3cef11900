#include "options.hpp"

#include <roam/machine/build_info.hpp>
#include <roam/sched/options.hpp>

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace roam::detail {

namespace {

struct option_spec {
  std::string_view name;  // without the '+'
  std::string_view env;
  std::string_view value_name;  // empty: a flag; "[=X]": an optional value, given as +name=X
  std::string_view help;
  std::function<std::string(runtime_options&, std::string_view)> apply;  // returns an error
};

std::string parse_uint(std::string_view text, std::uint64_t max, std::uint64_t& out) {
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || v > max)
    return "expects an integer in [0, " + std::to_string(max) + "], got '" + std::string(text) + "'";
  out = v;
  return {};
}

// An integer in [min, max], for options that count something.
std::string parse_count(std::string_view text, std::uint64_t min, std::uint64_t max, std::uint32_t& out) {
  std::uint64_t n = 0;
  auto e = parse_uint(text, max, n);
  if (e.empty() && n < min) e = "expects at least " + std::to_string(min);
  if (e.empty()) out = static_cast<std::uint32_t>(n);
  return e;
}

std::string parse_flag(std::string_view text, bool& out) {
  if (text.empty() || text == "1" || text == "yes" || text == "true" || text == "on") out = true;
  else if (text == "0" || text == "no" || text == "false" || text == "off") out = false;
  else return "expects 0 or 1, got '" + std::string(text) + "'";
  return {};
}

// A duration in whole microseconds, up to 10 s.
std::string parse_microseconds(std::string_view text, std::chrono::microseconds& out) {
  std::uint64_t n = 0;
  auto e = parse_uint(text, 10'000'000, n);
  out = std::chrono::microseconds(n);
  return e;
}

// A byte count with an optional K, M or G suffix, within [min, max].
std::string parse_bytes(std::string_view v, std::uint64_t min, std::uint64_t max, std::size_t& out) {
  std::uint64_t scale = 1;
  if (!v.empty() && (v.back() == 'K' || v.back() == 'k')) scale = 1024;
  if (!v.empty() && (v.back() == 'M' || v.back() == 'm')) scale = 1024 * 1024;
  if (!v.empty() && (v.back() == 'G' || v.back() == 'g')) scale = 1024 * 1024 * 1024;
  if (scale != 1) v.remove_suffix(1);
  std::uint64_t n = 0;
  auto e = parse_uint(v, max / scale, n);
  if (e.empty() && n * scale < min)
    e = "expects at least " + (min % 1024 == 0 ? std::to_string(min / 1024) + "K (" + std::to_string(min) + " bytes)"
                                                : std::to_string(min) + " bytes");
  out = static_cast<std::size_t>(n * scale);
  return e;
}

// An optional value that is a path: empty or a yes-word turns the feature on
// with its default, a no-word turns it off, anything else is the path.
std::string parse_optional_path(std::string_view v, bool& on, std::string& path) {
  if (v.empty() || v == "1" || v == "yes" || v == "true" || v == "on") {
    on = true;
  } else if (v == "0" || v == "no" || v == "false" || v == "off") {
    on = false;
  } else {
    on = true;
    path = std::string(v);
  }
  return {};
}

std::string parse_word(std::string_view v, std::string_view what, std::string& out) {
  if (v.empty()) return "expects " + std::string(what);
  out = std::string(v);
  return {};
}

std::string parse_seconds(std::string_view v, double max, double& out) {
  double d = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
  if (v.empty() || ec != std::errc{} || end != v.data() + v.size() || !(d > 0) || d > max)
    return "expects seconds in (0, " + std::to_string(static_cast<long long>(max)) + "], got '" + std::string(v) + "'";
  out = d;
  return {};
}

std::string parse_pe_count(std::string_view text, std::uint32_t& out) {
  std::uint64_t n = 0;
  auto e = parse_uint(text, 4096, n);
  if (e.empty() && n == 0) e = "expects at least 1 PE";
  out = static_cast<std::uint32_t>(n);
  return e;
}

// What other layers and libraries registered (register_runtime_options).
struct option_group {
  std::string layer;
  std::vector<roam::runtime_option> options;
  std::function<void()> reset;
};
std::vector<option_group>& groups() {
  static std::vector<option_group> g;
  return g;
}

// One option to match, whoever declared it.
struct any_option {
  std::string_view name, env, value_name;
  std::function<std::string(runtime_options&, std::string_view)> apply;
};

const std::vector<option_spec>& specs();

std::vector<any_option> all_options() {
  std::vector<any_option> all;
  for (const auto& s : specs()) all.push_back({s.name, s.env, s.value_name, s.apply});
  for (const auto& g : groups())
    for (const auto& o : g.options)
      all.push_back({o.name, o.env, o.value_name, [&o](runtime_options&, std::string_view v) { return o.apply(v); }});
  return all;
}

void append_help_line(std::string& out, std::string_view name, std::string_view value_name, std::string_view help,
                      std::string_view env) {
  std::string left = "  +" + std::string(name);
  if (value_name.starts_with("[")) left += std::string(value_name);
  else if (!value_name.empty()) {
    // Appended piecewise: GCC 12 warns (-Wstringop-overflow, a false
    // positive) on `"literal" + std::string` at -O2.
    left += ' ';
    left += value_name;
  }
  left.resize(std::max<std::size_t>(left.size() + 1, 22), ' ');
  out += left + std::string(help);
  if (!env.empty()) out += " [" + std::string(env) + "]";
  out += "\n";
}

const std::vector<option_spec>& specs() {
  static const std::vector<option_spec> s = {
      {"p", "ROAM_P", "N", "number of PEs (worker threads); default: one per available core",
       [](runtime_options& o, std::string_view v) { return parse_pe_count(v, o.pes); }},
      {"ppn", "ROAM_PPN", "K",
       "PEs per process when started by roamrun or mpirun (default 1; K > 1 adds a communication thread)",
       [](runtime_options& o, std::string_view v) { return parse_pe_count(v, o.ppn); }},
      {"commthread", "ROAM_COMMTHREAD", "",
       "use a communication thread even with one PE per process (default only when +ppn > 1)",
       [](runtime_options& o, std::string_view v) { return parse_flag(v, o.commthread); }},
      {"setcpuaffinity", "ROAM_SETCPUAFFINITY", "", "pin each PE to its own core (the k-th available for the k-th PE of its host)",
       [](runtime_options& o, std::string_view v) { return parse_flag(v, o.set_cpu_affinity); }},
      {"busywait", "ROAM_BUSYWAIT", "", "idle PEs spin instead of sleeping (lowest latency, burns cores)",
       [](runtime_options& o, std::string_view v) { return parse_flag(v, o.busywait); }},
      {"idlespin", "ROAM_IDLESPIN", "US",
       "microseconds an idle PE spins at least before it sleeps (default 50); it spins longer while work keeps "
       "coming back within +idlespinmax",
       [](runtime_options& o, std::string_view v) { return parse_microseconds(v, o.idle_spin); }},
      {"idlespinmax", "ROAM_IDLESPINMAX", "US",
       "longest idle spin the PE may learn from short gaps between messages (default 500; at most +idlespin: fixed "
       "spin)",
       [](runtime_options& o, std::string_view v) { return parse_microseconds(v, o.idle_spin_max); }},
      {"idlestats", "ROAM_IDLESTATS", "",
       "at exit, each PE prints how often it idled, slept and was woken, and the wake-up latency",
       [](runtime_options& o, std::string_view v) { return parse_flag(v, o.idle_stats); }},
      {"bfactor", "ROAM_BFACTOR", "K", "branching factor of the spanning trees of collectives (default 4)",
       [](runtime_options& o, std::string_view v) { return parse_count(v, 2, 64, o.bfactor); }},
      {"ulstack", "ROAM_ULSTACK", "BYTES",
       "stack size of each user-level thread (threaded entry methods); K, M suffixes allowed (default 256K)",
       [](runtime_options& o, std::string_view v) {
         return parse_bytes(v, 16 * 1024, std::uint64_t{1} << 30, o.ul_stack);
       }},
      {"serialize", "ROAM_SERIALIZE", "",
       "pack every entry-method message with pup, as if it crossed processes (tests the wire path)",
       [](runtime_options& o, std::string_view v) { return parse_flag(v, o.serialize); }},
      {"taskreport", "ROAM_TASKREPORT", "",
       "at exit, each PE lists its suspended tasks: object, mailbox, awaited and kept reference numbers",
       [](runtime_options& o, std::string_view v) { return parse_flag(v, o.task_report); }},
      {"deterministic", "ROAM_DETERMINISTIC", "SEED",
       "test mode: run every PE of this one process on one thread, choosing which PE runs its next message from "
       "SEED, with virtual time for timers; a run replays exactly from its seed (docs/design/deterministic.md)",
       [](runtime_options& o, std::string_view v) {
         std::uint64_t n = 0;
         auto e = parse_uint(v, ~std::uint64_t{0}, n);
         o.deterministic = e.empty();
         o.seed = n;
         return e;
       }},
      {"restart", "ROAM_RESTART", "DIR",
       "start from the checkpoint in DIR (a checkpoint directory, or the directory given to roam::checkpoint: its "
       "newest complete one) instead of running main, on any number of PEs and processes",
       [](runtime_options& o, std::string_view v) { return parse_word(v, "a checkpoint directory", o.restart_dir); }},
      {"ftheartbeat", "ROAM_FTHEARTBEAT", "MS",
       "processes of a job send each other a heartbeat every MS milliseconds when otherwise silent (default: the "
       "transport's, 1000 over TCP and MPI)",
       [](runtime_options& o, std::string_view v) { return parse_count(v, 1, 3600000, o.ft_heartbeat_ms); }},
      {"fttimeout", "ROAM_FTTIMEOUT", "MS",
       "a process of the job silent for MS milliseconds is declared failed (default: the transport's, 60000 over "
       "TCP and MPI; must exceed +ftheartbeat)",
       [](runtime_options& o, std::string_view v) { return parse_count(v, 2, 36000000, o.ft_timeout_ms); }},
      {"version", "", "", "print roam's version and build options and exit",
       [](runtime_options& o, std::string_view) {
         o.version = true;
         return std::string{};
       }},
      {"help", "", "", "print these options and exit",
       [](runtime_options& o, std::string_view) {
         o.help = true;
         return std::string{};
       }},
  };
  return s;
}

}  // namespace

std::string options_help() {
  std::string out = roam::build_description() + "\n";
  out += "roam runtime options (each also settable through its environment variable):\n";
  for (const auto& s : specs()) append_help_line(out, s.name, s.value_name, s.help, s.env);
  for (const auto& g : groups()) {
    out += g.layer + ":\n";
    for (const auto& o : g.options) append_help_line(out, o.name, o.value_name, o.help, o.env);
  }
  return out;
}

parse_result parse_runtime_options(int& argc, char** argv) {
  parse_result r;
  for (const auto& g : groups())
    if (g.reset) g.reset();
  const std::vector<any_option> options = all_options();
  for (const auto& s : options) {
    if (s.env.empty()) continue;
    if (const char* v = std::getenv(std::string(s.env).c_str())) {
      if (auto e = s.apply(r.options, v); !e.empty()) {
        r.error = "roam: environment variable " + std::string(s.env) + " " + e;
        return r;
      }
    }
  }
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.size() < 2 || arg[0] != '+' || arg[1] == '+') {
      argv[out++] = argv[i];
      continue;
    }
    std::string_view body = arg.substr(1);
    const any_option* match = nullptr;
    std::string_view value;
    bool has_inline_value = false;
    for (const auto& s : options) {
      if (body == s.name) {
        match = &s;
        break;
      }
      const bool optional_value = s.value_name.starts_with("[");
      if (optional_value) {
        if (body.size() > s.name.size() + 1 && body.substr(0, s.name.size()) == s.name && body[s.name.size()] == '=') {
          match = &s;
          value = body.substr(s.name.size() + 1);
          has_inline_value = true;
          break;
        }
        continue;
      }
      // `+p4` and `+p=4` for options with values.
      if (!s.value_name.empty() && body.size() > s.name.size() && body.substr(0, s.name.size()) == s.name) {
        std::string_view rest = body.substr(s.name.size());
        if (rest[0] == '=') rest.remove_prefix(1);
        if (!rest.empty() && (rest[0] >= '0' && rest[0] <= '9')) {
          match = &s;
          value = rest;
          has_inline_value = true;
          break;
        }
      }
    }
    if (!match) {
      r.error = "roam: unknown runtime option '" + std::string(arg) + "' (+help lists them)";
      return r;
    }
    if (!match->value_name.empty() && !match->value_name.starts_with("[") && !has_inline_value) {
      if (i + 1 >= argc) {
        r.error = "roam: runtime option '+" + std::string(match->name) + "' needs a value " + std::string(match->value_name);
        return r;
      }
      value = argv[++i];
    }
    if (auto e = match->apply(r.options, value); !e.empty()) {
      r.error = "roam: runtime option '+" + std::string(match->name) + "' " + e;
      return r;
    }
  }
  argc = out;
  argv[argc] = nullptr;
  return r;
}

}  // namespace roam::detail

namespace roam {

bool register_runtime_options(std::string_view layer, std::vector<runtime_option> options, std::function<void()> reset) {
  auto taken_by = [](std::string_view name) -> std::string {
    for (const auto& s : detail::specs())
      if (s.name == name) return "the scheduler";
    for (const auto& g : detail::groups())
      for (const auto& o : g.options)
        if (o.name == name) return g.layer;
    return {};
  };
  for (const auto& o : options)
    if (std::string owner = taken_by(o.name); !owner.empty())
      throw std::logic_error("roam: runtime option '+" + std::string(o.name) + "' of " + std::string(layer) +
                             " is already declared by " + owner);
  detail::groups().push_back({std::string(layer), std::move(options), std::move(reset)});
  return true;
}

namespace option_parse {
std::string count(std::string_view text, std::uint64_t min, std::uint64_t max, std::uint32_t& out) {
  return detail::parse_count(text, min, max, out);
}
std::string flag(std::string_view text, bool& out) { return detail::parse_flag(text, out); }
std::string bytes(std::string_view text, std::uint64_t min, std::uint64_t max, std::size_t& out) {
  return detail::parse_bytes(text, min, max, out);
}
std::string optional_path(std::string_view text, bool& on, std::string& path) {
  return detail::parse_optional_path(text, on, path);
}
std::string word(std::string_view text, std::string_view what, std::string& out) {
  return detail::parse_word(text, what, out);
}
std::string seconds(std::string_view text, double max, double& out) { return detail::parse_seconds(text, max, out); }
}  // namespace option_parse

}  // namespace roam
