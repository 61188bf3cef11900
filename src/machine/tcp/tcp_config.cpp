#include "tcp/tcp_config.hpp"

#include <charconv>
#include <string_view>

namespace roam::detail::tcp {

namespace {
bool parse_u64(std::string_view s, std::uint64_t& v) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc{} && p == s.data() + s.size();
}

bool optional_number(const std::function<const char*(const char*)>& get, const char* name, std::uint64_t lo,
                     std::uint64_t hi, std::uint64_t& out, std::string& error) {
  const char* v = get(name);
  if (v == nullptr || *v == '\0') return true;
  std::uint64_t x = 0;
  if (!parse_u64(v, x) || x < lo || x > hi) {
    error = std::string(name) + "='" + v + "' is not a number in [" + std::to_string(lo) + ", " +
            std::to_string(hi) + "]";
    return false;
  }
  out = x;
  return true;
}

bool optional_ms(const std::function<const char*(const char*)>& get, const char* name,
                 std::chrono::milliseconds& out, std::string& error) {
  std::uint64_t v = static_cast<std::uint64_t>(out.count());
  if (!optional_number(get, name, 1, 7ull * 24 * 3600 * 1000, v, error)) return false;
  out = std::chrono::milliseconds(v);
  return true;
}
}  // namespace

std::optional<tcp_config> read_tcp_config(const std::function<const char*(const char*)>& get, std::string& error) {
  tcp_config c;
  auto required = [&](const char* name) -> const char* {
    const char* v = get(name);
    if (v == nullptr || *v == '\0') {
      error = std::string(name) + " is not set (processes of the tcp transport are started by roamrun)";
      return nullptr;
    }
    return v;
  };
  const char* node = required(env_node);
  if (!node) return std::nullopt;
  const char* nodes = required(env_nodes);
  if (!nodes) return std::nullopt;
  const char* launcher = required(env_launcher);
  if (!launcher) return std::nullopt;
  const char* secret = required(env_secret);
  if (!secret) return std::nullopt;

  std::uint64_t n = 0, me = 0;
  if (!parse_u64(nodes, n) || n == 0 || n > 1'000'000) {
    error = std::string(env_nodes) + "='" + nodes + "' is not a node count";
    return std::nullopt;
  }
  if (!parse_u64(node, me) || me >= n) {
    error = std::string(env_node) + "='" + node + "' is not a node number below " + std::to_string(n);
    return std::nullopt;
  }
  c.nodes = static_cast<std::uint32_t>(n);
  c.node = static_cast<std::uint32_t>(me);
  auto hp = parse_host_port(launcher);
  if (!hp) {
    error = std::string(env_launcher) + "='" + launcher + "' is not host:port";
    return std::nullopt;
  }
  c.launcher = *hp;
  auto s = parse_job_secret(secret);
  if (!s) {
    error = std::string(env_secret) + " is not 32 hex digits";  // never echo a secret
    return std::nullopt;
  }
  c.secret = *s;

  std::uint64_t burst = c.burst;
  if (!optional_ms(get, env_heartbeat_interval, c.heartbeat_interval, error) ||
      !optional_ms(get, env_heartbeat_timeout, c.heartbeat_timeout, error) ||
      !optional_ms(get, env_finish_timeout, c.finish_timeout, error) ||
      !optional_ms(get, env_connect_timeout, c.connect_timeout, error) ||
      !optional_number(get, env_max_frame, 1024, std::uint64_t{1} << 48, c.max_frame, error) ||
      !optional_number(get, env_burst, 1, 1u << 30, burst, error))
    return std::nullopt;
  c.burst = static_cast<std::uint32_t>(burst);
  if (c.heartbeat_timeout <= c.heartbeat_interval) {
    error = std::string(env_heartbeat_timeout) + " (" + std::to_string(c.heartbeat_timeout.count()) +
            " ms) must exceed " + env_heartbeat_interval + " (" + std::to_string(c.heartbeat_interval.count()) +
            " ms)";
    return std::nullopt;
  }
  return c;
}

}  // namespace roam::detail::tcp
