#pragma once
// The on-disk form of a checkpoint, apart from what the runtime puts in it:
// a directory per checkpoint, one data file per process, a manifest written
// last, every part checked by CRC-32C, and the atomic publication of the
// whole (docs/design/checkpoint-format.md has the byte layout). Knows nothing of
// objects: a record is two opaque blobs, `meta` (the runtime's description
// of the object) and `state` (its pup), each with its own CRC.
//
//   DIR/ckpt-00000007.partial/   being written (or left by a crash: ignored, removed later)
//   DIR/ckpt-00000007/           complete: renamed from .partial after its manifest was fsynced
//       manifest                 header, the runtime's program-wide blob, the table of data files
//       process-0000.dat ...     header, records, footer (count, file CRC)
//
// Implemented by concern in format_*.cpp (src/ft/README.md has the map):
// the byte layout, streaming to disk, in-memory files, directories,
// publication and pruning, the checks on load, loading.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace roam::detail::ckpt {

inline constexpr std::uint32_t format_version = 1;

/// A checkpoint that cannot be read, written or trusted. what() names the
/// file (and the record, when one is at fault) and the reason.
class checkpoint_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What both kinds of file start with (after the magic and version).
struct file_identity {
  std::uint64_t program_hash = 0;  ///< the program's entry-table hash: another binary differs
  std::uint64_t number = 0;        ///< the checkpoint's sequence number (1, 2, ...)
  std::uint32_t processes = 0;     ///< process count of the run that wrote it
  std::uint32_t pes = 0;           ///< PE count of the run that wrote it
};

/// Read-only bytes kept alive by shared ownership: an in-memory data file,
/// a manifest, a copy received from another process.
class byte_region {
 public:
  virtual ~byte_region() = default;
  virtual std::span<const std::byte> bytes() const noexcept = 0;
};
std::shared_ptr<const byte_region> region_of(std::vector<std::byte> bytes);
std::shared_ptr<const byte_region> region_copy_of(std::span<const std::byte> bytes);

/// One piece of a record to write: a span that must stay valid until
/// write_data_file returns (written with writev, not copied).
struct record_out {
  std::span<const std::byte> meta;
  std::span<const std::byte> state;
};

/// What the manifest says of one data file.
struct file_entry {
  std::string name;  ///< "process-0003.dat"
  std::uint64_t size = 0;
  std::uint32_t crc = 0;  ///< CRC-32C of the whole file
  std::uint32_t records = 0;
};

/// "ckpt-00000007" and "process-0003.dat".
std::string checkpoint_dir_name(std::uint64_t number);
std::string data_file_name(std::uint32_t process);

/// Writes `dir/data_file_name(process)` (dir: the .partial directory, which
/// exists): header, the records, footer; fsyncs it. Throws checkpoint_error
/// naming the path and the errno text on any failure (ENOSPC, EACCES, EFBIG, ...),
/// after removing what it wrote. Returns the entry the manifest lists.
file_entry write_data_file(const std::filesystem::path& dir, const file_identity& id, std::uint32_t process,
                           std::span<const record_out> records);

/// The same file written in batches, as a process's PEs pack their objects:
/// each PE lays out its batch (prepare: record headers, padding, the batch's
/// CRC) on its own, takes the next stretch of the file (reserve: the only
/// step the caller serialises, which also folds the batch's CRC into the
/// file's), then writes it there (write, with pwritev, while other PEs write
/// theirs) and starts its write-back to the disk (sync_file_range), so
/// packing, copying and the disk overlap and a PE's packed states can be
/// freed after its batch. The header, whose record count is known only at
/// the end, is written last (finish, once every write returned). Any failure
/// throws checkpoint_error (naming the path and errno's text); destroying a
/// stream that did not finish removes its file.
class data_file_stream {
 public:
  data_file_stream(const std::filesystem::path& dir, const file_identity& id, std::uint32_t process);
  ~data_file_stream();
  data_file_stream(const data_file_stream&) = delete;
  data_file_stream& operator=(const data_file_stream&) = delete;

  /// The CRCs a batch's records need, computed by the caller (outside any
  /// lock: each PE its own) before append.
  struct record_crcs {
    std::uint32_t meta = 0, state = 0;
  };
  static record_crcs crcs_of(const record_out& record);

  /// Records laid out as they will be in the file (the records' bytes are
  /// referenced, not copied: they must outlive write).
  struct batch {
    std::vector<std::byte> scratch;  ///< record headers and padding
    struct piece {
      const std::byte* external;  ///< null: in scratch from offset
      std::size_t offset, length;
    };
    std::vector<piece> pieces;
    std::uint64_t length = 0;
    std::uint32_t crc = 0;  ///< of the batch's bytes alone
    std::uint32_t records = 0;
  };
  static batch prepare(std::span<const record_out> records, std::span<const record_crcs> crcs);
  /// The file offset the batch goes to (serialise calls).
  std::uint64_t reserve(const batch& b);
  /// Writes the batch at its offset (concurrent calls for different batches are fine).
  void write(const batch& b, std::uint64_t offset);
  /// Appends records in order, after earlier batches: prepare, reserve, write.
  void append(std::span<const record_out> records, std::span<const record_crcs> crcs);
  /// Footer, header, fsync (unless !sync), close: the file is complete (serialise with reserve).
  file_entry finish(bool sync = true);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// An in-memory data file built in place (checkpoint_in_memory): every
/// record's length is known before any state is packed (state_size), so the
/// process allocates the whole file once and each PE lays its records into
/// its own stretch of it in parallel, packing each state straight to where
/// it stays. Nothing is copied after packing: the same bytes are the
/// process's copy and, shared, the message to its buddy. The bytes are those
/// data_file_stream writes (one reader for both).
///
///   file: [header][stretch of PE 0][stretch of PE 1]...[footer]
std::uint64_t record_length(std::size_t meta, std::size_t state);
/// Where the first record starts (the header's length).
std::size_t first_record_offset();
/// A data file's length for records of `records_length` bytes in all.
std::uint64_t data_file_length(std::uint64_t records_length);

/// Lays records out in one stretch of an in-memory data file (the stretch
/// starts at first_record_offset() plus whole records, so alignment holds).
class record_writer {
 public:
  explicit record_writer(std::span<std::byte> stretch) : stretch_(stretch) {}
  /// Copies the record's meta in and returns where its state goes (exactly
  /// `state` bytes); the caller packs it there, then calls end_record.
  std::span<std::byte> begin_record(std::span<const std::byte> meta, std::size_t state);
  /// Completes the record begun last: the state's CRC, the record header.
  void end_record();
  std::uint64_t length() const noexcept { return at_; }
  std::uint32_t crc() const noexcept { return crc_; }  ///< of the bytes laid out so far
  std::uint32_t records() const noexcept { return records_; }

 private:
  std::span<std::byte> stretch_;
  std::uint64_t at_ = 0;      // where the next record starts
  std::uint64_t record_ = 0;  // where the one begun last starts
  std::uint32_t meta_crc_ = 0;
  std::uint32_t crc_ = 0;
  std::uint32_t records_ = 0;
};

/// Writes the header and footer of an in-memory data file whose records
/// (every byte between first_record_offset() and the footer; `records_crc`
/// their CRC) are in place. Returns the manifest's entry for it.
file_entry seal_data_file(std::span<std::byte> file, const file_identity& id, std::uint32_t process,
                          std::uint32_t records, std::uint32_t records_crc);

/// A manifest's bytes (what publish_checkpoint writes), for an in-memory checkpoint.
std::vector<std::byte> manifest_bytes(const file_identity& id, std::span<const std::byte> program_blob,
                                      std::span<const file_entry> files);

/// Creates `root/ckpt-<number>.partial/` (and root itself if missing; a
/// stale .partial of the same number is removed first). Throws checkpoint_error.
std::filesystem::path begin_checkpoint(const std::filesystem::path& root, std::uint64_t number);

/// Writes the manifest into the .partial directory and fsyncs it, then
/// renames the directory to its final name and fsyncs `root`; then removes
/// complete checkpoints older than the newest `keep` (keep >= 1) and every
/// other .partial directory. A failure before the rename leaves the
/// previous checkpoints as they were (and removes the .partial directory).
/// Returns the final directory. Throws checkpoint_error. keep == 0: nothing
/// is removed (the caller prunes later, with prune_checkpoints). sync ==
/// false: no fsync of the manifest and the directories (checkpoint_options::durable).
std::filesystem::path publish_checkpoint(const std::filesystem::path& partial, const file_identity& id,
                                         std::span<const std::byte> program_blob, std::span<const file_entry> files,
                                         std::uint32_t keep, bool sync = true);
/// What publish_checkpoint's pruning does, on its own: keeps the newest
/// `keep` complete checkpoints up to `newest` in `root` (never throws).
void prune_checkpoints(const std::filesystem::path& root, std::uint64_t newest, std::uint32_t keep) noexcept;

/// Removes a .partial directory after a failed checkpoint (never throws).
void abandon_checkpoint(const std::filesystem::path& partial) noexcept;

/// The highest checkpoint number in `root` (complete or partial), 0 if none:
/// the next checkpoint takes the number after it.
std::uint64_t last_number(const std::filesystem::path& root);

/// `path` itself if it holds a manifest; else the newest complete
/// checkpoint directory in it. Throws checkpoint_error when there is none
/// (naming what it found: nothing, only partial ones, not a directory).
std::filesystem::path resolve_checkpoint(const std::filesystem::path& path);

/// A record read back: spans into the loaded file (valid while the
/// loaded_checkpoint lives), both CRCs already checked.
struct record_in {
  std::span<const std::byte> meta;
  std::span<const std::byte> state;
  std::uint32_t file = 0;    ///< index into loaded_checkpoint::files
  std::uint32_t number = 0;  ///< its position in that file, from 0
};

/// A whole checkpoint, read and checked: every header field, every CRC
/// (manifest, each file, each record), sizes and counts. Construction is all
/// or nothing: it throws checkpoint_error naming the file, the record (its
/// number; `describe(meta)` adds the object when the meta itself is intact)
/// and the reason. The files are memory-mapped, not copied.
class loaded_checkpoint {
 public:
  /// `dir`: a checkpoint directory (see resolve_checkpoint). `program_hash`:
  /// this binary's; a different one is rejected ("written by another
  /// program or another version of it").
  loaded_checkpoint(const std::filesystem::path& dir, std::uint64_t program_hash,
                    std::string (*describe)(std::span<const std::byte> meta) = nullptr);
  /// An in-memory checkpoint: its manifest and data files (by process) with
  /// the same checks; `label` stands for the directory in messages.
  loaded_checkpoint(const std::string& label, std::shared_ptr<const byte_region> manifest,
                    std::vector<std::shared_ptr<const byte_region>> files, std::uint64_t program_hash,
                    std::string (*describe)(std::span<const std::byte> meta) = nullptr);
  ~loaded_checkpoint();
  loaded_checkpoint(const loaded_checkpoint&) = delete;
  loaded_checkpoint& operator=(const loaded_checkpoint&) = delete;

  const std::filesystem::path& dir() const noexcept { return dir_; }
  const file_identity& identity() const noexcept { return id_; }
  std::span<const std::byte> program_blob() const noexcept { return blob_; }
  const std::vector<file_entry>& files() const noexcept { return files_; }
  /// Every record of every file, file by file, in file order.
  const std::vector<record_in>& records() const noexcept { return records_; }
  /// Total bytes of the files read (manifest included).
  std::uint64_t bytes() const noexcept { return bytes_; }
  /// "DIR/ckpt-00000007/process-0001.dat"
  std::string file_path(std::uint32_t file) const;

 private:
  struct mapping;
  std::filesystem::path dir_;
  file_identity id_;
  std::span<const std::byte> blob_;
  std::vector<file_entry> files_;
  std::vector<record_in> records_;
  std::vector<std::unique_ptr<mapping>> maps_;
  std::vector<std::shared_ptr<const byte_region>> regions_;
  std::uint64_t bytes_ = 0;
};

}  // namespace roam::detail::ckpt
