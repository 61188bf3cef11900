// Writing a data file to disk as a stream of batches (data_file_stream,
// format.hpp says how the PEs share one file): each batch laid out apart
// (record headers, padding, its CRC), given its stretch of the file, written
// there with pwritev, its write-back started; the header last. Also
// write_data_file, the same for records all known at once.
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <limits>
#include <optional>
#include <utility>

#include "format_errors.hpp"
#include "format_layout.hpp"

namespace roam::detail::ckpt {

namespace fs = std::filesystem;

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
      if (written == 0) fail_at(path, "write: no progress (0 bytes written)");
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
  if (d.finished) fail_at(d.path, "a batch after the end");
  const std::uint64_t offset = d.end;
  d.end += b.length;
  d.crc = crc32c_combine(d.crc, b.crc, b.length);
  d.records += b.records;
  if (d.records > std::numeric_limits<std::uint32_t>::max())
    fail_at(d.path, std::to_string(d.records) + " records, more than a data file holds");
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
  if (d.finished) fail_at(d.path, "finished twice");
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

}  // namespace roam::detail::ckpt
