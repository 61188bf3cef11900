#pragma once
// Payloads of the launcher conversation (process <-> roamrun). Each process
// registers the address its peers should dial, receives the full peer table,
// and later uses the same connection for allgather rounds. Decoders treat their
// input as untrusted: a bad length gives nullopt, never a read past the end.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tcp/socket_io.hpp"

namespace roam::detail::tcp {

std::vector<std::byte> encode_register(const host_port& listen_at);
std::optional<host_port> decode_register(std::span<const std::byte> payload);

std::vector<std::byte> encode_peer_table(const std::vector<host_port>& table);
std::optional<std::vector<host_port>> decode_peer_table(std::span<const std::byte> payload);

std::vector<std::byte> encode_blobs(const std::vector<std::vector<std::byte>>& blobs);
std::optional<std::vector<std::vector<std::byte>>> decode_blobs(std::span<const std::byte> payload);

/// Header + payload in one buffer (for the small control frames).
std::vector<std::byte> make_frame(frame_kind kind, std::span<const std::byte> payload);

}  // namespace roam::detail::tcp
