#pragma once
// One-line diagnostics on stderr, written with a single write() so lines from
// several threads (and, through roamrun, several processes) do not interleave.
#include <cstdint>
#include <string_view>

namespace roam::detail::tcp {

/// Writes "roam tcp [node N]: <text>\n" to stderr.
void log_line(std::uint32_t node, std::string_view text) noexcept;

}  // namespace roam::detail::tcp
