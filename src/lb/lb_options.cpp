// The load balancing layer declares its own runtime options
// (roam/sched/options.hpp).
#include "lb_options.hpp"

#include <string_view>

#include <roam/sched/options.hpp>

namespace roam::lb::detail {

namespace {

lb_settings g_settings;

[[maybe_unused]] const bool options_registered = roam::register_runtime_options(
    "load balancing (src/lb)",
    {
        {"balancer", "ROAM_BALANCER", "NAME[,NAME...]",
         "load balancing strategies: the first runs at the first step, each next one at the next steps, the last "
         "from then on (Greedy, Refine, GreedyRefine, Metis, Hierarchical, Rotate, Random, or a registered one)",
         [](std::string_view v) { return option_parse::word(v, "a strategy name", g_settings.balancer); }},
        {"LBOff", "ROAM_LBOFF", "", "no load balancing: at_sync() resumes at once, +LBPeriod does nothing",
         [](std::string_view v) { return option_parse::flag(v, g_settings.lb_off); }},
        {"LBPeriod", "ROAM_LBPERIOD", "SECONDS",
         "balance every migratable object (arrays and chares that can move at any time) every SECONDS",
         [](std::string_view v) { return option_parse::seconds(v, 1e6, g_settings.lb_period); }},
        {"MetaLB", "ROAM_METALB", "",
         "the runtime decides when to balance at sync points and with which strategy, from the load trend and the "
         "cost of balancing",
         [](std::string_view v) { return option_parse::flag(v, g_settings.meta_lb); }},
        {"LBDebug", "ROAM_LBDEBUG", "", "print each balancing step: max/avg load before and after, objects moved, time",
         [](std::string_view v) { return option_parse::flag(v, g_settings.lb_debug); }},
        {"LBDump", "ROAM_LBDUMP", "FILE", "append the load database of each balancing step to FILE (roam-lb replays it)",
         [](std::string_view v) { return option_parse::word(v, "a file name", g_settings.lb_dump); }},
        {"LBGroupFanout", "ROAM_LBGROUPFANOUT", "F",
         "with more than F groups (default 64), Hierarchical steps add a level: groups of F groups, each with its "
         "own leader, between the groups and PE 0",
         [](std::string_view v) { return option_parse::count(v, 2, 1u << 20, g_settings.lb_group_fanout); }},
        {"LBCpuTime", "ROAM_LBCPUTIME", "",
         "load balancing measures each object's CPU time (two system calls per entry) instead of its wall time, so "
         "that time the PE's thread lost to other processes is not counted as the object's",
         [](std::string_view v) { return option_parse::flag(v, g_settings.lb_cpu_time); }},
        {"LBGroupPEs", "ROAM_LBGROUPPES", "G",
         "PEs per group when the Hierarchical strategy balances (default: the PEs of one process); with more than "
         "one group the step runs distributed: no PE gathers every object's load",
         [](std::string_view v) { return option_parse::count(v, 1, 1u << 20, g_settings.lb_group_pes); }},
    },
    [] { g_settings = {}; });

}  // namespace

const lb_settings& settings() noexcept { return g_settings; }

}  // namespace roam::lb::detail
