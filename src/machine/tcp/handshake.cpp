#include "tcp/handshake.hpp"

#include <cstring>

namespace roam::detail::tcp {

std::array<std::byte, frame_header_size + hello_payload_size> encode_hello(const job_secret& secret,
                                                                         std::uint32_t from, std::uint32_t to) {
  std::array<std::byte, frame_header_size + hello_payload_size> out{};
  const auto h = encode_header(frame_kind::hello, hello_payload_size);
  std::memcpy(out.data(), h.data(), h.size());
  std::byte* p = out.data() + frame_header_size;
  std::memcpy(p, secret.bytes.data(), secret.bytes.size());
  store_le(p + 16, from, 4);
  store_le(p + 20, to, 4);
  return out;
}

hello decode_hello(std::span<const std::byte> payload) noexcept {
  hello h;
  if (payload.size() != hello_payload_size) return h;
  std::memcpy(h.secret.bytes.data(), payload.data(), h.secret.bytes.size());
  h.from = static_cast<std::uint32_t>(load_le(payload.data() + 16, 4));
  h.to = static_cast<std::uint32_t>(load_le(payload.data() + 20, 4));
  return h;
}

std::string hello_refusal(const hello& h, const job_secret& expected, std::uint32_t me) {
  if (!secrets_equal(h.secret, expected)) return "wrong job secret";
  if (h.to != me) return "hello addressed to " + endpoint_name(h.to) + ", not " + endpoint_name(me);
  return {};
}

std::string endpoint_name(std::uint32_t id) {
  return id == launcher_id ? std::string("roamrun") : "node " + std::to_string(id);
}

}  // namespace roam::detail::tcp
