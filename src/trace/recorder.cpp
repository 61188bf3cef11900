// Per-PE trace buffers and the writer thread (recorder.hpp).
#include "recorder.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#if defined(ROAM_HAVE_ZSTD)
#include <zstd.h>
#endif

namespace roam::trace::detail {

pe_recorder::pe_recorder(trace_writer& w, std::uint32_t pe_, std::size_t chunk_records, std::size_t chunks)
    : pe(pe_), writer_(w), chunks_(chunks) {
  for (auto& c : chunks_) c.records.resize(chunk_records);
  for (std::size_t i = 1; i < chunks_.size(); ++i) free_.push_back(&chunks_[i]);
  take_chunk(&chunks_[0]);
}

void pe_recorder::take_chunk(chunk* c) noexcept {
  current_ = c;
  c->used = 0;
  cur_ = c->records.data();
  end_ = cur_ + c->records.size();
}

void pe_recorder::rotate() noexcept {
  current_->used = current_->records.size();
  writer_.submit(*this, current_);
  take_chunk(writer_.take_free(*this));
}

void pe_recorder::flush_partial() noexcept {
  current_->used = static_cast<std::size_t>(cur_ - current_->records.data());
  if (current_->used == 0) return;
  writer_.submit(*this, current_);
  take_chunk(writer_.take_free(*this));
}

trace_writer::trace_writer(const std::string& dir, std::uint32_t node, std::uint32_t first_pe, std::uint32_t pes,
                           std::size_t buffer_bytes, bool zstd)
    : dir_(dir), first_pe_(first_pe), zstd_(zstd) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("+trace: cannot create directory '" + dir + "': " + ec.message());
  constexpr std::size_t chunks = 4;
  const std::size_t chunk_records = std::max<std::size_t>(64, buffer_bytes / chunks / sizeof(record));
  for (std::uint32_t i = 0; i < pes; ++i) {
    auto r = std::make_unique<pe_recorder>(*this, first_pe + i, chunk_records, chunks);
    const std::string path = dir + "/pe-" + std::to_string(first_pe + i) + ".roamtrace";
    r->file_ = std::fopen(path.c_str(), "wb");
    if (!r->file_) {
      const std::string why = std::strerror(errno);
      for (auto& done : recorders_) std::fclose(done->file_);
      throw std::runtime_error("+trace: cannot write '" + path + "': " + why);
    }
    std::setvbuf(r->file_, nullptr, _IOFBF, 1 << 20);
    file_header h{};
    std::memcpy(h.magic, file_magic, sizeof(h.magic));
    h.version = format_version;
    h.byte_order = byte_order_mark;
    h.record_size = sizeof(record);
    h.pe = first_pe + i;
    h.node = node;
    std::fwrite(&h, sizeof(h), 1, r->file_);
    recorders_.push_back(std::move(r));
  }
#if defined(ROAM_HAVE_ZSTD)
  if (zstd_) zstd_context_ = ZSTD_createCCtx();
#endif
  thread_ = std::thread([this] { run(); });
}

trace_writer::~trace_writer() {
  if (thread_.joinable()) finish();
#if defined(ROAM_HAVE_ZSTD)
  if (zstd_context_) ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(zstd_context_));
#endif
}

void trace_writer::submit(pe_recorder& r, chunk* c) noexcept {
  {
    std::lock_guard lock(mutex_);
    queue_.emplace_back(&r, c);
  }
  work_cv_.notify_one();
}

chunk* trace_writer::take_free(pe_recorder& r) noexcept {
  std::unique_lock lock(mutex_);
  if (r.free_.empty()) {
    ++r.stalls_;  // the writer is a whole buffer behind: wait rather than lose events
    free_cv_.wait(lock, [&] { return !r.free_.empty(); });
  }
  chunk* c = r.free_.back();
  r.free_.pop_back();
  return c;
}

void trace_writer::run() noexcept {
  std::unique_lock lock(mutex_);
  for (;;) {
    work_cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stop_ and nothing left
    auto [r, c] = queue_.front();
    queue_.pop_front();
    lock.unlock();
    const auto t0 = std::chrono::steady_clock::now();
    write_chunk(*r, *c);
    write_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    lock.lock();
    r->free_.push_back(c);
    free_cv_.notify_all();
  }
}

void trace_writer::write_chunk(pe_recorder& r, chunk& c) noexcept {
  if (r.failed_ || c.used == 0) return;
  for (std::size_t i = 0; i < c.used; ++i) {
    const record& x = c.records[i];
    if (x.type == record_type::entry_begin) {
      if (x.b) seen_.entries.insert(x.b);
      if (x.a) seen_.collections.insert(x.a);
    } else if (x.type == record_type::send || x.type == record_type::receive) {
      seen_.entries.insert(x.c);
    } else if (x.type >= record_type::born && x.a) {
      seen_.collections.insert(x.a);
    }
  }
  const void* data = c.records.data();
  std::size_t bytes = c.used * sizeof(record);
  chunk_header h{chunk_magic, static_cast<std::uint32_t>(codec::raw), static_cast<std::uint32_t>(c.used), 0, 0};
#if defined(ROAM_HAVE_ZSTD)
  if (zstd_) {
    compressed_.resize(ZSTD_compressBound(bytes));
    const std::size_t n = ZSTD_compressCCtx(static_cast<ZSTD_CCtx*>(zstd_context_), compressed_.data(),
                                            compressed_.size(), data, bytes, 1);
    if (!ZSTD_isError(n)) {
      h.codec = static_cast<std::uint32_t>(codec::zstd);
      data = compressed_.data();
      bytes = n;
    }
  }
#endif
  h.stored_bytes = static_cast<std::uint32_t>(bytes);
  h.checksum = checksum(data, bytes);
  if (std::fwrite(&h, sizeof(h), 1, r.file_) != 1 || std::fwrite(data, 1, bytes, r.file_) != bytes) {
    r.failed_ = true;
    std::lock_guard lock(mutex_);
    if (error_.empty())
      error_ = "+trace: writing the trace of pe " + std::to_string(r.pe) + " failed: " + std::strerror(errno);
    return;
  }
  r.records_written_ += c.used;
  ++r.chunks_written_;
  bytes_written_ += sizeof(h) + bytes;
}

std::string trace_writer::finish() {
  const auto t0 = std::chrono::steady_clock::now();
  for (auto& r : recorders_) r->flush_partial();
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  work_cv_.notify_one();
  thread_.join();
  for (auto& r : recorders_) {
    file_trailer t{trailer_magic, r->chunks_written_, r->records_written_, r->stalls_};
    const bool ok = !r->failed_ && std::fwrite(&t, sizeof(t), 1, r->file_) == 1;
    if (std::fclose(r->file_) != 0 || !ok) {
      if (error_.empty()) error_ = "+trace: closing the trace of pe " + std::to_string(r->pe) + " failed";
    }
    r->file_ = nullptr;
  }
  finish_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return error_;
}

std::vector<std::string> trace_writer::file_names() const {
  std::vector<std::string> out;
  for (const auto& r : recorders_) out.push_back("pe-" + std::to_string(r->pe) + ".roamtrace");
  return out;
}

std::uint64_t trace_writer::stalls() const noexcept {
  std::uint64_t n = 0;
  for (const auto& r : recorders_) n += r->stalls_;
  return n;
}

std::uint64_t trace_writer::records() const noexcept {
  std::uint64_t n = 0;
  for (const auto& r : recorders_) n += r->records_written_;
  return n;
}

}  // namespace roam::trace::detail
