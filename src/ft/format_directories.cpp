// Naming and finding checkpoints: the directory and file names, the listing
// of a root, the highest number in it (where the next checkpoint goes) and
// the directory a +restart means (the newest complete one), with an error
// that says what was found instead when there is none.
#include "format_directories.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <optional>
#include <string_view>
#include <system_error>

#include "format_errors.hpp"
#include "format_layout.hpp"

namespace roam::detail::ckpt {

namespace fs = std::filesystem;

namespace {

struct dir_name {
  std::uint64_t number;
  bool partial;
};

/// "ckpt-<digits>" or "ckpt-<digits>.partial"; anything else is not ours.
std::optional<dir_name> parse_dir_name(std::string_view name) {
  if (!name.starts_with(dir_prefix)) return std::nullopt;
  name.remove_prefix(dir_prefix.size());
  const bool partial = name.ends_with(partial_suffix);
  if (partial) name.remove_suffix(partial_suffix.size());
  std::uint64_t number = 0;
  const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), number);
  if (name.empty() || error != std::errc{} || end != name.data() + name.size()) return std::nullopt;
  return dir_name{number, partial};
}

}  // namespace

checkpoint_listing list_checkpoints(const fs::path& root) {
  checkpoint_listing listing;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const auto name = parse_dir_name(it->path().filename().string());
    std::error_code type_ec;
    if (!name || !it->is_directory(type_ec)) continue;
    (name->partial ? listing.partial : listing.complete).emplace_back(name->number, it->path());
  }
  if (ec) fail_at(root, "cannot list the directory: " + ec.message());
  std::sort(listing.complete.begin(), listing.complete.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  return listing;
}

fs::file_status status_of(const fs::path& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec && status.type() != fs::file_type::not_found) fail_at(path, "cannot stat: " + ec.message());
  return status;
}

fs::path without_trailing_separator(const fs::path& path) { return path.has_filename() ? path : path.parent_path(); }

fs::path parent_of(const fs::path& path) {
  const fs::path parent = without_trailing_separator(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

std::string checkpoint_dir_name(std::uint64_t number) {
  char name[32];
  std::snprintf(name, sizeof name, "ckpt-%08llu", static_cast<unsigned long long>(number));
  return name;
}

std::string data_file_name(std::uint32_t process) {
  char name[32];
  std::snprintf(name, sizeof name, "process-%04u.dat", static_cast<unsigned>(process));
  return name;
}

std::uint64_t last_number(const fs::path& root) {
  const fs::file_status status = status_of(root);
  if (!fs::exists(status)) return 0;
  if (!fs::is_directory(status)) fail_at(root, "not a directory, so it cannot hold checkpoints");
  const checkpoint_listing listing = list_checkpoints(root);
  std::uint64_t last = 0;
  for (const auto& complete : listing.complete) last = std::max(last, complete.first);
  for (const auto& partial : listing.partial) last = std::max(last, partial.first);
  return last;
}

fs::path resolve_checkpoint(const fs::path& path) {
  const fs::file_status status = status_of(path);
  if (!fs::exists(status)) fail_at(path, "does not exist");
  if (!fs::is_directory(status))
    fail_at(path, "is not a directory (expected a checkpoint directory or the directory holding them)");
  std::error_code ec;
  if (fs::exists(path / manifest_name, ec)) return path;

  const checkpoint_listing listing = list_checkpoints(path);
  if (!listing.complete.empty()) return listing.complete.front().second;
  const auto own_name = parse_dir_name(without_trailing_separator(path).filename().string());
  if (own_name && own_name->partial)
    fail_at(path, "is a partial (incomplete) checkpoint: it has no manifest, its writing never finished");
  if (!listing.partial.empty()) {
    std::string names;
    for (const auto& partial : listing.partial)
      names += (names.empty() ? "" : ", ") + partial.second.filename().string();
    fail_at(path, "contains only partial (incomplete) checkpoints: " + names);
  }
  fail_at(path, "contains no checkpoint (no manifest, no " + std::string(dir_prefix) + "NNNNNNNN directory)");
}

}  // namespace roam::detail::ckpt
