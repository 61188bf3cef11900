// The pdes library declares its +options itself (roam/sched/options.hpp):
// the scheduler parses them with its own and lists them under "parallel
// discrete-event simulation" in +help, without knowing the library.
#include <roam/pdes/detail/command_line.hpp>

#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include <roam/sched/options.hpp>

namespace roam::pdes::detail {

namespace {

/// Each option given, or nothing (the program's value stands).
struct pdes_overrides {
  std::optional<synch> mode;
  std::optional<std::uint32_t> batch;
  std::optional<std::uint32_t> gvt_interval;
  std::optional<double> target_efficiency;
  /// +pdes_optimism: "auto" (adaptive window), "none" (unbounded) or a fixed window.
  std::optional<bool> auto_optimism;
  std::optional<sim_time> max_optimism;
  bool check_gvt = false;
};

pdes_overrides g_overrides;

std::optional<double> parse_real(std::string_view text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string parse_mode(std::string_view v) {
  synch s{};
  if (!parse_synch(std::string(v), s))
    return "'" + std::string(v) + "' is not a scheduler (sequential, conservative, optimistic, optimistic-check)";
  g_overrides.mode = s;
  return {};
}

std::string parse_count_into(std::string_view v, std::uint32_t max, std::optional<std::uint32_t>& out) {
  std::uint32_t n = 0;
  std::string error = option_parse::count(v, 1, max, n);
  if (error.empty()) out = n;
  return error;
}

std::string parse_efficiency(std::string_view v) {
  const std::optional<double> f = parse_real(v);
  if (!f || !(*f > 0 && *f < 1)) return "'" + std::string(v) + "' is not an efficiency between 0 and 1 (exclusive)";
  g_overrides.target_efficiency = *f;
  return {};
}

std::string parse_optimism(std::string_view v) {
  if (v == "auto") {
    g_overrides.auto_optimism = true;
    g_overrides.max_optimism = infinite_time;
  } else if (v == "none") {
    g_overrides.auto_optimism = false;
    g_overrides.max_optimism = infinite_time;
  } else {
    const std::optional<double> t = parse_real(v);
    if (!t || !(*t > 0)) return "'" + std::string(v) + "' is not auto, none or a window above 0";
    g_overrides.auto_optimism = false;
    g_overrides.max_optimism = *t;
  }
  return {};
}

[[maybe_unused]] const bool pdes_options_registered = roam::register_runtime_options(
    "parallel discrete-event simulation (libs/pdes)",
    {
        {"pdes_synch", "ROAM_PDES_SYNCH", "MODE",
         "run every simulation under this scheduler instead of the program's (sequential, conservative, optimistic, "
         "optimistic-check)",
         parse_mode},
        {"pdes_batch", "ROAM_PDES_BATCH", "N", "events per scheduling slice (the most, with the adaptive slice)",
         [](std::string_view v) { return parse_count_into(v, 1u << 24, g_overrides.batch); }},
        {"pdes_gvt_interval", "ROAM_PDES_GVT_INTERVAL", "N", "PE 0's batches between GVT rounds",
         [](std::string_view v) { return parse_count_into(v, 1u << 24, g_overrides.gvt_interval); }},
        {"pdes_optimism", "ROAM_PDES_OPTIMISM", "auto|none|T",
         "how far beyond GVT optimistic PEs run: a window that follows the rollbacks (auto), unbounded (none) or "
         "fixed at T",
         parse_optimism},
        {"pdes_efficiency", "ROAM_PDES_EFFICIENCY", "F",
         "the share of processed events the automatic window aims to commit (0 < F < 1)", parse_efficiency},
        {"pdes_check_gvt", "ROAM_PDES_CHECK_GVT", "",
         "fail if an event arrives below GVT or GVT goes back (a check of the engine, not of the model)",
         [](std::string_view v) { return option_parse::flag(v, g_overrides.check_gvt); }},
    },
    [] { g_overrides = {}; });

}  // namespace

engine_options apply_command_line(engine_options o) {
  const pdes_overrides& c = g_overrides;
  if (c.mode) o.mode = *c.mode;
  if (c.batch) o.batch = *c.batch;
  if (c.gvt_interval) o.gvt_interval = *c.gvt_interval;
  if (c.target_efficiency) o.target_efficiency = *c.target_efficiency;
  if (c.auto_optimism) o.auto_optimism = *c.auto_optimism;
  if (c.max_optimism) o.max_optimism = *c.max_optimism;
  if (c.check_gvt) o.check_gvt = true;
  return o;
}

}  // namespace roam::pdes::detail
