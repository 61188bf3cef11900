#include "machine/tcp/frame_decoder.hpp"

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

std::span<std::byte> frame_decoder::writable() {
  std::size_t need = read_chunk_;
  const std::size_t live = end_ - begin_;
  if (!failed() && live >= frame_header_size) {
    const frame_header h = parse_header(buf_.get() + begin_);
    // Only a validated length may size the buffer.
    if (h.magic == frame_magic && h.version == frame_version && h.length <= max_payload_) {
      const std::size_t total = frame_header_size + static_cast<std::size_t>(h.length);
      if (total > live) need = std::max(need, total - live);
    }
  }
  make_room(need);
  return {buf_.get() + end_, cap_ - end_};
}

void frame_decoder::commit(std::size_t n) noexcept { end_ = std::min(end_ + n, cap_); }

void frame_decoder::feed(std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    auto w = writable();
    const std::size_t n = std::min(w.size(), bytes.size());
    std::memcpy(w.data(), bytes.data(), n);
    commit(n);
    bytes = bytes.subspan(n);
  }
}

bool frame_decoder::has_complete_frame() const noexcept {
  if (failed()) return true;
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
  const std::size_t live = end_ - begin_;
  if (live < frame_header_size) return r;
  const frame_header h = parse_header(buf_.get() + begin_);
  if (!validate(h)) {
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
