#pragma once
// The message: scheduler work item + envelope + payload. Inside one process
// the payload is the entry method's typed arguments, moved in (no
// serialization); it is packed with pup only when it leaves the process (or
// under +serialize).
#include <cstdint>
#include <cstring>

#include <roam/sched/detail/post.hpp>

namespace roam::detail {

/// Up to six coordinates: an array index, or a chare's 64-bit id in v[0..1].
struct index_storage {
  std::int32_t v[6] = {};
  friend bool operator==(const index_storage&, const index_storage&) = default;
  template <class P>
  void pup(P& p) {
    for (auto& x : v) p | x;
  }
};

/// What a message is addressed to.
enum class target_kind : std::uint8_t {
  chare,            ///< one singleton chare (id in index)
  element,          ///< one array element
  array_all,        ///< every element of an array (arrives at the root, then travels down the PE tree)
  group_member,     ///< the group member on the destination PE
  group_all,        ///< every group member (arrives at the root, then travels down the PE tree)
  section_all,      ///< every member of an array section on the PEs of its tree (section id in index.v[0])
  nodegroup,        ///< the nodegroup member of this process (any PE runs it)
  control,          ///< runtime-internal (creation, destruction)
};

/// How the payload is held.
enum class payload_kind : std::uint8_t {
  inline_args,  ///< typed arguments constructed right after the header, consumed by one delivery
  shared_args,  ///< pointer to a reference-counted typed payload shared by a fan-out
  packed,       ///< pup bytes right after the header (wire format payload)
};

struct entry_ops;

/// Envelope. Invariant: `ops` describes the payload; `payload_bytes` is the packed size for packed
/// payloads, else the size of the typed (or shared) payload, which only observers read.
/// Aligned so that any payload of alignment <= 16 can follow it directly.
struct alignas(16) message : work_item {
  const entry_ops* ops = nullptr;
  std::uint32_t collection = 0;   ///< collection number (arrays, groups, nodegroups)
  std::uint32_t dst_pe = 0;
  std::uint32_t src_pe = 0;
  std::uint32_t payload_bytes = 0;
  target_kind target = target_kind::element;
  payload_kind payload = payload_kind::inline_args;
  std::uint8_t dims = 0;          ///< number of meaningful index coordinates
  bool is_call = false;           ///< payload also carries a promise for the result
  index_storage index;
  std::uint32_t seq = 0;          ///< array broadcasts: number given by the root (delivery in that order)

  void* payload_ptr() noexcept { return this + 1; }
  const void* payload_ptr() const noexcept { return this + 1; }
};

static_assert(sizeof(message) <= 96, "keep the envelope within a cache line and a half");
static_assert(sizeof(message) % 16 == 0);

/// Allocates a message with room for `payload` bytes after the header.
inline message* allocate_message(std::size_t payload) {
  static_assert(alignof(message) <= 16);
  return ::new (allocate_item(sizeof(message) + payload)) message();
}

/// Frees the memory of a message whose payload was already destroyed.
inline void free_message(message* m) noexcept {
  m->~message();
  free_item(m);
}

}  // namespace roam::detail
