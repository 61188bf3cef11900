#pragma once
// The checks a checkpoint's files pass on loading (format_checks.cpp), one
// per part of a file, for loaded_checkpoint (format_load.cpp) to run over
// mapped files and in-memory copies alike. Each throws checkpoint_error
// naming the path, the record when one is at fault, and the reason.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "format.hpp"
#include "format_layout.hpp"

namespace roam::detail::ckpt {

/// Names the object a record's meta describes, for the errors (may be null).
using describe_fn = std::string (*)(std::span<const std::byte> meta);

struct manifest_contents {
  file_identity id;
  bytes_view program_blob;
  std::vector<file_entry> files;
};

/// A whole manifest: header, this program's hash, length, CRC, then its body
/// (the program blob and the file table, with the data files' fixed names).
manifest_contents check_manifest(bytes_view file, const std::filesystem::path& path, std::uint64_t program_hash);

/// The header of data file `process` against what the manifest says of it.
void check_data_header(bytes_view file, const std::filesystem::path& path, const file_identity& manifest_id,
                       std::uint32_t process, const file_entry& entry);

/// Walks and checks the records (appended to `out`, as file `file_index`);
/// returns the CRC of the file up to the footer.
std::uint32_t check_records(bytes_view file, const std::filesystem::path& path, std::uint32_t count,
                            describe_fn describe, std::uint32_t file_index, std::vector<record_in>& out);

/// The footer against the file, the header's count, the running CRC of the
/// bytes before it (check_records) and the manifest's entry.
void check_footer(bytes_view file, const std::filesystem::path& path, std::uint32_t records, std::uint32_t running,
                  const file_entry& entry);

}  // namespace roam::detail::ckpt
