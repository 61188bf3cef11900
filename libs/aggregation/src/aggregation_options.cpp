// The aggregation library declares its +options itself
// (roam/sched/options.hpp): the scheduler parses them with its own and
// lists them under "message aggregation" in +help, without knowing the library.
#include <roam/aggregation/detail/command_line.hpp>

#include <string_view>

#include <roam/sched/options.hpp>

namespace roam::aggregation::detail {

namespace {

aggregation_defaults g_defaults;

[[maybe_unused]] const bool aggregation_options_registered = roam::register_runtime_options(
    "message aggregation (libs/aggregation)",
    {
        {"agg_buffer", "ROAM_AGG_BUFFER", "N",
         "items per buffer of aggregators whose program leaves it at 0 (default 1024): a full buffer goes out at once",
         [](std::string_view v) { return option_parse::count(v, 1, 1u << 24, g_defaults.items_per_buffer); }},
        {"agg_in_flight", "ROAM_AGG_IN_FLIGHT", "N",
         "buffers a PE may have sent to one peer unacknowledged before insert waits (default 8), where the program "
         "leaves it at 0",
         [](std::string_view v) { return option_parse::count(v, 1, 1u << 20, g_defaults.buffers_in_flight); }},
        {"agg_dims", "ROAM_AGG_DIMS", "D",
         "dimensions (1-3) of the virtual mesh of aggregators whose program gives neither dimensions nor a mesh "
         "(default: chosen from the number of PEs)",
         [](std::string_view v) { return option_parse::count(v, 1, 3, g_defaults.dims); }},
    },
    [] { g_defaults = {}; });

}  // namespace

const aggregation_defaults& command_line_defaults() noexcept { return g_defaults; }

}  // namespace roam::aggregation::detail
