// Decoding a checkpoint's files and checking every field, with the error
// that names what is wrong: which file, which record (and, when its meta is
// intact, which object), which field and why ("truncated", "corrupted",
// "written by another program", "malformed"). The order of the checks is
// part of the messages: the magic and version before the header's CRC (so
// another kind of file says so rather than "CRC mismatch"), a CRC before the
// fields it covers.
#include "format_checks.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

#include "format_errors.hpp"

namespace roam::detail::ckpt {

namespace fs = std::filesystem;

namespace {

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
    fail_at(path, "not a roam checkpoint (it does not start with \"ROAMCKPT\")");
  auto truncated = [&] {
    fail_at(path, "truncated: " + n_bytes(file.size()) + ", shorter than a header (" + n_bytes(header_at::end) + ")");
  };
  if (file.size() < header_at::version + 4) truncated();
  const std::uint32_t version = get_u32(file.data() + header_at::version);
  if (version != format_version)
    fail_at(path, "format version " + std::to_string(version) + ", this roam reads " + std::to_string(format_version));
  if (file.size() < header_at::end) truncated();
  const std::uint32_t stored = get_u32(file.data() + header_at::crc);
  const std::uint32_t computed = crc32c(file.data(), header_at::crc);
  if (stored != computed) fail_at(path, crc_mismatch("header", stored, computed));
  // After the CRC: a corrupt kind is "corrupted", an intact one means swapped files.
  const std::uint32_t kind = get_u32(file.data() + header_at::kind);
  if (kind != expected_kind) fail_at(path, "a " + kind_name(kind) + ", expected a " + kind_name(expected_kind));
  if (get_u32(file.data() + header_at::reserved) != 0) fail_at(path, "header: reserved field is not zero");

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

/// The manifest's body, once its CRC holds: a failure here means a writer
/// bug or a forged file, hence "malformed".
manifest_contents parse_manifest_body(bytes_view file, const fs::path& path, const file_identity& id) {
  manifest_contents m;
  m.id = id;
  const std::size_t end = file.size() - manifest_crc_size;
  std::size_t at = header_at::end;
  auto take = [&](std::uint64_t n, const std::string& what) {
    if (n > end - at) fail_at(path, "malformed: " + what + " runs past the end");
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
      fail_at(path, "malformed: " + entry_label + " names '" + entry.name + "', expected '" + data_file_name(i) + "'");
    m.files.push_back(std::move(entry));
  }
  if (at != end) fail_at(path, "malformed: " + n_bytes(end - at) + " after the file table");
  return m;
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

}  // namespace

manifest_contents check_manifest(bytes_view file, const fs::path& path, std::uint64_t program_hash) {
  const parsed_header h = check_header(file, path, manifest_kind);
  if (h.id.program_hash != program_hash)
    fail_at(path, "written by another program or another version of it (entry-table hash " + hex64(h.id.program_hash) +
                      ", this program's " + hex64(program_hash) + ")");
  if (file.size() < h.manifest_length)
    fail_at(path, "truncated: " + n_bytes(file.size()) + ", its header says " + n_bytes(h.manifest_length));
  if (file.size() > h.manifest_length)
    fail_at(path, n_bytes(file.size()) + ", its header says " + n_bytes(h.manifest_length) + ": bytes were appended");
  if (file.size() < smallest_manifest)
    fail_at(path, "malformed: its header says " + n_bytes(h.manifest_length) + ", less than any manifest");
  const std::uint32_t stored = get_u32(file.data() + file.size() - manifest_crc_size);
  const std::uint32_t computed = crc32c(file.data(), file.size() - manifest_crc_size);
  if (stored != computed) fail_at(path, crc_mismatch("manifest", stored, computed));
  return parse_manifest_body(file, path, h.id);
}

void check_data_header(bytes_view file, const fs::path& path, const file_identity& manifest_id, std::uint32_t process,
                       const file_entry& entry) {
  const parsed_header h = check_header(file, path, data_kind);
  if (h.id.program_hash != manifest_id.program_hash)
    fail_at(path, "written by another program (entry-table hash " + hex64(h.id.program_hash) + ", the manifest's " +
                      hex64(manifest_id.program_hash) + ")");
  if (h.id.number != manifest_id.number)
    fail_at(path, "from checkpoint number " + std::to_string(h.id.number) + ", the manifest's is " +
                      std::to_string(manifest_id.number));
  if (h.id.processes != manifest_id.processes || h.id.pes != manifest_id.pes)
    fail_at(path, "written by a run of " + std::to_string(h.id.processes) + " processes and " +
                      std::to_string(h.id.pes) + " PEs, the manifest says " + std::to_string(manifest_id.processes) +
                      " and " + std::to_string(manifest_id.pes));
  if (h.process != process)
    fail_at(path,
         "holds the records of process " + std::to_string(h.process) + ", expected process " + std::to_string(process));
  if (file.size() < entry.size)
    fail_at(path, "truncated: " + n_bytes(file.size()) + ", the manifest lists " + n_bytes(entry.size));
  if (file.size() > entry.size) fail_at(path, n_bytes(file.size()) + ", the manifest lists " + n_bytes(entry.size));
  if (file.size() < header_at::end + footer_at::end)
    fail_at(path, "truncated: " + n_bytes(file.size()) + ", shorter than a header and a footer");
  if (h.records != entry.records)
    fail_at(path, std::to_string(h.records) + " records, the manifest lists " + std::to_string(entry.records));
}

std::uint32_t check_records(bytes_view file, const fs::path& path, std::uint32_t count, describe_fn describe,
                            std::uint32_t file_index, std::vector<record_in>& out) {
  const std::size_t end = file.size() - footer_at::end;
  std::size_t at = header_at::end;
  std::uint32_t running = crc32c(file.data(), header_at::end);
  for (std::uint32_t i = 0; i < count; ++i) {
    const bytes_view* intact_meta = nullptr;
    auto fail_record = [&](const std::string& reason) {
      fail_at(path, record_label(i, describe, intact_meta) + ": " + reason);
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
  if (at != end) fail_at(path, n_bytes(end - at) + " between the last record and the footer");
  return running;
}

void check_footer(bytes_view file, const fs::path& path, std::uint32_t records, std::uint32_t running,
                  const file_entry& entry) {
  const std::byte* footer = file.data() + file.size() - footer_at::end;
  const std::uint64_t length = get_u64(footer + footer_at::file_length);
  if (length != file.size())
    fail_at(path, "footer: file length " + std::to_string(length) + ", the file is " + n_bytes(file.size()));
  const std::uint32_t footer_records = get_u32(footer + footer_at::records);
  if (footer_records != records)
    fail_at(path, "footer: " + std::to_string(footer_records) + " records, the header says " + std::to_string(records));
  const std::uint32_t computed = crc32c(footer, footer_at::file_crc, running);
  const std::uint32_t stored = get_u32(footer + footer_at::file_crc);
  if (stored != computed) fail_at(path, crc_mismatch("file", stored, computed));
  if (computed != entry.crc)
    fail_at(path, "file CRC-32C " + hex32(computed) + ", the manifest lists " + hex32(entry.crc) +
                      ": not the file the manifest was written with");
}

}  // namespace roam::detail::ckpt
