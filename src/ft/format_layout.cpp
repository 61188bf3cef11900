// The encoders every writer of a checkpoint shares: file headers, a data
// file's header and footer, the manifest's bytes. The offsets they write at
// are in format_layout.hpp; the checks that read them back, format_checks.cpp.
#include <algorithm>

#include "format_errors.hpp"
#include "format_layout.hpp"

namespace roam::detail::ckpt {

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

namespace {

std::uint64_t manifest_entry_size(const file_entry& entry) {
  const std::uint64_t unpadded = entry_at::end + entry.name.size();
  return unpadded + padding_after(unpadded);
}

}  // namespace

// The manifest's bytes: header, program blob, file table, CRC of all before it.
std::vector<std::byte> manifest_bytes(const file_identity& id, std::span<const std::byte> program_blob,
                                      std::span<const file_entry> files) {
  std::uint64_t length = header_at::end + blob_length_size + program_blob.size() + padding_after(program_blob.size());
  for (const file_entry& entry : files) length += manifest_entry_size(entry);
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
  if (out.size() != length)
    throw checkpoint_error("internal error: a manifest of " + n_bytes(out.size()) + ", expected " + n_bytes(length));
  return out;
}

}  // namespace roam::detail::ckpt
