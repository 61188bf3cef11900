#pragma once
/// Runtime options that layers and libraries declare for themselves: a
/// layer registers its `+options` (name, environment variable, value, help
/// line, parser into its own settings) once, at static initialisation, and
/// `roam::run` parses them with the scheduler's own; `+help` lists them by
/// layer. The scheduler never names another layer's option.
///
/// ```cpp
/// namespace { my_settings g_settings; }
/// [[maybe_unused]] const bool registered = roam::register_runtime_options(
///     "my library", {{"mybuffer", "ROAM_MYBUFFER", "BYTES", "buffer of each PE (default 64K)",
///                     [](std::string_view v) { return roam::option_parse::bytes(v, 1024, 1u << 30, g_settings.buffer); }}},
///     [] { g_settings = {}; });
/// ```
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace roam {

struct runtime_option {
  std::string_view name;        ///< without the '+'
  std::string_view env;         ///< its ROAM_* environment variable (empty: none)
  std::string_view value_name;  ///< empty: a flag; "X": a value (+nameX, +name=X, +name X); "[=X]": optional, +name=X
  std::string_view help;        ///< one line for +help
  /// Applies a value ("" for a flag given without one); returns what was
  /// wrong with it, or an empty string. The error names the value, not the
  /// option: the parser prefixes "roam: runtime option '+name' ".
  std::function<std::string(std::string_view)> apply;
};

/// Registers `layer`'s options; `reset` (if any) restores their defaults and
/// runs before every parse (a process may run roam more than once). Names
/// are unique across every layer: a second registration of a name throws
/// std::logic_error naming both layers. Returns true (for static
/// initialisers).
bool register_runtime_options(std::string_view layer, std::vector<runtime_option> options,
                              std::function<void()> reset = {});

/// Parsers for option values, shared by every layer (each returns an error
/// text or an empty string, and writes `out` only on success).
namespace option_parse {
/// An integer in [min, max].
std::string count(std::string_view text, std::uint64_t min, std::uint64_t max, std::uint32_t& out);
/// "", "1", "yes", "true", "on" or "0", "no", "false", "off".
std::string flag(std::string_view text, bool& out);
/// A byte count with an optional K, M or G suffix, within [min, max].
std::string bytes(std::string_view text, std::uint64_t min, std::uint64_t max, std::size_t& out);
/// An optional path: empty or a yes-word turns the feature on (path kept),
/// a no-word off, anything else is the path (and on).
std::string optional_path(std::string_view text, bool& on, std::string& path);
/// A non-empty word (a name, a file).
std::string word(std::string_view text, std::string_view what, std::string& out);
/// A number of seconds in (0, max].
std::string seconds(std::string_view text, double max, double& out);
}  // namespace option_parse

}  // namespace roam
