#pragma once
// The operations table every message kind registers under a stable id, and
// the delivery context used in error reports. Kept apart from entry.hpp so
// that control messages (and futures, built on them) need not see entries.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <roam/msg/detail/message.hpp>
#include <roam/msg/pup.hpp>

namespace roam::detail {

/// Where a message is being delivered; the object layer turns it into text for errors.
struct delivery_context {
  std::uint32_t pe = 0;
  std::uint32_t collection = 0;
  target_kind target = target_kind::element;
  std::uint8_t dims = 0;
  index_storage index;
  const entry_ops* ops = nullptr;
};
using describe_fn = std::string (*)(const delivery_context&);
/// Set by the object layer: "array cell[1,2] entry cell::recv".
inline describe_fn g_describe_delivery = nullptr;
std::string describe_delivery(const delivery_context& ctx);

/// The delivery context of a message about to run on the calling PE.
inline delivery_context context_of(const message& m) noexcept {
  delivery_context c;
  c.pe = tls_pe ? tls_pe->id() : 0;
  c.collection = m.collection;
  c.target = m.target;
  c.dims = m.dims;
  c.index = m.index;
  c.ops = m.ops;
  return c;
}

/// What the runtime can do with a payload of one (class, entry) pair.
struct entry_ops {
  std::uint64_t id;
  std::string_view name;        ///< "cell::take_forces"
  std::string_view class_name;  ///< "cell"
  bool exclusive;               ///< nodegroups: runs under the member's lock
  /// Runs the entry on `obj`; throws what the entry throws (for `call`, errors go to the future instead).
  void (*invoke)(message* m, void* obj);
  /// Destroys the typed payload (or releases the shared one); packed payloads need nothing.
  void (*destroy)(message* m) noexcept;
  /// Serialized size of the payload and its packing (wire path). With a
  /// segment table, large roam::buffers go out of line (segments.hpp); the
  /// sizing and packing tables must both be given, or neither.
  std::size_t (*packed_size)(const message* m, segment_table* segments);
  void (*pack)(const message* m, std::byte* out, std::size_t n, segment_table* segments);
  /// Mailbox entries: appends what the mailbox of object `obj` (the class's
  /// own type) waits for and keeps, for reports of waiting tasks; else null.
  void (*describe_waiting)(const void* obj, std::string& out) = nullptr;
};

/// The serialized size and the packing of a payload, for any `Impl` with a
/// `pup_payload(pup_er&, const message*)` that walks it.
template <class Impl>
std::size_t packed_size_via(const message* m, segment_table* segments) {
  auto p = pup_er::sizer();
  pup_impl::attach_segments(p, segments);
  Impl::pup_payload(p, m);
  return p.offset();
}
template <class Impl>
void pack_via(const message* m, std::byte* out, std::size_t n, segment_table* segments) {
  auto p = pup_er::packer(out, n);
  pup_impl::attach_segments(p, segments);
  Impl::pup_payload(p, m);
  // The frame is not zero-filled: a pup that packs fewer bytes than it sized
  // would send stale memory.
  if (p.offset() != n)
    throw pup_error("roam::pup: packing wrote " + std::to_string(p.offset()) + " bytes of the " + std::to_string(n) +
                    " the sizing pass counted (a pup function that behaves differently when sizing?)");
}

/// Registers an entry at static-initialisation time; collisions are reported at start-up.
bool register_entry(const entry_ops* ops);
/// The entry with this stable id, or nullptr.
const entry_ops* find_entry(std::uint64_t id) noexcept;
/// The registered mailbox entries of class `class_name` (type_name of the
/// object's type), for reports of waiting tasks.
std::vector<const entry_ops*> mailbox_entries_of(std::string_view class_name);

}  // namespace roam::detail
