// The launcher conversation's payloads, the handshake and the environment
// contract of the tcp transport: round trips, and untrusted input that must be
// rejected rather than read past its end.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "tcp/control_messages.hpp"
#include "tcp/handshake.hpp"
#include "tcp/job_secret.hpp"
#include "tcp/tcp_config.hpp"

namespace tcp_control_messages_test {

using namespace roam::detail;
using namespace roam::detail::tcp;

namespace {

TEST(tcp_control_messages, peer_table_and_blobs_round_trip) {
  const std::vector<host_port> table = {{"127.0.0.1", 4000}, {"node-b.example", 65535}, {"::1", 1}};
  auto t = decode_peer_table(encode_peer_table(table));
  ASSERT_TRUE(t);
  ASSERT_EQ(t->size(), 3u);
  EXPECT_EQ((*t)[1].host, "node-b.example");
  EXPECT_EQ((*t)[2].str(), "[::1]:1");
  const std::vector<std::vector<std::byte>> blobs = {{}, {std::byte{1}, std::byte{2}}, std::vector<std::byte>(1000)};
  EXPECT_EQ(decode_blobs(encode_blobs(blobs)), blobs);
  auto r = decode_register(encode_register({"10.0.0.7", 1234}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->str(), "10.0.0.7:1234");
}

TEST(tcp_control_messages, truncated_or_random_payloads_are_rejected_not_overread) {
  const auto seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  std::mt19937_64 rng(seed);
  const auto table = encode_peer_table({{"a", 1}, {"bb", 2}});
  const auto blobs = encode_blobs({{std::byte{7}}, {}});
  for (std::size_t n = 0; n < table.size(); ++n) EXPECT_FALSE(decode_peer_table(std::span(table).first(n))) << n;
  for (std::size_t n = 0; n < blobs.size(); ++n) EXPECT_FALSE(decode_blobs(std::span(blobs).first(n))) << n;
  for (int i = 0; i < 3000; ++i) {
    std::vector<std::byte> junk(rng() % 64);
    for (auto& b : junk) b = static_cast<std::byte>(rng() % 4 == 0 ? 0xFF : rng() % 8);
    (void)decode_peer_table(junk);
    (void)decode_blobs(junk);
    (void)decode_register(junk);
  }
}

TEST(tcp_handshake, a_hello_with_the_secret_is_accepted_and_any_other_refused) {
  std::string err;
  const auto secret = generate_job_secret(err);
  ASSERT_TRUE(secret) << err;
  const auto wire = encode_hello(*secret, 3, 5);
  const hello h = decode_hello(std::span(wire).subspan(frame_header_size));
  EXPECT_EQ(h.from, 3u);
  EXPECT_EQ(hello_refusal(h, *secret, 5), "");
  EXPECT_NE(hello_refusal(h, *secret, 4).find("addressed to node 5"), std::string::npos);
  auto other = *secret;
  other.bytes[15] ^= std::byte{1};
  EXPECT_EQ(hello_refusal(h, other, 5), "wrong job secret");
}

TEST(tcp_handshake, secrets_survive_hex_and_bad_hex_is_rejected) {
  std::string err;
  const auto s = generate_job_secret(err);
  ASSERT_TRUE(s);
  const auto back = parse_job_secret(to_hex(*s));
  ASSERT_TRUE(back);
  EXPECT_TRUE(secrets_equal(*s, *back));
  EXPECT_FALSE(parse_job_secret("abc"));
  EXPECT_FALSE(parse_job_secret(std::string(31, 'a') + "g"));
  const auto again = generate_job_secret(err);
  EXPECT_FALSE(secrets_equal(*s, *again));  // 2^-128 chance of a false failure
}

struct fake_env {
  std::map<std::string, std::string> vars;
  std::function<const char*(const char*)> getter() const {
    return [this](const char* n) -> const char* {
      auto it = vars.find(n);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
};

fake_env valid_env() {
  return {{{"ROAM_TCP_NODE", "1"},
           {"ROAM_TCP_NODES", "3"},
           {"ROAM_TCP_LAUNCHER", "127.0.0.1:5000"},
           {"ROAM_TCP_SECRET", std::string(32, 'a')}}};
}

TEST(tcp_config, the_contract_is_read_with_defaults_for_the_tunables) {
  const auto env = valid_env();
  std::string err;
  auto c = read_tcp_config(env.getter(), err);
  ASSERT_TRUE(c) << err;
  EXPECT_EQ(c->node, 1u);
  EXPECT_EQ(c->nodes, 3u);
  EXPECT_EQ(c->launcher.port, 5000);
  EXPECT_EQ(c->heartbeat_timeout.count(), 60000);
  EXPECT_EQ(c->burst, 64u);
}

TEST(tcp_config, each_bad_variable_is_named_in_the_error) {
  const std::pair<const char*, const char*> bad[] = {
      {"ROAM_TCP_NODE", "3"},           {"ROAM_TCP_NODES", "0"},
      {"ROAM_TCP_LAUNCHER", "nohost"},  {"ROAM_TCP_SECRET", "xyz"},
      {"ROAM_TCP_BURST", "0"},          {"ROAM_TCP_HEARTBEAT_TIMEOUT_MS", "500"},
      {"ROAM_TCP_MAX_FRAME", "12"},     {"ROAM_TCP_FINISH_TIMEOUT_MS", "soon"},
  };
  for (const auto& [name, value] : bad) {
    auto env = valid_env();
    env.vars[name] = value;
    std::string err;
    EXPECT_FALSE(read_tcp_config(env.getter(), err)) << name;
    EXPECT_NE(err.find(name), std::string::npos) << name << ": " << err;
  }
  auto env = valid_env();
  env.vars.erase("ROAM_TCP_SECRET");
  std::string err;
  EXPECT_FALSE(read_tcp_config(env.getter(), err));
  EXPECT_NE(err.find("started by roamrun"), std::string::npos) << err;
}

}  // namespace
}  // namespace tcp_control_messages_test
