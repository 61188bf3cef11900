#include "format.hpp"

#include <roam/msg/detail/crc32c.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace format_test {

namespace {

namespace ckpt = roam::detail::ckpt;
namespace fs = std::filesystem;
using bytes = std::vector<std::byte>;

constexpr std::uint64_t this_program = 0x0123456789ABCDEFull;
constexpr std::size_t mib = 1024 * 1024;

/// A fresh directory per test, removed at the end.
class temp_dir {
 public:
  temp_dir() {
    static int counter = 0;
    path_ =
        fs::temp_directory_path() / ("roam-ft-format-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~temp_dir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;

  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

bytes pattern(std::size_t n, std::uint32_t seed) {
  bytes b(n);
  std::uint32_t x = seed * 2654435761u + 1;
  for (auto& v : b) {
    x = x * 1664525u + 1013904223u;
    v = static_cast<std::byte>(x >> 24);
  }
  return b;
}

bytes text(std::string_view s) {
  bytes b(s.size());
  std::transform(s.begin(), s.end(), b.begin(), [](char c) { return static_cast<std::byte>(c); });
  return b;
}

struct record {
  bytes meta;
  bytes state;
};
using file_content = std::vector<record>;

ckpt::file_identity identity(std::uint64_t number, std::uint32_t processes) {
  return {this_program, number, processes, processes * 2};
}

std::vector<ckpt::record_out> record_outs(const file_content& content) {
  std::vector<ckpt::record_out> outs;
  for (const record& r : content) outs.push_back({r.meta, r.state});
  return outs;
}

const bytes program_blob = pattern(1000, 99);

/// Writes and publishes checkpoint `number` of `files.size()` processes.
fs::path write_checkpoint(const fs::path& root, std::uint64_t number, const std::vector<file_content>& files,
                          std::uint32_t keep = 3) {
  const auto id = identity(number, static_cast<std::uint32_t>(files.size()));
  const fs::path partial = ckpt::begin_checkpoint(root, number);
  std::vector<ckpt::file_entry> entries;
  for (std::uint32_t p = 0; p < files.size(); ++p)
    entries.push_back(ckpt::write_data_file(partial, id, p, record_outs(files[p])));
  return ckpt::publish_checkpoint(partial, id, program_blob, entries, keep);
}

/// A few small files: enough to reach every kind of byte, cheap to load a thousand times.
std::vector<file_content> small_content() {
  file_content first{{text("cell[0]"), pattern(16, 1)}};
  file_content second;
  const std::size_t state_sizes[] = {0, 1, 7, 300, 5000, 64};
  for (std::size_t i = 0; i < std::size(state_sizes); ++i)
    second.push_back(
        {text("cell[" + std::to_string(i) + "]"), pattern(state_sizes[i], 100 + static_cast<std::uint32_t>(i))});
  return {first, second};
}

bytes read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  bytes b(chars.size());
  std::transform(chars.begin(), chars.end(), b.begin(), [](char c) { return static_cast<std::byte>(c); });
  return b;
}

void write_file(const fs::path& path, std::span<const std::byte> contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(contents.data()), static_cast<std::streamsize>(contents.size()));
}

bool equal(std::span<const std::byte> a, std::span<const std::byte> b) { return std::ranges::equal(a, b); }

/// The message loading `dir` throws with, or "" when it loads.
std::string load_error(const fs::path& dir, std::uint64_t program_hash = this_program,
                       std::string (*describe)(std::span<const std::byte>) = nullptr) {
  try {
    ckpt::loaded_checkpoint loaded(dir, program_hash, describe);
    return "";
  } catch (const ckpt::checkpoint_error& e) {
    return e.what();
  }
}

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string hex64(std::uint64_t v) {
  char s[24];
  std::snprintf(s, sizeof s, "0x%016llx", static_cast<unsigned long long>(v));
  return s;
}

std::vector<std::string> entries_of(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST(checkpoint_format, names_directories_and_files) {
  EXPECT_EQ(ckpt::checkpoint_dir_name(7), "ckpt-00000007");
  EXPECT_EQ(ckpt::checkpoint_dir_name(123456789), "ckpt-123456789");
  EXPECT_EQ(ckpt::data_file_name(3), "process-0003.dat");
}

TEST(checkpoint_format, round_trip_keeps_every_blob_in_order) {
  temp_dir tmp;
  // More pieces than IOV_MAX in the third file, pieces on both sides of the
  // copy limit and of the CRC combination threshold.
  const std::size_t sizes[] = {0, 1, 7, 4096, 300};
  file_content many;
  for (std::uint32_t i = 0; i < 1200; ++i)
    many.push_back({pattern(sizes[i % 5], i), pattern(sizes[(i * 3 + 1) % 5], 5000 + i)});
  many.push_back({pattern(mib, 1), pattern(7, 2)});
  many.push_back({text("big"), pattern(mib, 3)});
  const std::vector<file_content> files = {{}, {{text("cell[1,2,3]"), pattern(1, 4)}}, many};

  const fs::path dir = write_checkpoint(tmp.path(), 5, files);
  EXPECT_EQ(dir, tmp.path() / "ckpt-00000005");
  EXPECT_EQ(entries_of(tmp.path()), std::vector<std::string>{"ckpt-00000005"});
  EXPECT_EQ(ckpt::resolve_checkpoint(tmp.path()), dir);
  EXPECT_EQ(ckpt::resolve_checkpoint(dir), dir);

  ckpt::loaded_checkpoint loaded(ckpt::resolve_checkpoint(tmp.path()), this_program);
  EXPECT_EQ(loaded.dir(), dir);
  EXPECT_EQ(loaded.identity().program_hash, this_program);
  EXPECT_EQ(loaded.identity().number, 5u);
  EXPECT_EQ(loaded.identity().processes, 3u);
  EXPECT_EQ(loaded.identity().pes, 6u);
  EXPECT_TRUE(equal(loaded.program_blob(), program_blob));

  ASSERT_EQ(loaded.files().size(), 3u);
  std::uint64_t total = fs::file_size(dir / "manifest");
  for (std::uint32_t f = 0; f < 3; ++f) {
    const ckpt::file_entry& entry = loaded.files()[f];
    EXPECT_EQ(entry.name, ckpt::data_file_name(f));
    EXPECT_EQ(loaded.file_path(f), (dir / entry.name).string());
    EXPECT_EQ(entry.records, files[f].size());
    const bytes on_disk = read_file(dir / entry.name);
    EXPECT_EQ(entry.size, on_disk.size());
    // Independent of the writer's CRC combination: one pass over the whole file.
    EXPECT_EQ(entry.crc, roam::detail::crc32c(on_disk.data(), on_disk.size() - 4));
    total += entry.size;
  }
  EXPECT_EQ(loaded.bytes(), total);

  std::size_t at = 0;
  for (std::uint32_t f = 0; f < 3; ++f) {
    for (std::uint32_t n = 0; n < files[f].size(); ++n, ++at) {
      ASSERT_LT(at, loaded.records().size());
      const ckpt::record_in& r = loaded.records()[at];
      EXPECT_EQ(r.file, f);
      EXPECT_EQ(r.number, n);
      EXPECT_TRUE(equal(r.meta, files[f][n].meta)) << "file " << f << " record " << n;
      EXPECT_TRUE(equal(r.state, files[f][n].state)) << "file " << f << " record " << n;
      if (!r.state.empty()) {
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(r.state.data()) % 8, 0u);
      }
    }
  }
  EXPECT_EQ(at, loaded.records().size());
}

TEST(checkpoint_format, keep_leaves_only_the_newest_checkpoints) {
  temp_dir tmp;
  for (std::uint64_t n = 1; n <= 4; ++n) write_checkpoint(tmp.path(), n, small_content(), 2);
  EXPECT_EQ(entries_of(tmp.path()), (std::vector<std::string>{"ckpt-00000003", "ckpt-00000004"}));
  EXPECT_EQ(ckpt::last_number(tmp.path()), 4u);
  EXPECT_EQ(ckpt::resolve_checkpoint(tmp.path()), tmp.path() / "ckpt-00000004");

  const fs::path older = tmp.path() / "ckpt-00000003";
  EXPECT_EQ(ckpt::resolve_checkpoint(older), older);
  ckpt::loaded_checkpoint loaded(older, this_program);
  EXPECT_EQ(loaded.identity().number, 3u);
  EXPECT_EQ(loaded.records().size(), 7u);
}

TEST(checkpoint_format, a_crash_mid_checkpoint_leaves_a_partial_that_is_ignored_then_removed) {
  temp_dir tmp;
  EXPECT_EQ(ckpt::last_number(tmp.path() / "not-yet"), 0u);
  EXPECT_EQ(ckpt::last_number(tmp.path()), 0u);
  write_checkpoint(tmp.path(), 1, small_content());

  const fs::path crashed = ckpt::begin_checkpoint(tmp.path(), 2);
  EXPECT_EQ(crashed, tmp.path() / "ckpt-00000002.partial");
  const file_content content = small_content()[1];
  ckpt::write_data_file(crashed, identity(2, 2), 0, record_outs(content));

  EXPECT_EQ(ckpt::resolve_checkpoint(tmp.path()), tmp.path() / "ckpt-00000001");
  EXPECT_EQ(ckpt::last_number(tmp.path()), 2u);
  EXPECT_EQ(load_error(tmp.path() / "ckpt-00000001"), "");

  write_checkpoint(tmp.path(), 3, small_content());
  EXPECT_EQ(entries_of(tmp.path()), (std::vector<std::string>{"ckpt-00000001", "ckpt-00000003"}));
}

TEST(checkpoint_format, resolve_says_what_it_found) {
  temp_dir tmp;
  auto error_of = [](const fs::path& path) {
    try {
      ckpt::resolve_checkpoint(path);
      return std::string();
    } catch (const ckpt::checkpoint_error& e) {
      return std::string(e.what());
    }
  };
  const fs::path nowhere = tmp.path() / "nowhere";
  EXPECT_EQ(error_of(nowhere), nowhere.string() + ": does not exist");

  const fs::path file = tmp.path() / "file";
  write_file(file, text("x"));
  EXPECT_TRUE(contains(error_of(file), file.string() + ": is not a directory")) << error_of(file);

  const fs::path empty = tmp.path() / "empty";
  fs::create_directory(empty);
  EXPECT_TRUE(contains(error_of(empty), empty.string() + ": contains no checkpoint")) << error_of(empty);

  const fs::path crashed = tmp.path() / "crashed";
  const fs::path partial = ckpt::begin_checkpoint(crashed, 4);
  EXPECT_TRUE(contains(error_of(crashed), crashed.string() + ": contains only partial (incomplete) checkpoints: "
                                                             "ckpt-00000004.partial"))
      << error_of(crashed);
  EXPECT_TRUE(contains(error_of(partial), partial.string() + ": is a partial (incomplete) checkpoint"))
      << error_of(partial);
}

TEST(checkpoint_format, abandon_removes_only_partial_directories) {
  temp_dir tmp;
  const fs::path published = write_checkpoint(tmp.path(), 1, small_content());
  ckpt::abandon_checkpoint(published);
  EXPECT_TRUE(fs::exists(published / "manifest"));
  const fs::path partial = ckpt::begin_checkpoint(tmp.path(), 2);
  ckpt::abandon_checkpoint(partial);
  EXPECT_FALSE(fs::exists(partial));
  ckpt::abandon_checkpoint(partial);  // already gone: nothing to do, nothing thrown
}

TEST(checkpoint_format, rejects_every_single_byte_corruption_naming_the_file) {
  temp_dir tmp;
  const fs::path dir = write_checkpoint(tmp.path(), 1, small_content());
  ASSERT_EQ(load_error(dir), "");

  // Flips bytes in place (and back), loading after each flip.
  auto check_flips = [&](const fs::path& path, const std::vector<std::size_t>& offsets) {
    const bytes original = read_file(path);
    const int fd = ::open(path.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    int failures = 0;
    for (std::size_t offset : offsets) {
      for (unsigned mask : {0xFFu, 0x01u}) {
        const auto flipped = static_cast<std::byte>(std::to_integer<unsigned>(original[offset]) ^ mask);
        ASSERT_EQ(::pwrite(fd, &flipped, 1, static_cast<off_t>(offset)), 1);
        const std::string error = load_error(dir);
        if (!contains(error, path.string()) && ++failures <= 5)
          ADD_FAILURE() << path << ": byte " << offset << " ^ " << mask << " gave \"" << error << "\"";
        ASSERT_EQ(::pwrite(fd, &original[offset], 1, static_cast<off_t>(offset)), 1);
      }
    }
    ::close(fd);
    EXPECT_EQ(failures, 0) << path;
  };

  const fs::path manifest = dir / "manifest";
  std::vector<std::size_t> every_byte(fs::file_size(manifest));
  for (std::size_t i = 0; i < every_byte.size(); ++i) every_byte[i] = i;
  check_flips(manifest, every_byte);

  const fs::path data = dir / "process-0001.dat";
  const std::size_t size = fs::file_size(data);
  ASSERT_GT(size, 256u + 200u);
  std::vector<std::size_t> offsets;
  for (std::size_t i = 0; i < 256; ++i) offsets.push_back(i);
  constexpr std::uint32_t seed = 20261201;  // fixed: the same bytes every run
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::size_t> body(256, size - 1);
  for (int i = 0; i < 200; ++i) offsets.push_back(body(rng));
  offsets.push_back(size - 1);
  SCOPED_TRACE("sampled with seed " + std::to_string(seed));
  check_flips(data, offsets);
  EXPECT_EQ(load_error(dir), "");
}

TEST(checkpoint_format, rejects_truncated_files) {
  temp_dir tmp;
  const fs::path dir = write_checkpoint(tmp.path(), 1, small_content());
  auto check_cuts = [&](const fs::path& path, const std::vector<std::size_t>& cuts) {
    const bytes original = read_file(path);
    for (std::size_t cut : cuts) {
      write_file(path, std::span(original).first(cut));
      const std::string error = load_error(dir);
      EXPECT_TRUE(contains(error, path.string() + ": ")) << cut << ": " << error;
      EXPECT_TRUE(contains(error, "truncated")) << cut << ": " << error;
    }
    write_file(path, original);
  };
  const fs::path data = dir / "process-0001.dat";
  const std::size_t data_size = fs::file_size(data);
  check_cuts(data, {0, 5, 30, 56, 56 + 12, 56 + 24 + 3, data_size / 2, data_size - 16, data_size - 1});
  const fs::path manifest = dir / "manifest";
  const std::size_t manifest_size = fs::file_size(manifest);
  check_cuts(manifest, {0, 30, 60, manifest_size / 2, manifest_size - 4, manifest_size - 1});
  EXPECT_EQ(load_error(dir), "");
}

TEST(checkpoint_format, accepts_an_empty_data_file_and_empty_blobs) {
  temp_dir tmp;
  const fs::path dir = write_checkpoint(tmp.path(), 1, {{}, {{bytes{}, bytes{}}}});
  ckpt::loaded_checkpoint loaded(dir, this_program);
  ASSERT_EQ(loaded.records().size(), 1u);
  EXPECT_TRUE(loaded.records()[0].meta.empty());
  EXPECT_TRUE(loaded.records()[0].state.empty());
  EXPECT_EQ(loaded.records()[0].file, 1u);
}

TEST(checkpoint_format, rejects_a_missing_data_file_naming_it) {
  temp_dir tmp;
  const fs::path dir = write_checkpoint(tmp.path(), 1, {{}, {}, {}});
  fs::remove(dir / "process-0002.dat");
  EXPECT_EQ(load_error(dir),
            (dir / "process-0002.dat").string() + ": missing: process-0002.dat listed in the manifest");
  fs::remove(dir / "manifest");
  EXPECT_TRUE(contains(load_error(dir), (dir / "manifest").string() + ": missing")) << load_error(dir);
}

TEST(checkpoint_format, rejects_another_programs_checkpoint_naming_both_hashes) {
  temp_dir tmp;
  const fs::path dir = write_checkpoint(tmp.path(), 1, small_content());
  const std::uint64_t other = 0xFEEDFACECAFEBEEFull;
  const std::string error = load_error(dir, other);
  EXPECT_TRUE(contains(error, (dir / "manifest").string() + ": written by another program")) << error;
  EXPECT_TRUE(contains(error, hex64(this_program))) << error;
  EXPECT_TRUE(contains(error, hex64(other))) << error;
}

TEST(checkpoint_format, rejects_a_data_file_of_another_checkpoint) {
  temp_dir tmp;
  write_checkpoint(tmp.path(), 1, small_content());
  write_checkpoint(tmp.path(), 2, small_content());
  const fs::path dir = tmp.path() / "ckpt-00000001";
  fs::copy_file(tmp.path() / "ckpt-00000002" / "process-0001.dat", dir / "process-0001.dat",
                fs::copy_options::overwrite_existing);
  const std::string error = load_error(dir);
  EXPECT_TRUE(contains(error, (dir / "process-0001.dat").string() + ": from checkpoint number 2, the manifest's is 1"))
      << error;
}

TEST(checkpoint_format, rejects_a_data_file_of_another_process) {
  temp_dir tmp;
  const fs::path dir = write_checkpoint(tmp.path(), 1, {small_content()[1], small_content()[1]});
  fs::copy_file(dir / "process-0000.dat", dir / "process-0001.dat", fs::copy_options::overwrite_existing);
  const std::string error = load_error(dir);
  EXPECT_TRUE(contains(error, "process-0001.dat: holds the records of process 0, expected process 1")) << error;
}

namespace {

// Runs in a forked child: the file-size limit and the ignored SIGXFSZ must not
// outlive it. The exit status says what happened (0: as expected).
int write_past_the_file_size_limit(const fs::path& dir) {
  std::signal(SIGXFSZ, SIG_IGN);
  const rlimit limit{64 * 1024, 64 * 1024};
  if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return 10;
  const bytes meta = text("meta");
  const bytes state = pattern(mib, 7);
  const ckpt::record_out records[] = {{meta, state}};
  const fs::path path = dir / "process-0000.dat";
  try {
    ckpt::write_data_file(dir, identity(1, 1), 0, records);
    return 11;
  } catch (const ckpt::checkpoint_error& e) {
    std::fprintf(stderr, "child caught: %s\n", e.what());
    if (!contains(e.what(), path.string() + ": ")) return 12;
    if (!contains(e.what(), "File too large")) return 13;
    if (fs::exists(path)) return 14;
    return 0;
  } catch (...) {
    return 15;
  }
}

}  // namespace

TEST(checkpoint_format, a_write_failure_removes_the_file_and_names_the_error) {
  temp_dir tmp;
  std::fflush(nullptr);  // the child's exit must not write our buffers twice
  const pid_t child = ::fork();
  ASSERT_GE(child, 0) << std::strerror(errno);
  if (child == 0) ::_exit(write_past_the_file_size_limit(tmp.path()));
  int status = 0;
  pid_t waited;
  do waited = ::waitpid(child, &status, 0);
  while (waited < 0 && errno == EINTR);
  ASSERT_EQ(waited, child);
  ASSERT_TRUE(WIFEXITED(status)) << "child status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: setrlimit failed, 11: no error, 12: path not named, "
                                       "13: no \"File too large\", 14: file left behind, 15: another exception";
}

TEST(checkpoint_format, a_root_that_is_a_regular_file_is_named) {
  temp_dir tmp;
  const fs::path root = tmp.path() / "root";
  write_file(root, text("not a directory"));
  try {
    ckpt::begin_checkpoint(root, 1);
    ADD_FAILURE() << "begin_checkpoint accepted a regular file as root";
  } catch (const ckpt::checkpoint_error& e) {
    EXPECT_TRUE(contains(e.what(), root.string() + ": not a directory")) << e.what();
  }
  EXPECT_THROW(ckpt::last_number(root), ckpt::checkpoint_error);
}

TEST(checkpoint_format, publishing_an_existing_number_fails_and_keeps_the_previous_checkpoint) {
  temp_dir tmp;
  const fs::path first = write_checkpoint(tmp.path(), 1, small_content());
  try {
    write_checkpoint(tmp.path(), 1, {{}, {}});
    ADD_FAILURE() << "published checkpoint 1 twice";
  } catch (const ckpt::checkpoint_error& e) {
    EXPECT_TRUE(contains(e.what(), first.string() + ": already exists")) << e.what();
  }
  EXPECT_EQ(entries_of(tmp.path()), std::vector<std::string>{"ckpt-00000001"});
  ckpt::loaded_checkpoint loaded(first, this_program);
  EXPECT_EQ(loaded.files().size(), 2u);
  EXPECT_EQ(loaded.records().size(), 7u);
}

namespace {

std::string describe_cell(std::span<const std::byte> meta) {
  return "array " + std::string(reinterpret_cast<const char*>(meta.data()), meta.size());
}

/// Offset of the first occurrence of `needle` in `haystack`.
std::size_t find(const bytes& haystack, const bytes& needle) {
  const auto at = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end());
  return static_cast<std::size_t>(at - haystack.begin());
}

}  // namespace

TEST(checkpoint_format, names_the_record_and_its_object) {
  temp_dir tmp;
  const std::vector<file_content> content = small_content();
  const fs::path dir = write_checkpoint(tmp.path(), 1, content);
  const fs::path data = dir / "process-0001.dat";
  const bytes original = read_file(data);

  bytes corrupt = original;
  corrupt[find(original, content[1][4].state) + 100] ^= std::byte{0x10};
  write_file(data, corrupt);
  std::string error = load_error(dir, this_program, describe_cell);
  EXPECT_TRUE(contains(error, data.string() + ": record 4 (array cell[4]): state CRC-32C mismatch")) << error;

  // A corrupt meta is not shown to describe.
  corrupt = original;
  corrupt[find(original, content[1][2].meta) + 2] ^= std::byte{0x10};
  write_file(data, corrupt);
  error = load_error(dir, this_program, describe_cell);
  EXPECT_TRUE(contains(error, data.string() + ": record 2: meta CRC-32C mismatch")) << error;
}

namespace {

/// `content` laid out in place as an in-memory checkpoint does: sized first,
/// the records split into `stretches` consecutive stretches (one per PE),
/// each written by its own record_writer, the CRCs combined in file order.
bytes in_place_file(const ckpt::file_identity& id, std::uint32_t process, const file_content& content,
                    std::size_t stretches) {
  std::vector<std::uint64_t> lengths(stretches, 0);
  const auto stretch_of = [&](std::size_t i) { return i * stretches / std::max<std::size_t>(content.size(), 1); };
  for (std::size_t i = 0; i < content.size(); ++i)
    lengths[stretch_of(i)] += ckpt::record_length(content[i].meta.size(), content[i].state.size());
  std::uint64_t total = 0;
  for (std::uint64_t l : lengths) total += l;
  bytes file(ckpt::data_file_length(total), std::byte{0xEE});  // every byte must be written over
  std::uint64_t offset = ckpt::first_record_offset();
  std::uint32_t crc = 0, records = 0;
  std::size_t next = 0;
  for (std::size_t k = 0; k < stretches; ++k) {
    ckpt::record_writer out{std::span(file).subspan(offset, lengths[k])};
    for (; next < content.size() && stretch_of(next) == k; ++next) {
      const std::span<std::byte> state = out.begin_record(content[next].meta, content[next].state.size());
      std::ranges::copy(content[next].state, state.begin());
      out.end_record();
    }
    EXPECT_EQ(out.length(), lengths[k]);
    crc = roam::detail::crc32c_combine(crc, out.crc(), out.length());
    records += out.records();
    offset += lengths[k];
  }
  ckpt::seal_data_file(file, id, process, records, crc);
  return file;
}

}  // namespace

TEST(checkpoint_format, an_in_place_data_file_is_byte_for_byte_the_streamed_one) {
  temp_dir tmp;
  file_content content = small_content()[1];
  content.push_back({text("big"), pattern(3 * mib + 5, 7)});  // long enough for CRC combination
  content.push_back({bytes{}, bytes{}});
  const auto id = identity(4, 2);
  const ckpt::file_entry streamed = ckpt::write_data_file(tmp.path(), id, 1, record_outs(content));
  const bytes on_disk = read_file(tmp.path() / streamed.name);
  for (std::size_t stretches : {1, 2, 3, 8}) {
    const bytes in_place = in_place_file(id, 1, content, stretches);
    EXPECT_TRUE(equal(in_place, on_disk)) << stretches << " stretches";
  }
  // An empty one too.
  const ckpt::file_entry empty = ckpt::write_data_file(tmp.path(), identity(5, 2), 0, {});
  EXPECT_TRUE(equal(in_place_file(identity(5, 2), 0, {}, 1), read_file(tmp.path() / empty.name)));
}

TEST(checkpoint_format, an_in_place_record_that_outgrows_its_stretch_is_refused) {
  bytes stretch(ckpt::record_length(4, 16));
  ckpt::record_writer out(stretch);
  try {
    (void)out.begin_record(text("meta"), 17);
    FAIL() << "a record longer than its stretch was accepted";
  } catch (const ckpt::checkpoint_error& e) {
    EXPECT_TRUE(contains(e.what(), "record 0")) << e.what();
    EXPECT_TRUE(contains(e.what(), "changed size between sizing and packing")) << e.what();
  }
  const std::span<std::byte> state = out.begin_record(text("meta"), 16);
  EXPECT_EQ(state.size(), 16u);
  out.end_record();
  EXPECT_EQ(out.length(), stretch.size());
  EXPECT_EQ(out.records(), 1u);
}

}  // namespace format_test
