#include "tcp/control_messages.hpp"

#include <cstring>

namespace roam::detail::tcp {

namespace {
void put(std::vector<std::byte>& out, std::uint64_t v, std::size_t bytes) {
  const std::size_t at = out.size();
  out.resize(at + bytes);
  store_le(out.data() + at, v, bytes);
}
void put_bytes(std::vector<std::byte>& out, const void* p, std::size_t n) {
  const std::size_t at = out.size();
  out.resize(at + n);
  if (n > 0) std::memcpy(out.data() + at, p, n);
}

/// Bounds-checked reader over untrusted bytes.
class reader {
 public:
  explicit reader(std::span<const std::byte> in) : in_(in) {}
  bool get(std::uint64_t& v, std::size_t bytes) {
    if (in_.size() - pos_ < bytes) return false;
    v = load_le(in_.data() + pos_, bytes);
    pos_ += bytes;
    return true;
  }
  bool take(std::span<const std::byte>& out, std::uint64_t n) {
    if (in_.size() - pos_ < n) return false;
    out = in_.subspan(pos_, static_cast<std::size_t>(n));
    pos_ += static_cast<std::size_t>(n);
    return true;
  }
  bool done() const { return pos_ == in_.size(); }
  std::size_t left() const { return in_.size() - pos_; }

 private:
  std::span<const std::byte> in_;
  std::size_t pos_ = 0;
};

std::string as_string(std::span<const std::byte> b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }
}  // namespace

std::vector<std::byte> encode_register(const host_port& listen_at) {
  std::vector<std::byte> out;
  put(out, listen_at.port, 2);
  put_bytes(out, listen_at.host.data(), listen_at.host.size());
  return out;
}

std::optional<host_port> decode_register(std::span<const std::byte> payload) {
  reader r(payload);
  std::uint64_t port = 0;
  std::span<const std::byte> host;
  if (!r.get(port, 2) || port == 0 || !r.take(host, r.left()) || host.empty() || host.size() > 255) return std::nullopt;
  return host_port{as_string(host), static_cast<std::uint16_t>(port)};
}

std::vector<std::byte> encode_peer_table(const std::vector<host_port>& table) {
  std::vector<std::byte> out;
  put(out, table.size(), 4);
  for (const auto& hp : table) {
    put(out, hp.port, 2);
    put(out, hp.host.size(), 2);
    put_bytes(out, hp.host.data(), hp.host.size());
  }
  return out;
}

std::optional<std::vector<host_port>> decode_peer_table(std::span<const std::byte> payload) {
  reader r(payload);
  std::uint64_t n = 0;
  // Each entry takes at least 4 bytes, which bounds n before we reserve.
  if (!r.get(n, 4) || n > r.left() / 4) return std::nullopt;
  std::vector<host_port> table;
  table.reserve(static_cast<std::size_t>(n));
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t port = 0, len = 0;
    std::span<const std::byte> host;
    if (!r.get(port, 2) || !r.get(len, 2) || !r.take(host, len)) return std::nullopt;
    table.push_back({as_string(host), static_cast<std::uint16_t>(port)});
  }
  if (!r.done()) return std::nullopt;
  return table;
}

std::vector<std::byte> encode_blobs(const std::vector<std::vector<std::byte>>& blobs) {
  std::vector<std::byte> out;
  put(out, blobs.size(), 4);
  for (const auto& b : blobs) {
    put(out, b.size(), 8);
    put_bytes(out, b.data(), b.size());
  }
  return out;
}

std::optional<std::vector<std::vector<std::byte>>> decode_blobs(std::span<const std::byte> payload) {
  reader r(payload);
  std::uint64_t n = 0;
  if (!r.get(n, 4) || n > r.left() / 8) return std::nullopt;
  std::vector<std::vector<std::byte>> blobs;
  blobs.reserve(static_cast<std::size_t>(n));
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t len = 0;
    std::span<const std::byte> b;
    if (!r.get(len, 8) || !r.take(b, len)) return std::nullopt;
    blobs.emplace_back(b.begin(), b.end());
  }
  if (!r.done()) return std::nullopt;
  return blobs;
}

std::vector<std::byte> make_frame(frame_kind kind, std::span<const std::byte> payload) {
  std::vector<std::byte> out(frame_header_size + payload.size());
  const auto h = encode_header(kind, payload.size());
  std::memcpy(out.data(), h.data(), h.size());
  if (!payload.empty()) std::memcpy(out.data() + frame_header_size, payload.data(), payload.size());
  return out;
}

}  // namespace roam::detail::tcp
