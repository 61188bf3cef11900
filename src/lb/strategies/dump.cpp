// Writing and reading load balancing dumps (include/roam/lb/dump.hpp; the
// byte layout is in docs/design/lb-strategies.md). Values are assembled byte
// by byte, so the files are little-endian whatever the host. The reader
// trusts nothing: every count is checked against the bytes that remain
// before anything is allocated for it.
#include <roam/lb/dump.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace roam::lb {

namespace {

constexpr std::array<unsigned char, 8> file_magic = {'R', 'O', 'A', 'M', 'L', 'B', 'D', 0};
constexpr std::array<unsigned char, 4> step_magic = {'S', 'T', 'E', 'P'};
constexpr std::size_t header_bytes = 16;
constexpr std::size_t step_header_bytes = 12;  // magic, payload length
constexpr std::size_t checksum_bytes = 4;
constexpr std::size_t payload_fixed_bytes = 4 + 8 + 4 + 8 + 8 + 4 + 1;
constexpr std::size_t pe_bytes = 8 + 8 + 8 + 4 + 1;
constexpr std::size_t object_bytes = 8 + 8 + 4 + 1;
constexpr std::size_t edge_bytes = 4 + 4 + 8 + 8;

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320: zlib's crc32).
constexpr std::array<std::uint32_t, 256> crc_table = [] {
  std::array<std::uint32_t, 256> t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[i] = c;
  }
  return t;
}();

std::uint32_t crc32(const unsigned char* data, std::size_t size) {
  std::uint32_t c = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < size; ++i) c = crc_table[(c ^ data[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

class encoder {
 public:
  std::vector<unsigned char> bytes;
  void u8(std::uint8_t v) { bytes.push_back(v); }
  void u32(std::uint32_t v) {
    for (int k = 0; k < 4; ++k) bytes.push_back(static_cast<unsigned char>(v >> (8 * k)));
  }
  void u64(std::uint64_t v) {
    for (int k = 0; k < 8; ++k) bytes.push_back(static_cast<unsigned char>(v >> (8 * k)));
  }
  void f64(double v) { u64(std::bit_cast<std::uint64_t>(v)); }
  // resize + memcpy rather than vector::insert: GCC 12 under -fsanitize=thread
  // warned (-Wstringop-overflow, a false positive) on the inserted ranges.
  void raw(const void* data, std::size_t n) {
    if (n == 0) return;
    const std::size_t at = bytes.size();
    bytes.resize(at + n);
    std::memcpy(bytes.data() + at, data, n);
  }
};

class decoder {
 public:
  decoder(const unsigned char* data, std::size_t size) : data_(data), size_(size) {}
  std::size_t left() const { return size_ - at_; }
  std::size_t at() const { return at_; }
  std::uint8_t u8() { return data_[at_++]; }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int k = 0; k < 4; ++k) v |= static_cast<std::uint32_t>(data_[at_++]) << (8 * k);
    return v;
  }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int k = 0; k < 8; ++k) v |= static_cast<std::uint64_t>(data_[at_++]) << (8 * k);
    return v;
  }
  double f64() { return std::bit_cast<double>(u64()); }
  void skip(std::size_t n) { at_ += n; }
  const unsigned char* here() const { return data_ + at_; }

 private:
  const unsigned char* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

void write_all(std::FILE* file, const std::vector<unsigned char>& bytes, const char* what) {
  if (file == nullptr) throw std::runtime_error(std::string("lb dump: ") + what + ": no file");
  if (std::fwrite(bytes.data(), 1, bytes.size(), file) != bytes.size())
    throw std::runtime_error(std::string("lb dump: ") + what + " failed: " + std::strerror(errno));
}

std::vector<unsigned char> encode_step(const problem& p, std::string_view strategy, const assignment* decided) {
  if (decided != nullptr && decided->pe.size() != p.objects.size())
    throw std::invalid_argument("lb dump: the recorded assignment places " + std::to_string(decided->pe.size()) +
                                " objects but the problem has " + std::to_string(p.objects.size()));
  if (p.pes.size() > UINT32_MAX || strategy.size() > UINT32_MAX)
    throw std::invalid_argument("lb dump: more than 2^32-1 PEs or a strategy name that long");
  encoder payload;
  payload.bytes.reserve(payload_fixed_bytes + strategy.size() + p.pes.size() * pe_bytes +
                        p.objects.size() * (object_bytes + (decided ? 4 : 0)) + p.edges.size() * edge_bytes);
  payload.u32(p.step);
  payload.u64(p.seed);
  payload.u32(static_cast<std::uint32_t>(p.pes.size()));
  payload.u64(p.objects.size());
  payload.u64(p.edges.size());
  payload.u32(static_cast<std::uint32_t>(strategy.size()));
  payload.raw(strategy.data(), strategy.size());
  payload.u8(decided != nullptr ? 1 : 0);
  for (const pe_load& pe : p.pes) {
    payload.f64(pe.background);
    payload.f64(pe.idle);
    payload.f64(pe.speed);
    payload.u32(pe.group);
    payload.u8(pe.available ? 1 : 0);
  }
  for (const object_load& o : p.objects) {
    payload.u64(o.key);
    payload.f64(o.load);
    payload.u32(o.pe);
    payload.u8(o.migratable ? 1 : 0);
  }
  for (const comm_edge& e : p.edges) {
    payload.u32(e.from);
    payload.u32(e.to);
    payload.u64(e.messages);
    payload.u64(e.bytes);
  }
  if (decided != nullptr)
    for (std::uint32_t pe : decided->pe) payload.u32(pe);

  encoder step;
  step.bytes.reserve(step_header_bytes + payload.bytes.size() + checksum_bytes);
  step.raw(step_magic.data(), step_magic.size());
  step.u64(payload.bytes.size());
  step.raw(payload.bytes.data(), payload.bytes.size());
  // The checksum covers the length too, so a corrupt length is caught even when it still fits the file.
  step.u32(crc32(step.bytes.data() + step_magic.size(), step.bytes.size() - step_magic.size()));
  return std::move(step.bytes);
}

[[noreturn]] void corrupt(const std::string& name, const std::string& what) {
  throw std::runtime_error("lb dump " + name + ": " + what);
}

dump_step decode_payload(decoder in, const std::string& name, std::size_t step_index, std::size_t base) {
  const auto where = [&](std::size_t at) { return "step " + std::to_string(step_index) + " (byte " + std::to_string(base + at) + ")"; };
  if (in.left() < payload_fixed_bytes)
    corrupt(name, where(in.at()) + ": the payload is " + std::to_string(in.left()) + " bytes, less than the " +
                      std::to_string(payload_fixed_bytes) + " of its fixed fields");
  dump_step s;
  s.p.step = in.u32();
  s.p.seed = in.u64();
  const std::uint64_t pes = in.u32();
  const std::uint64_t objects = in.u64();
  const std::uint64_t edges = in.u64();
  const std::uint64_t name_size = in.u32();
  if (name_size > in.left())
    corrupt(name, where(in.at()) + ": strategy name of " + std::to_string(name_size) + " bytes but " +
                      std::to_string(in.left()) + " remain");
  s.strategy.assign(reinterpret_cast<const char*>(in.here()), name_size);
  in.skip(name_size);
  if (in.left() < 1) corrupt(name, where(in.at()) + ": the payload ends before the assignment flag");
  const std::uint8_t has_decided = in.u8();
  if (has_decided > 1) corrupt(name, where(in.at() - 1) + ": assignment flag " + std::to_string(has_decided) + " (0 or 1)");
  // Each count must fit the bytes that remain before anything is sized by it.
  const auto fits = [&](std::uint64_t count, std::size_t each, const char* what) {
    if (count > in.left() / each)
      corrupt(name, where(in.at()) + ": " + std::to_string(count) + " " + what + " need " + std::to_string(each) +
                        " bytes each but " + std::to_string(in.left()) + " remain");
  };
  fits(pes, pe_bytes, "PEs");
  s.p.pes.resize(pes);
  for (pe_load& pe : s.p.pes) {
    pe.background = in.f64();
    pe.idle = in.f64();
    pe.speed = in.f64();
    pe.group = in.u32();
    pe.available = (in.u8() & 1) != 0;
  }
  fits(objects, object_bytes, "objects");
  s.p.objects.resize(objects);
  for (object_load& o : s.p.objects) {
    o.key = in.u64();
    o.load = in.f64();
    o.pe = in.u32();
    o.migratable = (in.u8() & 1) != 0;
  }
  fits(edges, edge_bytes, "edges");
  s.p.edges.resize(edges);
  for (comm_edge& e : s.p.edges) {
    e.from = in.u32();
    e.to = in.u32();
    e.messages = in.u64();
    e.bytes = in.u64();
  }
  if (has_decided) {
    fits(objects, 4, "assigned PEs");
    assignment a;
    a.pe.resize(objects);
    for (std::uint32_t& pe : a.pe) pe = in.u32();
    s.decided = std::move(a);
  }
  if (in.left() != 0)
    corrupt(name, where(in.at()) + ": " + std::to_string(in.left()) + " bytes left over after the step's fields");
  return s;
}

}  // namespace

void write_dump_header(std::FILE* file) {
  encoder out;
  out.bytes.assign(file_magic.begin(), file_magic.end());
  out.u32(dump_version);
  out.u32(0);
  write_all(file, out.bytes, "writing the header");
}

void append_dump_step(std::FILE* file, const problem& p, std::string_view strategy, const assignment* decided) {
  write_all(file, encode_step(p, strategy, decided), "writing a step");
}

void append_dump_step(const std::string& path, const problem& p, std::string_view strategy, const assignment* decided) {
  std::FILE* file = std::fopen(path.c_str(), "a+b");
  if (file == nullptr) throw std::runtime_error("lb dump " + path + ": cannot open: " + std::strerror(errno));
  try {
    if (std::fseek(file, 0, SEEK_END) != 0) throw std::runtime_error(std::string("seek failed: ") + std::strerror(errno));
    if (std::ftell(file) == 0) {
      write_dump_header(file);
    } else {
      std::array<unsigned char, header_bytes> head{};
      std::rewind(file);
      if (std::fread(head.data(), 1, head.size(), file) != head.size() ||
          !std::equal(file_magic.begin(), file_magic.end(), head.begin()))
        throw std::runtime_error("exists and is not a load balancing dump: not appending to it");
      std::fseek(file, 0, SEEK_END);  // "a" writes at the end anyway; the seek makes the switch from reading legal
    }
    append_dump_step(file, p, strategy, decided);
    if (std::fclose(file) != 0) {
      file = nullptr;
      throw std::runtime_error(std::string("close failed: ") + std::strerror(errno));
    }
  } catch (const std::invalid_argument&) {
    if (file != nullptr) std::fclose(file);
    throw;  // the caller's mistake (an assignment of the wrong size), not the file's
  } catch (const std::exception& e) {
    if (file != nullptr) std::fclose(file);
    throw std::runtime_error("lb dump " + path + ": " + e.what());
  }
}

dump_writer::dump_writer(const std::string& path) : path_(path), file_(std::fopen(path.c_str(), "wb")) {
  if (file_ == nullptr) throw std::runtime_error("lb dump " + path + ": cannot create: " + std::strerror(errno));
  try {
    write_dump_header(file_);
    if (std::fflush(file_) != 0) throw std::runtime_error(std::string("flush failed: ") + std::strerror(errno));
  } catch (const std::exception& e) {
    std::fclose(file_);
    throw std::runtime_error("lb dump " + path + ": " + e.what());
  }
}

dump_writer::~dump_writer() {
  if (file_ != nullptr) std::fclose(file_);
}

void dump_writer::append(const problem& p, std::string_view strategy, const assignment* decided) {
  try {
    append_dump_step(file_, p, strategy, decided);
    if (std::fflush(file_) != 0) throw std::runtime_error(std::string("flush failed: ") + std::strerror(errno));
  } catch (const std::runtime_error& e) {
    throw std::runtime_error("lb dump " + path_ + ": " + e.what());
  }
}

std::vector<dump_step> parse_dump(const std::vector<unsigned char>& bytes, const std::string& name) {
  if (bytes.size() < header_bytes)
    corrupt(name, "truncated at byte " + std::to_string(bytes.size()) + ": the header needs " +
                      std::to_string(header_bytes) + " bytes");
  if (!std::equal(file_magic.begin(), file_magic.end(), bytes.begin()))
    corrupt(name, "bad magic: not a roam load balancing dump");
  decoder header(bytes.data() + file_magic.size(), header_bytes - file_magic.size());
  const std::uint32_t version = header.u32();
  const std::uint32_t flags = header.u32();
  if (version != dump_version)
    corrupt(name, "version " + std::to_string(version) + " is not supported (this reader reads version " +
                      std::to_string(dump_version) + ")");
  if (flags != 0) corrupt(name, "header flags " + std::to_string(flags) + " (version 1 writes 0)");

  std::vector<dump_step> steps;
  std::size_t at = header_bytes;
  while (at < bytes.size()) {
    const std::size_t index = steps.size();
    const std::string step = "step " + std::to_string(index);
    const std::size_t left = bytes.size() - at;
    if (left < step_header_bytes)
      corrupt(name, step + ": truncated at byte " + std::to_string(bytes.size()) + " (its header starts at byte " +
                        std::to_string(at) + " and needs " + std::to_string(step_header_bytes) + " bytes)");
    if (!std::equal(step_magic.begin(), step_magic.end(), bytes.begin() + static_cast<std::ptrdiff_t>(at)))
      corrupt(name, step + ": bad step magic at byte " + std::to_string(at));
    decoder length(bytes.data() + at + step_magic.size(), 8);
    const std::uint64_t payload = length.u64();
    if (payload > left - step_header_bytes || left - step_header_bytes - payload < checksum_bytes)
      corrupt(name, step + ": truncated at byte " + std::to_string(bytes.size()) + " (the step at byte " +
                        std::to_string(at) + " declares " + std::to_string(payload) + " payload bytes, " +
                        std::to_string(left - step_header_bytes) + " bytes remain for them and the checksum)");
    const std::size_t payload_at = at + step_header_bytes;
    const std::size_t end = payload_at + static_cast<std::size_t>(payload);
    decoder stored(bytes.data() + end, checksum_bytes);
    if (stored.u32() != crc32(bytes.data() + at + step_magic.size(), 8 + static_cast<std::size_t>(payload)))
      corrupt(name, "checksum mismatch in step " + std::to_string(index) + " (bytes " + std::to_string(at) + " to " +
                        std::to_string(end + checksum_bytes) + ")");
    steps.push_back(decode_payload(decoder(bytes.data() + payload_at, static_cast<std::size_t>(payload)), name, index,
                                   payload_at));
    at = end + checksum_bytes;
  }
  return steps;
}

std::vector<dump_step> read_dump_steps(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("lb dump " + path + ": cannot open: " + std::strerror(errno));
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(0, std::ios::beg);
  if (size < 0) throw std::runtime_error("lb dump " + path + ": cannot tell its size");
  std::vector<unsigned char> bytes(static_cast<std::size_t>(size));
  if (!in.read(reinterpret_cast<char*>(bytes.data()), size)) throw std::runtime_error("lb dump " + path + ": read failed");
  return parse_dump(bytes, path);
}

std::vector<problem> read_dump(const std::string& path) {
  std::vector<dump_step> steps = read_dump_steps(path);
  std::vector<problem> problems;
  problems.reserve(steps.size());
  for (dump_step& s : steps) problems.push_back(std::move(s.p));
  return problems;
}

}  // namespace roam::lb
