#include "tcp/frame_decoder.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace roam::detail::tcp {

namespace {
// A buffer this much larger than a chunk is given back once it is empty, so one
// 100 MiB frame does not pin 100 MiB per connection for the rest of the run.
constexpr std::size_t keep_capacity_chunks = 64;

std::string hex32(std::uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}
}  // namespace

std::string_view kind_name(frame_kind k) noexcept {
  switch (k) {
    case frame_kind::hello: return "hello";
    case frame_kind::user: return "user";
    case frame_kind::user_segmented: return "segmented user";
    case frame_kind::heartbeat: return "heartbeat";
    case frame_kind::finish: return "finish";
    case frame_kind::register_node: return "register";
    case frame_kind::peer_table: return "peer table";
    case frame_kind::allgather: return "allgather";
    case frame_kind::allgather_result: return "allgather result";
    case frame_kind::launcher_note: return "launcher note";
  }
  return "unknown";
}

frame_decoder::frame_decoder(std::uint64_t max_payload, std::size_t read_chunk)
    : max_payload_(std::min<std::uint64_t>(max_payload, std::uint64_t{1} << 48)), read_chunk_(std::max<std::size_t>(read_chunk, frame_header_size)) {}

bool frame_decoder::validate(const frame_header& h) noexcept {
  if (h.magic != frame_magic) {
    error_ = "bad magic " + hex32(h.magic) + " (not a roam tcp frame, or the stream lost its framing)";
  } else if (h.version != frame_version) {
    error_ = "unsupported frame version " + std::to_string(h.version) + " (this build speaks " +
             std::to_string(frame_version) + ")";
  } else if (!is_known_kind(h.kind)) {
    error_ = "unknown frame kind " + std::to_string(h.kind);
  } else if (h.reserved != 0) {
    error_ = "reserved header bits set (" + std::to_string(h.reserved) + ")";
  } else if (h.length > max_payload_) {
    error_ = "frame length " + std::to_string(h.length) + " exceeds the limit " + std::to_string(max_payload_) +
             " (ROAM_TCP_MAX_FRAME)";
  } else if (auto fixed = fixed_payload_size(static_cast<frame_kind>(h.kind));
             fixed >= 0 && h.length != static_cast<std::uint64_t>(fixed)) {
    error_ = std::string(kind_name(static_cast<frame_kind>(h.kind))) + " frame with " + std::to_string(h.length) +
             " payload bytes (must be " + std::to_string(fixed) + ")";
  }
  return error_.empty();
}

void frame_decoder::make_room(std::size_t need) {
  const std::size_t live = end_ - begin_;
  if (live == 0) {
    begin_ = end_ = 0;  // empty: start over at the front, no copy needed
    if (cap_ > keep_capacity_chunks * read_chunk_ && need <= read_chunk_) {
      buf_.reset();  // the big frame is gone; return its memory
      cap_ = 0;
    }
  }
  if (cap_ - end_ >= need) return;
  if (cap_ - live >= need && begin_ > 0) {
    // Enough room once the consumed prefix is dropped.
    std::memmove(buf_.get(), buf_.get() + begin_, live);
  } else {
    const std::size_t new_cap = std::max(live + need, std::min(cap_ * 2, live + need + 4 * read_chunk_));
    auto bigger = std::make_unique_for_overwrite<std::byte[]>(new_cap);
    if (live > 0) std::memcpy(bigger.get(), buf_.get() + begin_, live);
    buf_ = std::move(bigger);
    cap_ = new_cap;
  }
  begin_ = 0;
  end_ = live;
}

void frame_decoder::skip_full_segments() noexcept {
  while (seg_index_ < segs_.size() && seg_filled_ == segs_[seg_index_].bytes) {
    ++seg_index_;
    seg_filled_ = 0;
  }
}

void frame_decoder::maybe_enter_segment_mode() {
  const std::size_t live = end_ - begin_;
  if (live < frame_header_size) return;
  const frame_header h = parse_header(buf_.get() + begin_);
  if (h.kind != static_cast<std::uint8_t>(frame_kind::user_segmented) || !validate(h)) return;
  if (h.length <= live - frame_header_size) return;  // all here: next() hands it out whole
  std::string why;
  const auto st = parse_segment_table({buf_.get() + begin_ + frame_header_size, live - frame_header_size}, h.length,
                                      fields_, why);
  if (st == table_status::error) {
    error_ = std::move(why);
    return;
  }
  if (st == table_status::need_more) return;
  const std::size_t table_end = frame_header_size + fields_.table_bytes;
  const std::size_t head = table_end + static_cast<std::size_t>(fields_.inline_bytes);
  if (live < head) return;
  // Lengths are validated against h.length <= max_payload_: the blocks are bounded.
  segs_.clear();
  segs_.reserve(fields_.lengths.size());
  for (std::uint64_t len : fields_.lengths)
    segs_.push_back({block_ref::allocate(static_cast<std::size_t>(len)), static_cast<std::size_t>(len)});
  seg_index_ = 0;
  seg_filled_ = 0;
  // Bytes read past the head are the first segment bytes (the frame is not
  // complete, so nothing after it is buffered).
  const std::byte* from = buf_.get() + begin_ + head;
  std::size_t extra = live - head;
  while (extra > 0) {
    skip_full_segments();
    frame_segment& s = segs_[seg_index_];
    const std::size_t n = std::min(extra, s.bytes - seg_filled_);
    std::memcpy(s.block.data() + seg_filled_, from, n);
    seg_filled_ += n;
    from += n;
    extra -= n;
  }
  skip_full_segments();
  end_ = begin_ + head;
  seg_head_ = head;
  seg_table_ = table_end;
  seg_mode_ = true;
}

std::span<std::byte> frame_decoder::writable() {
  if (!seg_mode_) {
    segs_.clear();  // a frame handed out by next() is over
    if (!failed()) maybe_enter_segment_mode();
  }
  if (seg_mode_ && !segments_complete()) {
    frame_segment& s = segs_[seg_index_];
    return {s.block.data() + seg_filled_, s.bytes - seg_filled_};
  }
  std::size_t need = read_chunk_;
  const std::size_t live = end_ - begin_;
  if (!failed() && !seg_mode_ && live >= frame_header_size) {
    const frame_header h = parse_header(buf_.get() + begin_);
    // Only a validated length may size the buffer.
    if (h.magic == frame_magic && h.version == frame_version && h.length <= max_payload_) {
      std::size_t total = frame_header_size + static_cast<std::size_t>(h.length);
      if (h.kind == static_cast<std::uint8_t>(frame_kind::user_segmented)) {
        // Only the header, table and inline bytes belong in the buffer;
        // the segments go to blocks once those are in.
        std::string why;
        const auto st = parse_segment_table({buf_.get() + begin_ + frame_header_size, live - frame_header_size},
                                            h.length, fields_, why);
        total = st == table_status::ok ? frame_header_size + fields_.table_bytes +
                                             static_cast<std::size_t>(fields_.inline_bytes)
                                       : 0;
      }
      if (total > live) need = std::max(need, total - live);
    }
  }
  make_room(need);
  return {buf_.get() + end_, cap_ - end_};
}

void frame_decoder::commit(std::size_t n) noexcept {
  if (seg_mode_ && !segments_complete()) {
    seg_filled_ = std::min(seg_filled_ + n, segs_[seg_index_].bytes);
    skip_full_segments();
    return;
  }
  end_ = std::min(end_ + n, cap_);
}

void frame_decoder::feed(std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    auto w = writable();
    const std::size_t n = std::min(w.size(), bytes.size());
    std::memcpy(w.data(), bytes.data(), n);
    commit(n);
    bytes = bytes.subspan(n);
  }
}

bool frame_decoder::bad_segment_table(std::string* why) const noexcept {
  const std::size_t live = end_ - begin_;
  if (live < frame_header_size) return false;
  const frame_header h = parse_header(buf_.get() + begin_);
  if (h.kind != static_cast<std::uint8_t>(frame_kind::user_segmented) || h.length > max_payload_) return false;
  try {
    segment_table_fields t;
    std::string error;
    const auto st =
        parse_segment_table({buf_.get() + begin_ + frame_header_size, live - frame_header_size}, h.length, t, error);
    if (st != table_status::error) return false;
    if (why) *why = std::move(error);
  } catch (...) {
    if (why) *why = "out of memory checking a segment table";
  }
  return true;
}

bool frame_decoder::has_complete_frame() const noexcept {
  if (failed()) return true;
  if (seg_mode_) return segments_complete();
  if (bad_segment_table(nullptr)) return true;  // next() has an error to report
  const std::size_t live = end_ - begin_;
  if (live < frame_header_size) return false;
  const frame_header h = parse_header(buf_.get() + begin_);
  const bool plausible = h.magic == frame_magic && h.version == frame_version && is_known_kind(h.kind) &&
                         h.reserved == 0 && h.length <= max_payload_;
  // An invalid header counts as complete: next() has an error to report.
  return !plausible || h.length <= live - frame_header_size;
}

frame_decoder::result frame_decoder::next() noexcept {
  result r;
  if (failed()) {
    r.st = status::error;
    return r;
  }
  if (seg_mode_) {
    if (!segments_complete()) return r;
    r.st = status::frame;
    r.kind = frame_kind::user_segmented;
    r.payload = {buf_.get() + begin_ + seg_table_, seg_head_ - seg_table_};
    r.segments = segs_;  // cleared by the next writable() or next()
    begin_ += seg_head_;
    seg_mode_ = false;
    return r;
  }
  segs_.clear();
  const std::size_t live = end_ - begin_;
  if (live < frame_header_size) return r;
  const frame_header h = parse_header(buf_.get() + begin_);
  if (!validate(h)) {
    r.st = status::error;
    return r;
  }
  // A segmented frame's table is checked as soon as it is in, before its
  // segments arrive (they may be received into blocks sized by it).
  if (std::string why; bad_segment_table(&why)) {
    error_ = std::move(why);
    r.st = status::error;
    return r;
  }
  if (h.length > live - frame_header_size) return r;
  r.st = status::frame;
  r.kind = static_cast<frame_kind>(h.kind);
  r.payload = {buf_.get() + begin_ + frame_header_size, static_cast<std::size_t>(h.length)};
  begin_ += frame_header_size + static_cast<std::size_t>(h.length);
  return r;
}

}  // namespace roam::detail::tcp
