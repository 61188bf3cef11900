#pragma once
// The node lists of membership frames (membership.cpp): a failed set, and a
// suspicion, which carries each node's reason with it so that the process
// that decides reports why, not only who told it.
//
//   node list:   u32 count, u32 physical node x count
//   suspicion:   node list, then per node u32 length and that many bytes of reason
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace roam::detail::membership_lists {

inline void put32(std::byte* at, std::uint32_t v) { std::memcpy(at, &v, 4); }
inline std::uint32_t get32(const std::byte* at) {
  std::uint32_t v;
  std::memcpy(&v, at, 4);
  return v;
}

inline std::vector<std::byte> node_list(const std::vector<std::uint32_t>& nodes) {
  std::vector<std::byte> out(4 + 4 * nodes.size());
  put32(out.data(), static_cast<std::uint32_t>(nodes.size()));
  for (std::size_t i = 0; i < nodes.size(); ++i) put32(out.data() + 4 + 4 * i, nodes[i]);
  return out;
}

/// False: malformed, or a node not below `limit`.
inline bool parse_node_list(std::span<const std::byte> payload, std::uint32_t limit, std::vector<std::uint32_t>& out) {
  if (payload.size() < 4) return false;
  const std::uint32_t n = get32(payload.data());
  if (payload.size() != 4 + std::size_t{4} * n) return false;
  out.clear();
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t node = get32(payload.data() + 4 + 4 * i);
    if (node >= limit) return false;
    out.push_back(node);
  }
  return true;
}

/// A suspicion of `nodes`; `reasons` is indexed by physical node.
inline std::vector<std::byte> suspicion_list(const std::vector<std::uint32_t>& nodes, const std::vector<std::string>& reasons) {
  std::vector<std::byte> out = node_list(nodes);
  for (std::uint32_t n : nodes) {
    const std::string& why = reasons[n];
    const std::size_t at = out.size();
    out.resize(at + 4 + why.size());
    put32(out.data() + at, static_cast<std::uint32_t>(why.size()));
    std::memcpy(out.data() + at + 4, why.data(), why.size());
  }
  return out;
}

/// False: malformed (truncated, trailing bytes, a node not below `limit`).
inline bool parse_suspicions(std::span<const std::byte> payload, std::uint32_t limit, std::vector<std::uint32_t>& nodes,
                      std::vector<std::string>& reasons) {
  if (payload.size() < 4) return false;
  const std::size_t list = 4 + std::size_t{4} * get32(payload.data());
  if (list > payload.size() || !parse_node_list(payload.first(list), limit, nodes)) return false;
  reasons.clear();
  std::size_t at = list;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (payload.size() - at < 4) return false;
    const std::uint32_t len = get32(payload.data() + at);
    at += 4;
    if (payload.size() - at < len) return false;
    reasons.emplace_back(reinterpret_cast<const char*>(payload.data() + at), len);
    at += len;
  }
  return at == payload.size();
}

}  // namespace roam::detail::membership_lists
