// Reading a checkpoint back (loaded_checkpoint): a directory's files mapped
// read-only, or an in-memory checkpoint's regions held, and every check of
// format_checks.cpp run over them before anything is handed out, so that a
// restart sees a whole checkpoint or an error, never part of one.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "format_checks.hpp"
#include "format_errors.hpp"

namespace roam::detail::ckpt {

namespace fs = std::filesystem;

/// A read-only private mapping of one whole file; empty files map to nothing.
struct loaded_checkpoint::mapping {
  const std::byte* data = nullptr;
  std::size_t size = 0;

  mapping(const fs::path& path, const std::string& reason_if_missing) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) fail_at(path, reason_if_missing);
      fail_errno(path, "cannot open");
    }
    struct closer {
      int fd;
      ~closer() { ::close(fd); }  // read-only: a failing close loses nothing
    } close_at_exit{fd};
    struct stat info;
    if (::fstat(fd, &info) != 0) fail_errno(path, "cannot stat");
    if (!S_ISREG(info.st_mode)) fail_at(path, "not a regular file");
    if (info.st_size == 0) return;  // mmap rejects a zero length
    const auto length = static_cast<std::size_t>(info.st_size);
    void* address = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE, fd, 0);
    if (address == MAP_FAILED) fail_errno(path, "cannot map");
    data = static_cast<const std::byte*>(address);
    size = length;
  }

  ~mapping() {
    if (data != nullptr) ::munmap(const_cast<std::byte*>(data), size);
  }

  mapping(const mapping&) = delete;
  mapping& operator=(const mapping&) = delete;

  bytes_view bytes() const noexcept { return {data, size}; }
};

loaded_checkpoint::loaded_checkpoint(const fs::path& dir, std::uint64_t program_hash,
                                     std::string (*describe)(std::span<const std::byte> meta))
    : dir_(dir) {
  const fs::path manifest_path = dir_ / manifest_name;
  const mapping& manifest =
      *maps_.emplace_back(std::make_unique<mapping>(manifest_path, "missing: not a complete checkpoint"));
  manifest_contents contents = check_manifest(manifest.bytes(), manifest_path, program_hash);
  id_ = contents.id;
  blob_ = contents.program_blob;
  files_ = std::move(contents.files);
  bytes_ = manifest.size;

  std::size_t record_count = 0;  // once, not per file: repeated exact reserves would copy quadratically
  for (const file_entry& entry : files_)
    record_count += std::min<std::uint64_t>(entry.records, entry.size / record_at::end);
  records_.reserve(record_count);
  for (std::uint32_t i = 0; i < files_.size(); ++i) {
    const file_entry& entry = files_[i];
    const fs::path path = dir_ / entry.name;
    const mapping& file =
        *maps_.emplace_back(std::make_unique<mapping>(path, "missing: " + entry.name + " listed in the manifest"));
    check_data_header(file.bytes(), path, id_, i, entry);
    const std::uint32_t running = check_records(file.bytes(), path, entry.records, describe, i, records_);
    check_footer(file.bytes(), path, entry.records, running, entry);
    bytes_ += file.size;
  }
}

loaded_checkpoint::loaded_checkpoint(const std::string& label, std::shared_ptr<const byte_region> manifest,
                                     std::vector<std::shared_ptr<const byte_region>> files, std::uint64_t program_hash,
                                     std::string (*describe)(std::span<const std::byte> meta))
    : dir_(label) {
  const fs::path manifest_path = dir_ / manifest_name;
  if (!manifest) fail_at(manifest_path, "missing: not a complete checkpoint");
  manifest_contents contents = check_manifest(manifest->bytes(), manifest_path, program_hash);
  id_ = contents.id;
  blob_ = contents.program_blob;
  files_ = std::move(contents.files);
  bytes_ = manifest->bytes().size();
  regions_.push_back(manifest);
  if (files.size() != files_.size())
    fail_at(manifest_path, "lists " + std::to_string(files_.size()) + " data files, " + std::to_string(files.size()) +
                               " are held");
  for (std::uint32_t i = 0; i < files_.size(); ++i) {
    const file_entry& entry = files_[i];
    const fs::path path = dir_ / entry.name;
    if (!files[i]) fail_at(path, "missing: " + entry.name + " listed in the manifest");
    const bytes_view file = files[i]->bytes();
    check_data_header(file, path, id_, i, entry);
    const std::uint32_t running = check_records(file, path, entry.records, describe, i, records_);
    check_footer(file, path, entry.records, running, entry);
    bytes_ += file.size();
    regions_.push_back(std::move(files[i]));
  }
}

loaded_checkpoint::~loaded_checkpoint() = default;

std::string loaded_checkpoint::file_path(std::uint32_t file) const { return (dir_ / files_.at(file).name).string(); }

}  // namespace roam::detail::ckpt
