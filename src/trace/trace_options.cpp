// The trace layer declares its own runtime options (roam/sched/options.hpp).
#include "trace_options.hpp"

#include <cstdint>
#include <string_view>

#include <roam/sched/options.hpp>

namespace roam::trace::detail {

namespace {

trace_settings g_settings;

[[maybe_unused]] const bool options_registered = roam::register_runtime_options(
    "tracing (src/trace)",
    {
        {"trace", "ROAM_TRACE", "[=DIR]",
         "record a trace of every entry method, message, idle period and user event into DIR (default roam-trace); "
         "read it with roam-trace (Perfetto, HTML report, summary)",
         [](std::string_view v) { return option_parse::optional_path(v, g_settings.trace, g_settings.trace_dir); }},
        {"tracebuf", "ROAM_TRACEBUF", "BYTES",
         "each PE's trace buffer, written out in quarters by a background thread; K, M, G suffixes (default 8M)",
         [](std::string_view v) { return option_parse::bytes(v, 4096, std::uint64_t{1} << 34, g_settings.trace_buf); }},
        {"tracezstd", "ROAM_TRACEZSTD", "", "compress the trace with zstd (when roam was built with libzstd)",
         [](std::string_view v) { return option_parse::flag(v, g_settings.trace_zstd); }},
        {"summary", "ROAM_SUMMARY", "[=FILE]",
         "at exit, print per entry method and per PE counts and times, and utilization over time; with =FILE also "
         "write them as JSON",
         [](std::string_view v) {
           std::string path;
           auto e = option_parse::optional_path(v, g_settings.summary, path);
           if (g_settings.summary) g_settings.summary_json = path;
           return e;
         }},
    },
    [] { g_settings = {}; });

}  // namespace

const trace_settings& settings() noexcept { return g_settings; }

}  // namespace roam::trace::detail
