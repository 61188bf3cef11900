// In-memory data files (checkpoint_in_memory), built in place: the sizes
// that let a process allocate the whole file before anything is packed
// (record_length, data_file_length), record_writer laying a PE's records into
// its stretch, seal_data_file writing the header and footer once all are in;
// and the byte regions that keep such files, and copies of them, alive. The
// bytes are those format_stream.cpp writes to disk: one reader for both.
#include <cstring>
#include <limits>
#include <utility>

#include "format_errors.hpp"
#include "format_layout.hpp"

namespace roam::detail::ckpt {

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

}  // namespace roam::detail::ckpt
