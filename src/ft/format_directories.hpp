#pragma once
// The tree of checkpoint directories under a root (format.hpp draws it):
// listing it and the paths around it, shared by the lookups
// (format_directories.cpp: last_number, resolve_checkpoint) and by
// publication and pruning (format_publish.cpp).
#include <cstdint>
#include <filesystem>
#include <utility>
#include <vector>

namespace roam::detail::ckpt {

struct checkpoint_listing {
  std::vector<std::pair<std::uint64_t, std::filesystem::path>> complete;  // newest first
  std::vector<std::pair<std::uint64_t, std::filesystem::path>> partial;
};

/// The checkpoint directories in `root` ("ckpt-<digits>" and
/// "ckpt-<digits>.partial"; anything else is not ours). Throws
/// checkpoint_error when `root` cannot be listed.
checkpoint_listing list_checkpoints(const std::filesystem::path& root);

/// What `path` is: follows symlinks; not_found is not an error.
std::filesystem::file_status status_of(const std::filesystem::path& path);

std::filesystem::path without_trailing_separator(const std::filesystem::path& path);
/// The directory holding `path` ("." for a bare name).
std::filesystem::path parent_of(const std::filesystem::path& path);

}  // namespace roam::detail::ckpt
