#pragma once
// Per-PE trace buffers and the process's writer thread. Each PE appends
// fixed-size records to the current quarter of its buffer; a full quarter is
// handed to the writer thread (one mutex and a notify per quarter) and the PE
// goes on in the next free one. Only if the writer has fallen a whole buffer
// behind does the PE wait for it (counted as a stall in the file's trailer):
// nothing is ever dropped.
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include <roam/trace/detail/format.hpp>

namespace roam::trace::detail {

class trace_writer;

struct chunk {
  std::vector<record> records;  ///< capacity fixed at start
  std::size_t used = 0;
};

class pe_recorder {
 public:
  pe_recorder(trace_writer& w, std::uint32_t pe, std::size_t chunk_records, std::size_t chunks);
  pe_recorder(const pe_recorder&) = delete;
  pe_recorder& operator=(const pe_recorder&) = delete;

  /// The next record to fill (on the PE's thread only).
  record& next() noexcept {
    if (cur_ == end_) [[unlikely]]
      rotate();
    return *cur_++;
  }
  /// Hands what the current chunk holds to the writer (the run ended; PE stopped).
  void flush_partial() noexcept;
  /// `ticks`, or the last time stamped here if that is later: a PE's records
  /// never go back in time, though an entry's begin reuses the reading of the
  /// receipt before it (roam/sched/observe.hpp) and a broadcast's forwarded
  /// copies are sent in between.
  std::uint64_t stamp(std::uint64_t ticks) noexcept { return last_ticks_ = ticks > last_ticks_ ? ticks : last_ticks_; }

  const std::uint32_t pe;

 private:
  friend class trace_writer;
  void rotate() noexcept;
  void take_chunk(chunk* c) noexcept;

  trace_writer& writer_;
  record* cur_ = nullptr;
  record* end_ = nullptr;
  std::uint64_t last_ticks_ = 0;
  chunk* current_ = nullptr;
  std::vector<chunk> chunks_;
  // The writer's side (under the writer's mutex, or its thread only):
  std::vector<chunk*> free_;
  std::FILE* file_ = nullptr;
  std::uint64_t records_written_ = 0;
  std::uint32_t chunks_written_ = 0;
  std::uint64_t stalls_ = 0;
  bool failed_ = false;
};

/// What the writer learnt from the records it wrote: ids to name in the index.
struct seen_ids {
  std::unordered_set<std::uint64_t> entries;
  std::unordered_set<std::uint32_t> collections;
};

class trace_writer {
 public:
  /// Opens one file per PE in `dir` (created if missing). Throws std::runtime_error naming the file.
  trace_writer(const std::string& dir, std::uint32_t node, std::uint32_t first_pe, std::uint32_t pes,
               std::size_t buffer_bytes, bool zstd);
  ~trace_writer();

  pe_recorder* recorder(std::uint32_t pe) noexcept {
    const std::uint32_t i = pe - first_pe_;
    return i < recorders_.size() ? recorders_[i].get() : nullptr;
  }
  /// Every PE stopped: flushes their partial chunks, writes trailers, closes
  /// the files, stops the thread. Returns an error text (empty: all written).
  std::string finish();
  const seen_ids& seen() const noexcept { return seen_; }
  std::vector<std::string> file_names() const;
  std::uint64_t records() const noexcept;
  std::uint64_t stalls() const noexcept;
  std::uint64_t bytes_written() const noexcept { return bytes_written_; }
  /// Seconds the writer thread spent writing (its busy time), and finish()'s own.
  double write_seconds() const noexcept { return write_seconds_; }
  double finish_seconds() const noexcept { return finish_seconds_; }

 private:
  friend class pe_recorder;
  void submit(pe_recorder& r, chunk* c) noexcept;
  chunk* take_free(pe_recorder& r) noexcept;
  void run() noexcept;
  void write_chunk(pe_recorder& r, chunk& c) noexcept;

  std::string dir_;
  std::uint32_t first_pe_;
  bool zstd_;
  std::vector<std::unique_ptr<pe_recorder>> recorders_;
  std::mutex mutex_;
  std::condition_variable work_cv_, free_cv_;
  std::deque<std::pair<pe_recorder*, chunk*>> queue_;
  bool stop_ = false;
  std::string error_;  ///< first write failure
  seen_ids seen_;
  std::vector<char> compressed_;
  std::uint64_t bytes_written_ = 0;
  double write_seconds_ = 0, finish_seconds_ = 0;
  void* zstd_context_ = nullptr;
  std::thread thread_;
};

}  // namespace roam::trace::detail
