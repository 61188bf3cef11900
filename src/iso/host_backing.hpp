#pragma once
// The host's shared file behind the isomalloc range (host_share.cpp), as the
// range (region.cpp) uses it when a run starts and ends.
#include <cstdint>
#include <string>

#include <roam/iso/detail/region.hpp>

namespace roam::detail::iso {

/// The open file to map `layout`'s range from, when this run shares it
/// (asked for, and other processes of the job on this host), else -1. A
/// file that cannot be made is reported once on stderr and gives -1 (the
/// run goes on with private memory).
int open_host_backing(const region_layout& layout, std::uint32_t my_node);
/// The range is mapped from `fd`: maps the control area after it, counts
/// this process in, and removes the file's name once every process of the
/// host has it open (nothing is left behind when the run ends, or dies).
/// Closes `fd`.
void host_backing_mapped(int fd, const region_layout& layout);
/// The run ends: the control area goes (the range is unmapped by region.cpp).
void close_host_backing() noexcept;
/// Whether this run's range is backed by the host's file.
bool host_shared() noexcept;

}  // namespace roam::detail::iso
