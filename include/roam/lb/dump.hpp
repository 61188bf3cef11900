#pragma once
// Load balancing dumps: the problems of successive balancing steps, written
// by a run under +LBDump FILE and replayed offline by `roam-lb`. The format is
// little-endian and self-checking; docs/design/lb-strategies.md gives it byte
// by byte:
//
//   file   = header step*
//   header = "ROAMLBD\0" (8 bytes), u32 version (1), u32 flags (0)
//   step   = "STEP", u64 payload length L, L payload bytes,
//            u32 CRC-32 of the length field and the payload
//
// A cut between two steps leaves a shorter dump that reads without error
// (what a run killed between steps leaves); any other cut, a flipped byte or
// a count that does not fit the bytes that follow is a std::runtime_error.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <roam/lb/strategy.hpp>

namespace roam::lb {

/// The format version this code writes and the only one it reads.
inline constexpr std::uint32_t dump_version = 1;

/// One step of a dump: the problem, and optionally what a strategy made of it.
struct dump_step {
  problem p;
  std::string strategy;               ///< the strategy the run used ("" when not recorded)
  std::optional<assignment> decided;  ///< its answer, when recorded
};

/// Writes the file header. Throws std::runtime_error when the write fails.
void write_dump_header(std::FILE* file);
/// Appends one step (after write_dump_header). `decided`, when given, must
/// place every object of `p` (else std::invalid_argument). Throws
/// std::runtime_error when the write fails.
void append_dump_step(std::FILE* file, const problem& p, std::string_view strategy = {},
                      const assignment* decided = nullptr);
/// Appends one step to the dump at `path`, creating it (with its header) when
/// it is missing or empty. An existing file that does not start with a dump
/// header is refused (std::runtime_error), never appended to. Opens and closes
/// the file each time: for a run's few balancing steps; dump_writer keeps it open.
void append_dump_step(const std::string& path, const problem& p, std::string_view strategy = {},
                      const assignment* decided = nullptr);

/// A dump being written to a file: the constructor creates (truncates) it and
/// writes the header; each append writes one step and flushes, so a run that
/// dies leaves whole steps. Errors are std::runtime_error naming the file.
/// Use from one thread at a time.
class dump_writer {
 public:
  explicit dump_writer(const std::string& path);
  ~dump_writer();
  dump_writer(const dump_writer&) = delete;
  dump_writer& operator=(const dump_writer&) = delete;

  void append(const problem& p, std::string_view strategy = {}, const assignment* decided = nullptr);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
};

/// Every step of the dump in `path`, in order. Throws std::runtime_error
/// whose message names the file, the step and the fault ("truncated at byte
/// N", "bad magic", "checksum mismatch in step 3"); never allocates more
/// than the file's size warrants.
std::vector<dump_step> read_dump_steps(const std::string& path);
/// The problems of read_dump_steps(path).
std::vector<problem> read_dump(const std::string& path);
/// Parses dump bytes already in memory; `name` stands for the file in messages.
std::vector<dump_step> parse_dump(const std::vector<unsigned char>& bytes, const std::string& name);

}  // namespace roam::lb
