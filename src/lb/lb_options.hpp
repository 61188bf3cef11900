#pragma once
// The load balancing layer's runtime options (+balancer, +LB...), declared
// by the layer itself (lb_options.cpp) and read when a run starts.
#include <cstdint>
#include <string>

namespace roam::lb::detail {

struct lb_settings {
  std::string balancer;              ///< +balancer NAME[,NAME...]: strategies of the steps, in order
  bool lb_off = false;               ///< +LBOff: no balancing (at_sync still resumes)
  double lb_period = 0;              ///< +LBPeriod SECONDS: balance every object at any time (0: never)
  bool meta_lb = false;              ///< +MetaLB: the runtime decides when and with which strategy
  bool lb_debug = false;             ///< +LBDebug: print each step's loads, moves and strategy time
  std::string lb_dump;               ///< +LBDump FILE: append each step's load database to FILE
  bool lb_cpu_time = false;          ///< +LBCpuTime: measure objects' CPU time instead of wall time
  std::uint32_t lb_group_pes = 0;    ///< +LBGroupPEs G: PEs per group of Hierarchical steps (0: a process)
  std::uint32_t lb_group_fanout = 0; ///< +LBGroupFanout F: groups per super-group beyond F groups (0: 64)
};

/// This process's settings, as the last parse left them.
const lb_settings& settings() noexcept;

}  // namespace roam::lb::detail
