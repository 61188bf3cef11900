// Publishing a checkpoint and pruning old ones: the .partial directory a
// checkpoint is written into, its manifest written and fsynced last, the
// rename that publishes the whole at once (never over an existing one), the
// fsync of the root that makes the rename durable, and only then the removal
// of older checkpoints and leftovers; a failure before the rename leaves the
// previous checkpoints as they were.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <system_error>
#include <utility>

#include "format_directories.hpp"
#include "format_errors.hpp"
#include "format_layout.hpp"

namespace roam::detail::ckpt {

namespace fs = std::filesystem;

namespace {

/// Writes one file with writev straight from the callers' buffers, keeping
/// the CRC-32C of everything appended so far. Small pieces (headers,
/// padding, short metas) are gathered into one buffer so that many small
/// records do not cost one iovec each. Until commit() succeeds the file is
/// provisional: a failure, or any exception passing by, removes it.
class file_writer {
 public:
  explicit file_writer(fs::path path) : path_(std::move(path)) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) fail_errno(path_, "cannot create");
    scratch_.reserve(scratch_capacity);
  }

  void append(bytes_view bytes) {
    crc_ = crc_of(bytes, crc_);
    queue(bytes);
  }

  /// Appends bytes whose own CRC the caller has already computed.
  void append(bytes_view bytes, std::uint32_t bytes_crc) {
    crc_ = extend_crc(crc_, bytes, bytes_crc);
    queue(bytes);
  }

  std::uint32_t crc() const noexcept { return crc_; }
  std::uint64_t length() const noexcept { return length_; }

  void commit(bool sync = true) {
    flush();
    if (sync && ::fsync(fd_) != 0) fail_errno(path_, "fsync");
    if (::close(std::exchange(fd_, -1)) != 0) fail_errno(path_, "close");
    committed_ = true;
  }

  /// Pieces up to this size are copied, so they may live on the caller's stack.
  static constexpr std::size_t copy_limit = 256;

 private:
  static constexpr std::size_t scratch_capacity = 64 * 1024;
  static constexpr std::size_t max_pieces = IOV_MAX;

  struct piece {
    const std::byte* external;  // null: the bytes are in scratch_ from `offset`
    std::size_t offset;
    std::size_t length;
  };

  void queue(bytes_view bytes) {
    length_ += bytes.size();
    if (bytes.empty()) return;
    if (bytes.size() <= copy_limit)
      queue_copy(bytes);
    else
      queue_reference(bytes);
  }

  void queue_copy(bytes_view bytes) {
    if (scratch_.size() + bytes.size() > scratch_capacity) flush();
    // Consecutive copied pieces are adjacent in scratch_: they share an iovec.
    if (pieces_.empty() || pieces_.back().external != nullptr) {
      if (pieces_.size() == max_pieces) flush();
      pieces_.push_back({nullptr, scratch_.size(), 0});
    }
    pieces_.back().length += bytes.size();
    scratch_.insert(scratch_.end(), bytes.begin(), bytes.end());
  }

  void queue_reference(bytes_view bytes) {
    if (pieces_.size() == max_pieces) flush();
    pieces_.push_back({bytes.data(), 0, bytes.size()});
  }

  void flush() {
    iovecs_.clear();
    for (const piece& p : pieces_) {
      const std::byte* base = p.external != nullptr ? p.external : scratch_.data() + p.offset;
      iovecs_.push_back({const_cast<std::byte*>(base), p.length});  // writev does not write to it
    }
    write_all();
    pieces_.clear();
    scratch_.clear();
  }

  void write_all() {
    std::size_t first = 0;
    while (first < iovecs_.size()) {
      const ssize_t written = ::writev(fd_, iovecs_.data() + first, static_cast<int>(iovecs_.size() - first));
      if (written < 0) {
        if (errno == EINTR) continue;
        fail_errno(path_, "write");
      }
      if (written == 0) fail_at(path_, "write: no progress (0 bytes written)");
      auto left = static_cast<std::size_t>(written);
      while (first < iovecs_.size() && left >= iovecs_[first].iov_len) left -= iovecs_[first++].iov_len;
      if (left != 0) {  // a partial write stopped inside this iovec
        iovecs_[first].iov_base = static_cast<char*>(iovecs_[first].iov_base) + left;
        iovecs_[first].iov_len -= left;
      }
    }
  }

  fs::path path_;
  int fd_ = -1;
  bool committed_ = false;
  std::uint32_t crc_ = 0;
  std::uint64_t length_ = 0;
  std::vector<piece> pieces_;
  std::vector<std::byte> scratch_;
  std::vector<iovec> iovecs_;
};

static_assert(header_at::end <= file_writer::copy_limit && record_at::end <= file_writer::copy_limit &&
                  footer_at::end <= file_writer::copy_limit && entry_at::end <= file_writer::copy_limit,
              "headers are built on the stack and must be copied by file_writer");

void write_manifest(const fs::path& path, const file_identity& id, bytes_view program_blob,
                    std::span<const file_entry> files, bool sync) {
  const std::vector<std::byte> bytes = manifest_bytes(id, program_blob, files);
  file_writer out(path);
  out.append(bytes);
  out.commit(sync);
}

void sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail_errno(dir, "cannot open the directory to fsync it");
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    fail_errno(dir, "fsync of the directory", err);
  }
  if (::close(fd) != 0) fail_errno(dir, "close of the directory");
}

/// So that a crash does not take a just-created root, and the first
/// checkpoint in it, away. Best effort: a parent we may not open (a shared
/// scratch directory) must not make every checkpoint fail.
void sync_parent_best_effort(const fs::path& created) noexcept {
  try {
    sync_directory(parent_of(created));
  } catch (...) {
  }
}

/// Renames, failing rather than replacing an existing `to` (rename(2) would
/// silently replace an empty directory).
void rename_no_replace(const fs::path& from, const fs::path& to) {
  struct stat existing;
  if (::lstat(to.c_str(), &existing) == 0)
    fail_at(to, "already exists: a checkpoint of this number was published before");
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return;
  int err = errno;
  if (err == EINVAL || err == ENOSYS) {  // a file system without RENAME_NOREPLACE: lstat above checked
    if (::rename(from.c_str(), to.c_str()) == 0) return;
    err = errno;
  }
  if (err == EEXIST) fail_at(to, "already exists: a checkpoint of this number was published before");
  fail_errno(from, "rename to " + to.string(), err);
}

void check_publish_arguments(const fs::path& partial, const file_identity& id, std::span<const file_entry> files,
                             std::uint32_t /*keep: 0 is "do not prune"*/) {
  const std::string expected = checkpoint_dir_name(id.number) + std::string(partial_suffix);
  if (partial.filename() != expected)
    fail_at(partial, "not the partial directory of checkpoint " + std::to_string(id.number) + " (" + expected + ")");
  if (files.size() != id.processes)
    fail_at(partial, "the file table has " + std::to_string(files.size()) + " entries for " +
                         std::to_string(id.processes) + " processes");
  for (std::uint32_t i = 0; i < files.size(); ++i)
    if (files[i].name != data_file_name(i))
      fail_at(partial, "file table entry " + std::to_string(i) + " is '" + files[i].name + "', expected '" +
                           data_file_name(i) + "'");
}

/// Keeps the newest `keep` complete checkpoints (and the one just published,
/// whatever its rank), removes the rest and every .partial directory. Best
/// effort: the checkpoint is already published, leftovers go next time.
void remove_older_checkpoints(const fs::path& root, std::uint64_t published, std::uint32_t keep) noexcept {
  try {
    const checkpoint_listing listing = list_checkpoints(root);
    std::error_code ignored;
    for (std::size_t rank = 0; rank < listing.complete.size(); ++rank) {
      const auto& [number, path] = listing.complete[rank];
      if (rank >= keep && number != published) fs::remove_all(path, ignored);
    }
    for (const auto& partial : listing.partial) fs::remove_all(partial.second, ignored);
  } catch (...) {  // listing failed or out of memory: nothing removed, nothing lost
  }
}

}  // namespace

fs::path begin_checkpoint(const fs::path& root, std::uint64_t number) {
  const fs::file_status root_status = status_of(root);
  if (fs::exists(root_status) && !fs::is_directory(root_status))
    fail_at(root, "not a directory, so it cannot hold checkpoints");
  std::error_code ec;
  const bool created = fs::create_directories(root, ec);
  if (ec) fail_at(root, "cannot create the checkpoint directory: " + ec.message());
  if (created) sync_parent_best_effort(root);
  const fs::path partial = root / (checkpoint_dir_name(number) + std::string(partial_suffix));
  fs::remove_all(partial, ec);
  if (ec) fail_at(partial, "cannot remove the stale partial checkpoint: " + ec.message());
  if (!fs::create_directory(partial, ec)) {
    if (ec) fail_at(partial, "cannot create: " + ec.message());
    fail_at(partial, "cannot create: appeared meanwhile (another writer?)");
  }
  return partial;
}

fs::path publish_checkpoint(const fs::path& partial_arg, const file_identity& id,
                            std::span<const std::byte> program_blob, std::span<const file_entry> files,
                            std::uint32_t keep, bool sync) {
  const fs::path partial = without_trailing_separator(partial_arg);
  const fs::path root = parent_of(partial);
  const fs::path final_dir = partial.parent_path() / checkpoint_dir_name(id.number);
  try {
    check_publish_arguments(partial, id, files, keep);
    write_manifest(partial / manifest_name, id, program_blob, files, sync);
    if (sync) sync_directory(partial);
    rename_no_replace(partial, final_dir);
  } catch (...) {
    abandon_checkpoint(partial);
    throw;
  }
  // Without this the rename may not survive a crash. Pruning waits for it:
  // an older checkpoint must not go before this one is durable.
  try {
    if (sync) sync_directory(root);
  } catch (const checkpoint_error& e) {
    throw checkpoint_error(std::string(e.what()) + " (" + final_dir.string() +
                           " is in place, but may not survive a crash)");
  }
  if (keep != 0) remove_older_checkpoints(root, id.number, keep);
  return final_dir;
}

void prune_checkpoints(const fs::path& root, std::uint64_t newest, std::uint32_t keep) noexcept {
  if (keep != 0) remove_older_checkpoints(root, newest, keep);
}

void abandon_checkpoint(const fs::path& partial_arg) noexcept {
  try {
    const fs::path partial = without_trailing_separator(partial_arg);
    // Only ever a .partial directory: a wrong argument must not remove a published checkpoint.
    if (!partial.filename().string().ends_with(partial_suffix)) return;
    std::error_code ignored;
    fs::remove_all(partial, ignored);
  } catch (...) {  // path conversions may allocate
  }
}

}  // namespace roam::detail::ckpt
