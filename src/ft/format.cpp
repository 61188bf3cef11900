#include "format.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>
#include <system_error>
#include <utility>

#include <roam/msg/detail/crc32c.hpp>

// The byte layout, the publication protocol and the checks on load are
// described in docs/design/checkpoint-format.md; keep the two in step.

namespace roam::detail::ckpt {

namespace fs = std::filesystem;

namespace {

using describe_fn = std::string (*)(std::span<const std::byte> meta);
using bytes_view = std::span<const std::byte>;

// ---------------------------------------------------------------------------
// Layout. Every integer is little-endian.

constexpr std::string_view file_magic = "ROAMCKPT";
constexpr std::uint32_t data_kind = 1;
constexpr std::uint32_t manifest_kind = 2;
constexpr std::string_view manifest_name = "manifest";
constexpr std::string_view dir_prefix = "ckpt-";
constexpr std::string_view partial_suffix = ".partial";

// Record headers and states start at multiples of 8 in the file (and so in a
// page-aligned mapping): a state of 8-byte words can be read in place.
constexpr std::size_t alignment = 8;
constexpr std::array<std::byte, alignment> zeros{};

namespace header_at {  // both kinds of file
constexpr std::size_t magic = 0, version = 8, kind = 12, program_hash = 16, number = 24, processes = 32, pes = 36;
constexpr std::size_t process = 40, records = 44;  // data file
constexpr std::size_t manifest_length = 40;        // manifest (u64)
constexpr std::size_t reserved = 48, crc = 52, end = 56;
}  // namespace header_at

namespace record_at {
constexpr std::size_t state_length = 0, meta_length = 8, meta_crc = 12, state_crc = 16, crc = 20, end = 24;
}  // namespace record_at

namespace footer_at {
constexpr std::size_t file_length = 0, records = 8, file_crc = 12, end = 16;
}  // namespace footer_at

namespace entry_at {  // a file-table entry of the manifest; its name follows, then padding
constexpr std::size_t size = 0, crc = 8, records = 12, name_length = 16, end = 20;
}  // namespace entry_at

constexpr std::size_t blob_length_size = 8;
constexpr std::size_t manifest_crc_size = 4;
constexpr std::size_t smallest_manifest = header_at::end + blob_length_size + manifest_crc_size;

void put_u32(std::byte* at, std::uint32_t value) {
  for (std::size_t i = 0; i < 4; ++i) at[i] = static_cast<std::byte>(value >> (8 * i));
}

void put_u64(std::byte* at, std::uint64_t value) {
  for (std::size_t i = 0; i < 8; ++i) at[i] = static_cast<std::byte>(value >> (8 * i));
}

std::uint32_t get_u32(const std::byte* at) {
  std::uint32_t value = 0;
  for (std::size_t i = 4; i-- > 0;) value = value << 8 | std::to_integer<std::uint32_t>(at[i]);
  return value;
}

std::uint64_t get_u64(const std::byte* at) {
  std::uint64_t value = 0;
  for (std::size_t i = 8; i-- > 0;) value = value << 8 | std::to_integer<std::uint64_t>(at[i]);
  return value;
}

std::size_t padding_after(std::uint64_t offset) { return (alignment - offset % alignment) % alignment; }

std::uint32_t crc_of(bytes_view bytes, std::uint32_t running = 0) {
  return crc32c(bytes.data(), bytes.size(), running);
}

// ---------------------------------------------------------------------------
// CRC-32C is linear: the CRC a record header needs for a state also extends
// the file's running CRC (crc32c_combine), so a 1 GiB state is read once,
// not twice, on writing and on loading.

// A combination costs about 50 ns (-O2), what the CRC instruction takes for
// about 500 bytes; below the threshold the piece, just read and so in cache,
// is run through the CRC again instead.
constexpr std::size_t combine_threshold = 1024;

/// The running CRC extended over `piece`, whose own CRC is `piece_crc`.
std::uint32_t extend_crc(std::uint32_t running, bytes_view piece, std::uint32_t piece_crc) {
  if (piece.size() < combine_threshold) return crc_of(piece, running);
  return crc32c_combine(running, piece_crc, piece.size());
}

// ---------------------------------------------------------------------------
// Errors.

std::string hex(std::uint64_t value, int digits) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%0*llx", digits, static_cast<unsigned long long>(value));
  return text;
}

std::string hex32(std::uint32_t value) { return hex(value, 8); }
std::string hex64(std::uint64_t value) { return hex(value, 16); }

[[noreturn]] void fail(const fs::path& path, const std::string& reason) {
  throw checkpoint_error(path.string() + ": " + reason);
}

[[noreturn]] void fail_errno(const fs::path& path, const std::string& what, int err) {
  fail(path, what + ": " + std::generic_category().message(err));
}

/// For a call that just failed: errno is read before anything can change it.
[[noreturn]] void fail_errno(const fs::path& path, const char* what) {
  const int err = errno;
  fail_errno(path, std::string(what), err);
}

std::string n_bytes(std::uint64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

std::string crc_mismatch(std::string_view what, std::uint32_t stored, std::uint32_t computed) {
  return std::string(what) + " CRC-32C mismatch (stored " + hex32(stored) + ", computed " + hex32(computed) +
         "): corrupted";
}

// ---------------------------------------------------------------------------
// Writing.

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
      if (written == 0) fail(path_, "write: no progress (0 bytes written)");
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

using header_bytes = std::array<std::byte, header_at::end>;
static_assert(header_at::end <= file_writer::copy_limit && record_at::end <= file_writer::copy_limit &&
                  footer_at::end <= file_writer::copy_limit && entry_at::end <= file_writer::copy_limit,
              "headers are built on the stack and must be copied by file_writer");

/// The header without its CRC, and without the kind-specific fields at 40..48.
header_bytes common_header(std::uint32_t kind, const file_identity& id) {
  header_bytes h{};
  std::transform(file_magic.begin(), file_magic.end(), h.begin() + header_at::magic,
                 [](char c) { return static_cast<std::byte>(c); });
  put_u32(h.data() + header_at::version, format_version);
  put_u32(h.data() + header_at::kind, kind);
  put_u64(h.data() + header_at::program_hash, id.program_hash);
  put_u64(h.data() + header_at::number, id.number);
  put_u32(h.data() + header_at::processes, id.processes);
  put_u32(h.data() + header_at::pes, id.pes);
  return h;
}

void seal_header(header_bytes& h) { put_u32(h.data() + header_at::crc, crc32c(h.data(), header_at::crc)); }

std::uint64_t entry_size(const file_entry& entry) {
  const std::uint64_t unpadded = entry_at::end + entry.name.size();
  return unpadded + padding_after(unpadded);
}

// The manifest's bytes: header, program blob, file table, CRC of all before it.
std::vector<std::byte> build_manifest(const file_identity& id, bytes_view program_blob, std::span<const file_entry> files) {
  std::uint64_t length = header_at::end + blob_length_size + program_blob.size() + padding_after(program_blob.size());
  for (const file_entry& entry : files) length += entry_size(entry);
  length += manifest_crc_size;
  std::vector<std::byte> out;
  out.reserve(length);
  auto append = [&](bytes_view b) { out.insert(out.end(), b.begin(), b.end()); };
  auto pad = [&] { append(std::span(zeros).first(padding_after(out.size()))); };
  header_bytes header = common_header(manifest_kind, id);
  put_u64(header.data() + header_at::manifest_length, length);
  seal_header(header);
  append(header);
  std::array<std::byte, blob_length_size> blob_length{};
  put_u64(blob_length.data(), program_blob.size());
  append(blob_length);
  append(program_blob);
  pad();
  for (const file_entry& entry : files) {
    std::array<std::byte, entry_at::end> fields{};
    put_u64(fields.data() + entry_at::size, entry.size);
    put_u32(fields.data() + entry_at::crc, entry.crc);
    put_u32(fields.data() + entry_at::records, entry.records);
    put_u32(fields.data() + entry_at::name_length, static_cast<std::uint32_t>(entry.name.size()));
    append(fields);
    append(std::as_bytes(std::span(entry.name)));
    pad();
  }
  std::array<std::byte, manifest_crc_size> crc{};
  put_u32(crc.data(), crc_of(out));
  append(crc);
  if (out.size() != length) throw checkpoint_error("internal error: a manifest of " + n_bytes(out.size()) + ", expected " + n_bytes(length));
  return out;
}

void write_manifest(const fs::path& path, const file_identity& id, bytes_view program_blob,
                    std::span<const file_entry> files, bool sync) {
  const std::vector<std::byte> bytes = build_manifest(id, program_blob, files);
  file_writer out(path);
  out.append(bytes);
  out.commit(sync);
}

// ---------------------------------------------------------------------------
// Directories.

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

struct checkpoint_listing {
  std::vector<std::pair<std::uint64_t, fs::path>> complete;  // newest first
  std::vector<std::pair<std::uint64_t, fs::path>> partial;
};

checkpoint_listing list_checkpoints(const fs::path& root) {
  checkpoint_listing listing;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const auto name = parse_dir_name(it->path().filename().string());
    std::error_code type_ec;
    if (!name || !it->is_directory(type_ec)) continue;
    (name->partial ? listing.partial : listing.complete).emplace_back(name->number, it->path());
  }
  if (ec) fail(root, "cannot list the directory: " + ec.message());
  std::sort(listing.complete.begin(), listing.complete.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  return listing;
}

/// What `path` is: follows symlinks; not_found is not an error.
fs::file_status status_of(const fs::path& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec && status.type() != fs::file_type::not_found) fail(path, "cannot stat: " + ec.message());
  return status;
}

fs::path without_trailing_separator(const fs::path& path) { return path.has_filename() ? path : path.parent_path(); }

fs::path parent_of(const fs::path& path) {
  const fs::path parent = without_trailing_separator(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
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
  if (::lstat(to.c_str(), &existing) == 0) fail(to, "already exists: a checkpoint of this number was published before");
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return;
  int err = errno;
  if (err == EINVAL || err == ENOSYS) {  // a file system without RENAME_NOREPLACE: lstat above checked
    if (::rename(from.c_str(), to.c_str()) == 0) return;
    err = errno;
  }
  if (err == EEXIST) fail(to, "already exists: a checkpoint of this number was published before");
  fail_errno(from, "rename to " + to.string(), err);
}

void check_publish_arguments(const fs::path& partial, const file_identity& id, std::span<const file_entry> files,
                             std::uint32_t /*keep: 0 is "do not prune"*/) {
  const std::string expected = checkpoint_dir_name(id.number) + std::string(partial_suffix);
  if (partial.filename() != expected)
    fail(partial, "not the partial directory of checkpoint " + std::to_string(id.number) + " (" + expected + ")");
  if (files.size() != id.processes)
    fail(partial, "the file table has " + std::to_string(files.size()) + " entries for " +
                      std::to_string(id.processes) + " processes");
  for (std::uint32_t i = 0; i < files.size(); ++i)
    if (files[i].name != data_file_name(i))
      fail(partial, "file table entry " + std::to_string(i) + " is '" + files[i].name + "', expected '" +
                        data_file_name(i) + "'");
}

/// Keeps the newest `keep` complete checkpoints (and the one just published,
/// whatever its rank), removes the rest and every .partial directory. Best
/// effort: the checkpoint is already published, leftovers go next time.
void prune(const fs::path& root, std::uint64_t published, std::uint32_t keep) noexcept {
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

// ---------------------------------------------------------------------------
// Loading.

struct parsed_header {
  file_identity id;
  std::uint32_t process = 0;          // data file
  std::uint32_t records = 0;          // data file
  std::uint64_t manifest_length = 0;  // manifest
};

std::string kind_name(std::uint32_t kind) {
  if (kind == data_kind) return "data file";
  if (kind == manifest_kind) return "manifest";
  return "file of unknown kind " + std::to_string(kind);
}

/// Magic and version before the CRC, so that another kind of file or another
/// format says so rather than "CRC mismatch"; the CRC before any other field.
parsed_header check_header(bytes_view file, const fs::path& path, std::uint32_t expected_kind) {
  const std::size_t magic_seen = std::min(file.size(), file_magic.size());
  if (std::string_view(reinterpret_cast<const char*>(file.data()), magic_seen) != file_magic.substr(0, magic_seen))
    fail(path, "not a roam checkpoint (it does not start with \"ROAMCKPT\")");
  auto truncated = [&] {
    fail(path, "truncated: " + n_bytes(file.size()) + ", shorter than a header (" + n_bytes(header_at::end) + ")");
  };
  if (file.size() < header_at::version + 4) truncated();
  const std::uint32_t version = get_u32(file.data() + header_at::version);
  if (version != format_version)
    fail(path, "format version " + std::to_string(version) + ", this roam reads " + std::to_string(format_version));
  if (file.size() < header_at::end) truncated();
  const std::uint32_t stored = get_u32(file.data() + header_at::crc);
  const std::uint32_t computed = crc32c(file.data(), header_at::crc);
  if (stored != computed) fail(path, crc_mismatch("header", stored, computed));
  // After the CRC: a corrupt kind is "corrupted", an intact one means swapped files.
  const std::uint32_t kind = get_u32(file.data() + header_at::kind);
  if (kind != expected_kind) fail(path, "a " + kind_name(kind) + ", expected a " + kind_name(expected_kind));
  if (get_u32(file.data() + header_at::reserved) != 0) fail(path, "header: reserved field is not zero");

  parsed_header h;
  h.id.program_hash = get_u64(file.data() + header_at::program_hash);
  h.id.number = get_u64(file.data() + header_at::number);
  h.id.processes = get_u32(file.data() + header_at::processes);
  h.id.pes = get_u32(file.data() + header_at::pes);
  h.process = get_u32(file.data() + header_at::process);
  h.records = get_u32(file.data() + header_at::records);
  h.manifest_length = get_u64(file.data() + header_at::manifest_length);
  return h;
}

struct manifest_contents {
  file_identity id;
  bytes_view program_blob;
  std::vector<file_entry> files;
};

/// The manifest's body, once its CRC holds: a failure here means a writer
/// bug or a forged file, hence "malformed".
manifest_contents parse_manifest_body(bytes_view file, const fs::path& path, const file_identity& id) {
  manifest_contents m;
  m.id = id;
  const std::size_t end = file.size() - manifest_crc_size;
  std::size_t at = header_at::end;
  auto take = [&](std::uint64_t n, const std::string& what) {
    if (n > end - at) fail(path, "malformed: " + what + " runs past the end");
    const bytes_view bytes = file.subspan(at, n);
    at += n;
    return bytes;
  };
  auto skip_padding = [&](const std::string& what) { take(padding_after(at), "the padding after " + what); };

  const std::uint64_t blob_length = get_u64(take(blob_length_size, "the program blob's length").data());
  m.program_blob = take(blob_length, "the program blob (" + n_bytes(blob_length) + ")");
  skip_padding("the program blob");
  m.files.reserve(std::min<std::size_t>(id.processes, (end - at) / entry_at::end));
  for (std::uint32_t i = 0; i < id.processes; ++i) {
    const std::string entry_label = "file table entry " + std::to_string(i);
    const std::byte* fields = take(entry_at::end, entry_label).data();
    file_entry entry;
    entry.size = get_u64(fields + entry_at::size);
    entry.crc = get_u32(fields + entry_at::crc);
    entry.records = get_u32(fields + entry_at::records);
    const bytes_view name = take(get_u32(fields + entry_at::name_length), entry_label + "'s name");
    entry.name.assign(reinterpret_cast<const char*>(name.data()), name.size());
    skip_padding(entry_label);
    // Names are fixed, which also keeps a forged manifest from naming files outside the directory.
    if (entry.name != data_file_name(i))
      fail(path, "malformed: " + entry_label + " names '" + entry.name + "', expected '" + data_file_name(i) + "'");
    m.files.push_back(std::move(entry));
  }
  if (at != end) fail(path, "malformed: " + n_bytes(end - at) + " after the file table");
  return m;
}

manifest_contents check_manifest(bytes_view file, const fs::path& path, std::uint64_t program_hash) {
  const parsed_header h = check_header(file, path, manifest_kind);
  if (h.id.program_hash != program_hash)
    fail(path, "written by another program or another version of it (entry-table hash " + hex64(h.id.program_hash) +
                   ", this program's " + hex64(program_hash) + ")");
  if (file.size() < h.manifest_length)
    fail(path, "truncated: " + n_bytes(file.size()) + ", its header says " + n_bytes(h.manifest_length));
  if (file.size() > h.manifest_length)
    fail(path, n_bytes(file.size()) + ", its header says " + n_bytes(h.manifest_length) + ": bytes were appended");
  if (file.size() < smallest_manifest)
    fail(path, "malformed: its header says " + n_bytes(h.manifest_length) + ", less than any manifest");
  const std::uint32_t stored = get_u32(file.data() + file.size() - manifest_crc_size);
  const std::uint32_t computed = crc32c(file.data(), file.size() - manifest_crc_size);
  if (stored != computed) fail(path, crc_mismatch("manifest", stored, computed));
  return parse_manifest_body(file, path, h.id);
}

/// The header of data file `process` against what the manifest says of it.
void check_data_header(bytes_view file, const fs::path& path, const file_identity& manifest_id, std::uint32_t process,
                       const file_entry& entry) {
  const parsed_header h = check_header(file, path, data_kind);
  if (h.id.program_hash != manifest_id.program_hash)
    fail(path, "written by another program (entry-table hash " + hex64(h.id.program_hash) + ", the manifest's " +
                   hex64(manifest_id.program_hash) + ")");
  if (h.id.number != manifest_id.number)
    fail(path, "from checkpoint number " + std::to_string(h.id.number) + ", the manifest's is " +
                   std::to_string(manifest_id.number));
  if (h.id.processes != manifest_id.processes || h.id.pes != manifest_id.pes)
    fail(path, "written by a run of " + std::to_string(h.id.processes) + " processes and " + std::to_string(h.id.pes) +
                   " PEs, the manifest says " + std::to_string(manifest_id.processes) + " and " +
                   std::to_string(manifest_id.pes));
  if (h.process != process)
    fail(path,
         "holds the records of process " + std::to_string(h.process) + ", expected process " + std::to_string(process));
  if (file.size() < entry.size)
    fail(path, "truncated: " + n_bytes(file.size()) + ", the manifest lists " + n_bytes(entry.size));
  if (file.size() > entry.size) fail(path, n_bytes(file.size()) + ", the manifest lists " + n_bytes(entry.size));
  if (file.size() < header_at::end + footer_at::end)
    fail(path, "truncated: " + n_bytes(file.size()) + ", shorter than a header and a footer");
  if (h.records != entry.records)
    fail(path, std::to_string(h.records) + " records, the manifest lists " + std::to_string(entry.records));
}

/// "record 12", plus "(what describe says)" when the meta is known intact.
std::string record_label(std::uint32_t index, describe_fn describe, const bytes_view* intact_meta) {
  std::string label = "record " + std::to_string(index);
  if (describe != nullptr && intact_meta != nullptr) {
    try {
      label += " (" + describe(*intact_meta) + ")";
    } catch (const std::exception&) {  // a describe that chokes must not hide the real error
    }
  }
  return label;
}

/// Walks and checks the records; returns the CRC of the file up to the footer.
std::uint32_t check_records(bytes_view file, const fs::path& path, std::uint32_t count, describe_fn describe,
                            std::uint32_t file_index, std::vector<record_in>& out) {
  const std::size_t end = file.size() - footer_at::end;
  std::size_t at = header_at::end;
  std::uint32_t running = crc32c(file.data(), header_at::end);
  for (std::uint32_t i = 0; i < count; ++i) {
    const bytes_view* intact_meta = nullptr;
    auto fail_record = [&](const std::string& reason) {
      fail(path, record_label(i, describe, intact_meta) + ": " + reason);
    };
    auto take = [&](std::uint64_t n, const std::string& what) {
      if (n > end - at)
        fail_record("truncated: " + what + " (" + n_bytes(n) + ") runs past the end of the records (offset " +
                    std::to_string(end) + ")");
      const bytes_view bytes = file.subspan(at, n);
      at += n;
      return bytes;
    };

    // The header's own CRC first: its lengths are not trusted before.
    const std::byte* header = take(record_at::end, "its header").data();
    const std::uint32_t stored = get_u32(header + record_at::crc);
    const std::uint32_t computed = crc32c(header, record_at::crc);
    if (stored != computed) fail_record(crc_mismatch("header", stored, computed));
    running = crc32c(header, record_at::end, running);

    const bytes_view meta = take(get_u32(header + record_at::meta_length), "its meta");
    const std::uint32_t meta_crc = crc_of(meta);
    if (meta_crc != get_u32(header + record_at::meta_crc))
      fail_record(crc_mismatch("meta", get_u32(header + record_at::meta_crc), meta_crc));
    intact_meta = &meta;
    running = extend_crc(running, meta, meta_crc);
    running = crc_of(take(padding_after(at), "the padding after its meta"), running);

    const bytes_view state = take(get_u64(header + record_at::state_length), "its state");
    const std::uint32_t state_crc = crc_of(state);
    if (state_crc != get_u32(header + record_at::state_crc))
      fail_record(crc_mismatch("state", get_u32(header + record_at::state_crc), state_crc));
    running = extend_crc(running, state, state_crc);
    running = crc_of(take(padding_after(at), "the padding after its state"), running);

    out.push_back({meta, state, file_index, i});
  }
  if (at != end) fail(path, n_bytes(end - at) + " between the last record and the footer");
  return running;
}

void check_footer(bytes_view file, const fs::path& path, std::uint32_t records, std::uint32_t running,
                  const file_entry& entry) {
  const std::byte* footer = file.data() + file.size() - footer_at::end;
  const std::uint64_t length = get_u64(footer + footer_at::file_length);
  if (length != file.size())
    fail(path, "footer: file length " + std::to_string(length) + ", the file is " + n_bytes(file.size()));
  const std::uint32_t footer_records = get_u32(footer + footer_at::records);
  if (footer_records != records)
    fail(path, "footer: " + std::to_string(footer_records) + " records, the header says " + std::to_string(records));
  const std::uint32_t computed = crc32c(footer, footer_at::file_crc, running);
  const std::uint32_t stored = get_u32(footer + footer_at::file_crc);
  if (stored != computed) fail(path, crc_mismatch("file", stored, computed));
  if (computed != entry.crc)
    fail(path, "file CRC-32C " + hex32(computed) + ", the manifest lists " + hex32(entry.crc) +
                   ": not the file the manifest was written with");
}

}  // namespace

// ---------------------------------------------------------------------------

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

file_entry write_data_file(const fs::path& dir, const file_identity& id, std::uint32_t process,
                           std::span<const record_out> records) {
  data_file_stream out(dir, id, process);
  std::vector<data_file_stream::record_crcs> crcs;
  crcs.reserve(records.size());
  for (const record_out& record : records) crcs.push_back(data_file_stream::crcs_of(record));
  out.append(records, crcs);
  return out.finish();
}

// The header goes in last, before the appended records: their alignment
// (computed from the appended length) holds in the file as long as it is a
// multiple of the alignment.
static_assert(header_at::end % alignment == 0);

namespace {

class vector_region final : public byte_region {
 public:
  explicit vector_region(std::vector<std::byte> v) : v_(std::move(v)) {}
  std::span<const std::byte> bytes() const noexcept override { return v_; }

 private:
  std::vector<std::byte> v_;
};

}  // namespace

std::shared_ptr<const byte_region> region_of(std::vector<std::byte> bytes) {
  return std::make_shared<vector_region>(std::move(bytes));
}

std::shared_ptr<const byte_region> region_copy_of(std::span<const std::byte> bytes) {
  return region_of(std::vector<std::byte>(bytes.begin(), bytes.end()));
}

std::vector<std::byte> manifest_bytes(const file_identity& id, std::span<const std::byte> program_blob,
                                      std::span<const file_entry> files) {
  return build_manifest(id, program_blob, files);
}

namespace {

// A record's header: its lengths and CRCs, and its own CRC over them.
std::array<std::byte, record_at::end> record_header(std::uint64_t state_length, std::uint32_t meta_length,
                                                    std::uint32_t meta_crc, std::uint32_t state_crc) {
  std::array<std::byte, record_at::end> header{};
  put_u64(header.data() + record_at::state_length, state_length);
  put_u32(header.data() + record_at::meta_length, meta_length);
  put_u32(header.data() + record_at::meta_crc, meta_crc);
  put_u32(header.data() + record_at::state_crc, state_crc);
  put_u32(header.data() + record_at::crc, crc32c(header.data(), record_at::crc));
  return header;
}

// A data file's header and footer once its records are known (on disk or
// in memory): `length` the whole file's, `records_crc` the CRC of every byte
// between the two. The footer's CRC covers the header too: crc(header, then
// the rest) from both parts' CRCs.
struct header_and_footer {
  header_bytes header{};
  std::array<std::byte, footer_at::end> footer{};
  std::uint32_t file_crc = 0;
};

header_and_footer seal_of(const file_identity& id, std::uint32_t process, std::uint32_t records,
                          std::uint32_t records_crc, std::uint64_t length) {
  header_and_footer h;
  h.header = common_header(data_kind, id);
  put_u32(h.header.data() + header_at::process, process);
  put_u32(h.header.data() + header_at::records, records);
  seal_header(h.header);
  put_u64(h.footer.data() + footer_at::file_length, length);
  put_u32(h.footer.data() + footer_at::records, records);
  const std::uint64_t records_length = length - header_at::end - footer_at::end;
  const std::uint32_t rest_crc = crc32c(h.footer.data(), footer_at::file_crc, records_crc);
  h.file_crc = crc32c_combine(crc_of(h.header), rest_crc, records_length + footer_at::file_crc);
  put_u32(h.footer.data() + footer_at::file_crc, h.file_crc);
  return h;
}

}  // namespace

struct data_file_stream::impl {
  impl(const fs::path& dir, const file_identity& identity, std::uint32_t proc)
      : name(data_file_name(proc)), path(dir / name), id(identity), process(proc) {
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) fail_errno(path, "cannot create");
  }
  ~impl() {
    if (finished) return;
    if (fd >= 0) ::close(fd);
    ::unlink(path.c_str());
  }
  impl(const impl&) = delete;
  impl& operator=(const impl&) = delete;

  std::string name;
  fs::path path;
  file_identity id;
  std::uint32_t process;
  int fd = -1;
  std::uint64_t end = header_at::end;  // where the next batch goes
  std::uint32_t crc = 0;               // of everything after the header reserved so far
  std::uint64_t records = 0;
  bool finished = false;

  void write_pieces(std::vector<iovec>& iov, std::uint64_t offset) {
    std::size_t first = 0;
    while (first < iov.size()) {
      const int count = static_cast<int>(std::min<std::size_t>(iov.size() - first, IOV_MAX));
      const ssize_t written = ::pwritev(fd, iov.data() + first, count, static_cast<off_t>(offset));
      if (written < 0) {
        if (errno == EINTR) continue;
        fail_errno(path, "write");
      }
      if (written == 0) fail(path, "write: no progress (0 bytes written)");
      offset += static_cast<std::uint64_t>(written);
      auto left = static_cast<std::size_t>(written);
      while (first < iov.size() && left >= iov[first].iov_len) left -= iov[first++].iov_len;
      if (left != 0) {  // a partial write stopped inside this iovec
        iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + left;
        iov[first].iov_len -= left;
      }
    }
  }
};

namespace {

// Lays out a batch: small pieces copied into its scratch (sharing iovecs),
// large ones referenced; the batch's CRC extended piece by piece.
class batch_layout {
 public:
  explicit batch_layout(data_file_stream::batch& b) : b_(b) {}
  void add(bytes_view bytes, std::optional<std::uint32_t> known_crc = std::nullopt) {
    b_.crc = known_crc ? extend_crc(b_.crc, bytes, *known_crc) : crc_of(bytes, b_.crc);
    b_.length += bytes.size();
    if (bytes.empty()) return;
    if (bytes.size() <= copy_limit) {
      if (b_.pieces.empty() || b_.pieces.back().external != nullptr)
        b_.pieces.push_back({nullptr, b_.scratch.size(), 0});
      b_.pieces.back().length += bytes.size();
      b_.scratch.insert(b_.scratch.end(), bytes.begin(), bytes.end());
    } else {
      b_.pieces.push_back({bytes.data(), 0, bytes.size()});
    }
  }
  // Batches start at multiples of the alignment (the header's size is one,
  // and every record ends padded), so relative padding is the file's.
  void pad() { add(std::span(zeros).first(padding_after(b_.length))); }

 private:
  static constexpr std::size_t copy_limit = 256;
  data_file_stream::batch& b_;
};

}  // namespace

data_file_stream::data_file_stream(const fs::path& dir, const file_identity& id, std::uint32_t process)
    : impl_(std::make_unique<impl>(dir, id, process)) {}

data_file_stream::~data_file_stream() = default;

data_file_stream::record_crcs data_file_stream::crcs_of(const record_out& record) {
  return {crc_of(record.meta), crc_of(record.state)};
}

data_file_stream::batch data_file_stream::prepare(std::span<const record_out> records,
                                                  std::span<const record_crcs> crcs) {
  batch b;
  batch_layout out(b);
  for (std::size_t i = 0; i < records.size(); ++i) {
    const record_out& record = records[i];
    if (record.meta.size() > std::numeric_limits<std::uint32_t>::max())
      throw checkpoint_error("a record's meta of " + n_bytes(record.meta.size()) + " is more than a record holds");
    const auto header = record_header(record.state.size(), static_cast<std::uint32_t>(record.meta.size()),
                                      crcs[i].meta, crcs[i].state);
    out.add(header);
    out.add(record.meta, crcs[i].meta);
    out.pad();
    out.add(record.state, crcs[i].state);
    out.pad();
  }
  b.records = static_cast<std::uint32_t>(records.size());
  return b;
}

std::uint64_t data_file_stream::reserve(const batch& b) {
  impl& d = *impl_;
  if (d.finished) fail(d.path, "a batch after the end");
  const std::uint64_t offset = d.end;
  d.end += b.length;
  d.crc = crc32c_combine(d.crc, b.crc, b.length);
  d.records += b.records;
  if (d.records > std::numeric_limits<std::uint32_t>::max())
    fail(d.path, std::to_string(d.records) + " records, more than a data file holds");
  return offset;
}

void data_file_stream::write(const batch& b, std::uint64_t offset) {
  impl& d = *impl_;
  std::vector<iovec> iov;
  iov.reserve(b.pieces.size());
  for (const batch::piece& p : b.pieces) {
    const std::byte* base = p.external != nullptr ? p.external : b.scratch.data() + p.offset;
    iov.push_back({const_cast<std::byte*>(base), p.length});  // pwritev does not write to it
  }
  d.write_pieces(iov, offset);
#ifdef SYNC_FILE_RANGE_WRITE
  // The disk starts on this batch now, not at fsync: it works while the PEs pack the next.
  if (b.length)
    ::sync_file_range(d.fd, static_cast<off_t>(offset), static_cast<off_t>(b.length), SYNC_FILE_RANGE_WRITE);
#endif
}

void data_file_stream::append(std::span<const record_out> records, std::span<const record_crcs> crcs) {
  const batch b = prepare(records, crcs);
  write(b, reserve(b));
}

file_entry data_file_stream::finish(bool sync) {
  impl& d = *impl_;
  if (d.finished) fail(d.path, "finished twice");
  const auto count = static_cast<std::uint32_t>(d.records);
  const std::uint64_t length = d.end + footer_at::end;
  header_and_footer h = seal_of(d.id, d.process, count, d.crc, length);
  const std::uint32_t file_crc = h.file_crc;
  std::vector<iovec> tail{{h.footer.data(), h.footer.size()}};
  d.write_pieces(tail, d.end);
  std::vector<iovec> head{{h.header.data(), h.header.size()}};
  d.write_pieces(head, 0);
  if (sync && ::fsync(d.fd) != 0) fail_errno(d.path, "fsync");
  if (::close(std::exchange(d.fd, -1)) != 0) fail_errno(d.path, "close");
  d.finished = true;
  return file_entry{d.name, length, file_crc, count};
}

std::uint64_t record_length(std::size_t meta, std::size_t state) {
  const std::uint64_t before_state = record_at::end + meta;
  const std::uint64_t with_state = before_state + padding_after(before_state) + state;
  return with_state + padding_after(with_state);
}

std::size_t first_record_offset() { return header_at::end; }

std::uint64_t data_file_length(std::uint64_t records_length) {
  return header_at::end + records_length + footer_at::end;
}

std::span<std::byte> record_writer::begin_record(std::span<const std::byte> meta, std::size_t state) {
  if (meta.size() > std::numeric_limits<std::uint32_t>::max())
    throw checkpoint_error("a record's meta of " + n_bytes(meta.size()) + " is more than a record holds");
  const std::uint64_t length = record_length(meta.size(), state);
  if (length > stretch_.size() - at_)
    throw checkpoint_error("in-memory data file, record " + std::to_string(records_) + ": " + n_bytes(length) +
                           " do not fit in the " + n_bytes(stretch_.size() - at_) +
                           " left of its stretch (a state changed size between sizing and packing)");
  record_ = at_;
  std::byte* record = stretch_.data() + record_;
  put_u64(record + record_at::state_length, state);  // end_record reads the lengths back
  put_u32(record + record_at::meta_length, static_cast<std::uint32_t>(meta.size()));
  std::byte* meta_at = record + record_at::end;
  if (!meta.empty()) std::memcpy(meta_at, meta.data(), meta.size());
  meta_crc_ = crc_of(meta);
  const std::size_t before_state = record_at::end + meta.size();
  std::memset(meta_at + meta.size(), 0, padding_after(before_state));
  at_ = record_ + length;
  return {record + before_state + padding_after(before_state), state};
}

void record_writer::end_record() {
  std::byte* record = stretch_.data() + record_;
  const std::uint64_t state_length = get_u64(record + record_at::state_length);
  const std::uint32_t meta_length = get_u32(record + record_at::meta_length);
  const std::size_t before_state = record_at::end + meta_length;
  const std::size_t meta_padding = padding_after(before_state);
  const bytes_view state(record + before_state + meta_padding, static_cast<std::size_t>(state_length));
  const std::uint64_t with_state = before_state + meta_padding + state_length;
  std::memset(record + with_state, 0, padding_after(with_state));
  const std::uint32_t state_crc = crc_of(state);
  const auto header = record_header(state_length, meta_length, meta_crc_, state_crc);
  std::memcpy(record, header.data(), header.size());
  crc_ = crc_of(bytes_view(record, before_state + meta_padding), crc_);
  crc_ = extend_crc(crc_, state, state_crc);
  crc_ = crc_of(bytes_view(record + with_state, padding_after(with_state)), crc_);
  ++records_;
}

file_entry seal_data_file(std::span<std::byte> file, const file_identity& id, std::uint32_t process,
                          std::uint32_t records, std::uint32_t records_crc) {
  if (file.size() < header_at::end + footer_at::end)
    throw checkpoint_error("memory/" + data_file_name(process) + ": " + n_bytes(file.size()) +
                           " is too short for a data file");
  const header_and_footer h = seal_of(id, process, records, records_crc, file.size());
  std::memcpy(file.data(), h.header.data(), h.header.size());
  std::memcpy(file.data() + file.size() - footer_at::end, h.footer.data(), h.footer.size());
  return file_entry{data_file_name(process), file.size(), h.file_crc, records};
}

fs::path begin_checkpoint(const fs::path& root, std::uint64_t number) {
  const fs::file_status root_status = status_of(root);
  if (fs::exists(root_status) && !fs::is_directory(root_status))
    fail(root, "not a directory, so it cannot hold checkpoints");
  std::error_code ec;
  const bool created = fs::create_directories(root, ec);
  if (ec) fail(root, "cannot create the checkpoint directory: " + ec.message());
  if (created) sync_parent_best_effort(root);
  const fs::path partial = root / (checkpoint_dir_name(number) + std::string(partial_suffix));
  fs::remove_all(partial, ec);
  if (ec) fail(partial, "cannot remove the stale partial checkpoint: " + ec.message());
  if (!fs::create_directory(partial, ec)) {
    if (ec) fail(partial, "cannot create: " + ec.message());
    fail(partial, "cannot create: appeared meanwhile (another writer?)");
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
  if (keep != 0) prune(root, id.number, keep);
  return final_dir;
}

void prune_checkpoints(const fs::path& root, std::uint64_t newest, std::uint32_t keep) noexcept {
  if (keep != 0) prune(root, newest, keep);
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

std::uint64_t last_number(const fs::path& root) {
  const fs::file_status status = status_of(root);
  if (!fs::exists(status)) return 0;
  if (!fs::is_directory(status)) fail(root, "not a directory, so it cannot hold checkpoints");
  const checkpoint_listing listing = list_checkpoints(root);
  std::uint64_t last = 0;
  for (const auto& complete : listing.complete) last = std::max(last, complete.first);
  for (const auto& partial : listing.partial) last = std::max(last, partial.first);
  return last;
}

fs::path resolve_checkpoint(const fs::path& path) {
  const fs::file_status status = status_of(path);
  if (!fs::exists(status)) fail(path, "does not exist");
  if (!fs::is_directory(status))
    fail(path, "is not a directory (expected a checkpoint directory or the directory holding them)");
  std::error_code ec;
  if (fs::exists(path / manifest_name, ec)) return path;

  const checkpoint_listing listing = list_checkpoints(path);
  if (!listing.complete.empty()) return listing.complete.front().second;
  const auto own_name = parse_dir_name(without_trailing_separator(path).filename().string());
  if (own_name && own_name->partial)
    fail(path, "is a partial (incomplete) checkpoint: it has no manifest, its writing never finished");
  if (!listing.partial.empty()) {
    std::string names;
    for (const auto& partial : listing.partial)
      names += (names.empty() ? "" : ", ") + partial.second.filename().string();
    fail(path, "contains only partial (incomplete) checkpoints: " + names);
  }
  fail(path, "contains no checkpoint (no manifest, no " + std::string(dir_prefix) + "NNNNNNNN directory)");
}

// ---------------------------------------------------------------------------

/// A read-only private mapping of one whole file; empty files map to nothing.
struct loaded_checkpoint::mapping {
  const std::byte* data = nullptr;
  std::size_t size = 0;

  mapping(const fs::path& path, const std::string& reason_if_missing) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) fail(path, reason_if_missing);
      fail_errno(path, "cannot open");
    }
    struct closer {
      int fd;
      ~closer() { ::close(fd); }  // read-only: a failing close loses nothing
    } close_at_exit{fd};
    struct stat info;
    if (::fstat(fd, &info) != 0) fail_errno(path, "cannot stat");
    if (!S_ISREG(info.st_mode)) fail(path, "not a regular file");
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
  if (!manifest) fail(manifest_path, "missing: not a complete checkpoint");
  manifest_contents contents = check_manifest(manifest->bytes(), manifest_path, program_hash);
  id_ = contents.id;
  blob_ = contents.program_blob;
  files_ = std::move(contents.files);
  bytes_ = manifest->bytes().size();
  regions_.push_back(manifest);
  if (files.size() != files_.size())
    fail(manifest_path, "lists " + std::to_string(files_.size()) + " data files, " + std::to_string(files.size()) +
                            " are held");
  for (std::uint32_t i = 0; i < files_.size(); ++i) {
    const file_entry& entry = files_[i];
    const fs::path path = dir_ / entry.name;
    if (!files[i]) fail(path, "missing: " + entry.name + " listed in the manifest");
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
