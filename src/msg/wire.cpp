#include <cstdint>
#include <limits>

#include <roam/msg/detail/entry.hpp>
#include <roam/msg/detail/packed_payload.hpp>
#include <roam/msg/detail/wire.hpp>
#include <roam/sched/detail/heap_route.hpp>

#include <roam/msg/detail/crc32c.hpp>

namespace roam::detail {

namespace {

// Field-by-field layout, independent of the in-memory envelope.
struct wire_header {
  std::uint32_t magic;
  std::uint32_t crc;  // over the header (with crc = 0) and the payload
  std::uint16_t version;
  std::uint8_t target;
  std::uint8_t payload_flags;  // bit 0: is_call; bit 1: the crc covers the payload too
  std::uint8_t dims;
  std::uint8_t reserved;    // must be 0
  std::uint16_t segments;   // out-of-line segments that travel beside the frame
  std::int32_t priority;
  std::uint32_t work_flags;
  std::uint64_t entry;
  std::uint32_t collection;
  std::uint32_t dst_pe;
  std::uint32_t src_pe;
  std::uint32_t payload_bytes;
  std::int32_t index[6];
  std::uint32_t seq;
};
static_assert(std::is_trivially_copyable_v<wire_header>);

constexpr std::uint8_t flag_is_call = 1;
constexpr std::uint8_t flag_payload_crc = 2;

// The header is always checksummed. The payload is too up to this size: above
// it the checksum would cost more than the transfer (about 8 GB/s here, paid
// on both sides: 130 us per MiB per hop), and the transports below are
// reliable (TCP checksums its segments, MPI shared memory does not corrupt).
// Lengths are still validated exactly.
constexpr std::size_t payload_crc_limit = 16 * 1024;

std::uint32_t frame_crc(const wire_header& h, std::span<const std::byte> payload) {
  wire_header copy = h;
  copy.crc = 0;
  std::uint32_t c = crc32c(&copy, sizeof(copy));
  if (!(h.payload_flags & flag_payload_crc)) return c;
  return crc32c(payload.data(), payload.size(), c);
}

}  // namespace

out_frame pack_message(const message& m) {
  // The sizing and the packing pass place the same buffers out of line.
  segment_table sizing;
  const std::size_t payload = m.ops->packed_size(&m, &sizing);
  if (payload > std::numeric_limits<std::uint32_t>::max())
    throw pup_error("message payload of " + std::to_string(payload) + " bytes exceeds 4 GiB (pass large data in "
                    "roam::buffer arguments, which travel out of line)");
  out_frame out(sizeof(wire_header) + payload);  // not zero-filled: the packer writes every byte
  segment_table packing(out);
  m.ops->pack(&m, out.data() + sizeof(wire_header), payload, &packing);
  wire_header h{};
  h.magic = wire_magic;
  h.version = wire_version;
  h.target = static_cast<std::uint8_t>(m.target);
  h.payload_flags = static_cast<std::uint8_t>((m.is_call ? flag_is_call : 0) | (payload <= payload_crc_limit ? flag_payload_crc : 0));
  h.dims = m.dims;
  h.segments = static_cast<std::uint16_t>(out.segments().size());
  h.priority = m.priority;
  h.work_flags = m.flags & ~static_cast<std::uint32_t>(work_segments | work_received);  // this process's memory and observers only
  h.entry = m.ops->id;
  h.collection = m.collection;
  h.dst_pe = m.dst_pe;
  h.src_pe = m.src_pe;
  h.payload_bytes = static_cast<std::uint32_t>(payload);
  for (int i = 0; i < 6; ++i) h.index[i] = m.index.v[i];
  h.seq = m.seq;
  h.crc = frame_crc(h, out.bytes().subspan(sizeof(wire_header)));
  std::memcpy(out.data(), &h, sizeof(h));
  return out;
}

namespace {

// Validates a frame; returns its header (the payload follows it).
wire_header check_frame(std::span<const std::byte> frame) {
  if (frame.size() < sizeof(wire_header))
    throw wire_error("message frame truncated: " + std::to_string(frame.size()) + " bytes, header needs " +
                     std::to_string(sizeof(wire_header)));
  wire_header h;
  std::memcpy(&h, frame.data(), sizeof(h));
  if (h.magic != wire_magic) throw wire_error("message frame has a bad magic number (not a roam message)");
  if (h.version != wire_version) throw wire_error("message frame version " + std::to_string(h.version) + " unsupported");
  if (frame.size() - sizeof(wire_header) != h.payload_bytes)
    throw wire_error("message frame length mismatch: payload says " + std::to_string(h.payload_bytes) + " bytes, frame has " +
                     std::to_string(frame.size() - sizeof(wire_header)));
  auto payload = frame.subspan(sizeof(wire_header));
  if (frame_crc(h, payload) != h.crc) throw wire_error("message frame checksum mismatch (corrupt data)");
  if (h.target > static_cast<std::uint8_t>(target_kind::control) || h.dims > 6 || h.payload_flags > 3 ||
      (payload.size() <= payload_crc_limit && !(h.payload_flags & flag_payload_crc)) || h.reserved != 0 ||
      h.segments > max_frame_segments || (h.work_flags & work_segments))
    throw wire_error("message frame has invalid envelope fields");
  if (!find_entry(h.entry)) throw wire_error("message frame names unknown entry id " + std::to_string(h.entry));
  return h;
}

// The envelope of `h`, on a message whose payload is already in place.
message* build_envelope(void* at, const wire_header& h) {
  message* m = ::new (at) message();
  m->ops = find_entry(h.entry);
  m->priority = h.priority;
  m->flags = h.work_flags;
  m->target = static_cast<target_kind>(h.target);
  m->payload = payload_kind::packed;
  m->is_call = h.payload_flags & flag_is_call;
  m->dims = h.dims;
  m->collection = h.collection;
  m->dst_pe = h.dst_pe;
  m->src_pe = h.src_pe;
  m->payload_bytes = h.payload_bytes;
  for (int i = 0; i < 6; ++i) m->index.v[i] = h.index[i];
  m->seq = h.seq;
  return m;
}

static_assert(sizeof(message) >= sizeof(wire_header), "the wire header must fit in front of the payload");
constexpr std::size_t frame_offset = sizeof(message) - sizeof(wire_header);

constexpr std::size_t align_up(std::size_t n, std::size_t a) noexcept { return (n + a - 1) / a * a; }

}  // namespace

message* unpack_message(std::span<const std::byte> frame, std::span<frame_segment> segments) {
  wire_header h = check_frame(frame);
  if (segments.size() != h.segments)
    throw wire_error("message frame announces " + std::to_string(h.segments) + " out-of-line segments, " +
                     std::to_string(segments.size()) + " arrived");
  auto payload = frame.subspan(sizeof(wire_header));
  if (segments.empty()) {
    void* at = allocate_item(sizeof(message) + payload.size());
    message* m = build_envelope(at, h);
    if (!payload.empty()) std::memcpy(m->payload_ptr(), payload.data(), payload.size());
    return m;
  }
  for (const auto& s : segments)
    if (!s.block || s.block.capacity() < s.bytes) throw wire_error("message frame segment without its memory");
  // The layout of packed_payload.hpp. By reference the blocks are kept as
  // they are; a message that fans out holds copies, so the object layer can
  // copy it bytewise per destination.
  const bool by_reference = !fans_out(static_cast<target_kind>(h.target));
  std::size_t at = payload.size();
  std::size_t data_at[max_frame_segments];
  if (!by_reference) {
    for (std::size_t i = 0; i < segments.size(); ++i) {
      at = align_up(at, 16);
      data_at[i] = at;
      at += segments[i].bytes;
    }
  }
  const std::size_t entries_at = align_up(at, 16);
  const std::size_t total = entries_at + segments.size() * sizeof(segment_entry) + sizeof(segment_trailer);
  if (total > std::numeric_limits<std::uint32_t>::max())
    throw wire_error("message to a broadcast or multicast with " + std::to_string(total) +
                     " bytes of segments, more than 4 GiB");
  void* mem = allocate_item(sizeof(message) + total);
  message* m = build_envelope(mem, h);
  auto* base = static_cast<std::byte*>(m->payload_ptr());
  if (!payload.empty()) std::memcpy(base, payload.data(), payload.size());
  auto* entries = reinterpret_cast<segment_entry*>(base + entries_at);
  for (std::size_t i = 0; i < segments.size(); ++i) {
    if (by_reference) {
      entries[i] = {static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(segments[i].block.release())),
                    segments[i].bytes};
    } else {
      if (segments[i].bytes != 0) std::memcpy(base + data_at[i], segments[i].block.data(), segments[i].bytes);
      entries[i] = {data_at[i], segments[i].bytes};
    }
  }
  const segment_trailer t{static_cast<std::uint32_t>(payload.size()), static_cast<std::uint32_t>(segments.size()),
                          by_reference ? 1u : 0u, 0u};
  std::memcpy(base + total - sizeof t, &t, sizeof t);
  m->payload_bytes = static_cast<std::uint32_t>(total);
  m->flags |= work_segments;
  return m;
}


void* allocate_frame_block(std::size_t frame_bytes, std::byte*& frame_at) {
  std::size_t payload = frame_bytes >= sizeof(wire_header) ? frame_bytes - sizeof(wire_header) : 0;
  void* block = allocate_item(sizeof(message) + payload);
  frame_at = static_cast<std::byte*>(block) + frame_offset;
  return block;
}

message* unpack_message_in_place(void* block, std::size_t frame_bytes) {
  auto* frame = static_cast<const std::byte*>(block) + frame_offset;
  wire_header h = check_frame(std::span(frame, frame_bytes));
  if (h.segments != 0)
    throw wire_error("message frame announces " + std::to_string(h.segments) + " out-of-line segments, none arrived");
  return build_envelope(block, h);  // overwrites the wire header, already copied out
}

void free_frame_block(void* block) noexcept { free_item(block); }

message* roundtrip_through_wire(message* m) {
  heap_route_pause pause;  // the copy is the process's; the original's memory goes back where it came from
  out_frame frame = pack_message(*m);
  std::vector<frame_segment> segments = frame.take_segments();
  message* copy = unpack_message(frame.bytes(), segments);
  copy->run = m->run;
  m->ops->destroy(m);
  free_message(m);
  return copy;
}

}  // namespace roam::detail
