// The checkpoint layer declares its own runtime options
// (roam/sched/options.hpp).
#include "ft_options.hpp"

#include <string_view>

#include <roam/sched/options.hpp>

namespace roam::detail::ckpt {

namespace {

ft_settings g_ft_settings;

[[maybe_unused]] const bool ft_options_registered = roam::register_runtime_options(
    "checkpoints and fault tolerance (src/ft)",
    {
        {"ftcopies", "ROAM_FTCOPIES", "K",
         "in-memory checkpoints: K other processes keep a copy of each process's data (default 1; other hosts "
         "first), so that any K processes may fail at once; each copy costs one more file's memory and transfer",
         [](std::string_view v) { return option_parse::count(v, 1, 1u << 16, g_ft_settings.copies); }},
    },
    [] { g_ft_settings = {}; });

}  // namespace

const ft_settings& ft_options() noexcept { return g_ft_settings; }

}  // namespace roam::detail::ckpt
