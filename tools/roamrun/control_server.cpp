#include "control_server.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "say.hpp"
#include "tcp/control_messages.hpp"
#include "tcp/handshake.hpp"
#include "tcp/incoming_hello.hpp"

namespace roam::detail::roamrun {

namespace tcp = roam::detail::tcp;

namespace {
constexpr auto hello_timeout = std::chrono::seconds(10);
constexpr auto write_timeout = std::chrono::seconds(10);
// Allgather blobs are small bootstrap data; this bounds what a node can make us hold.
constexpr std::uint64_t max_control_payload = std::uint64_t{256} << 20;

}  // namespace

control_server::control_server(tcp::unique_fd listener, tcp::job_secret secret, std::uint32_t nodes, bool verbose)
    : listener_(std::move(listener)),
      secret_(secret),
      nodes_(nodes),
      verbose_(verbose),
      node_fd_(nodes, -1),
      table_(nodes),
      rounds_(nodes) {}

std::vector<int> control_server::poll_fds() const {
  std::vector<int> fds{listener_.get()};
  for (const auto& c : conns_) fds.push_back(c.fd.get());
  return fds;
}

void control_server::accept_all() {
  for (;;) {
    const int fd = ::accept4(listener_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    tcp::set_nodelay(fd);
    conns_.push_back({tcp::unique_fd(fd), tcp::remote_address(fd), tcp::frame_decoder(tcp::handshake_max_payload),
                      std::nullopt, tcp::clock::now()});
  }
}

void control_server::refuse(connection& c, const std::string& why) {
  say("refused a connection from " + c.remote + ": " + why);
}

void control_server::on_ready(int fd) {
  if (fd == listener_.get()) {
    accept_all();
    return;
  }
  auto it = std::find_if(conns_.begin(), conns_.end(), [&](const connection& c) { return c.fd.get() == fd; });
  if (it == conns_.end()) return;
  auto w = it->decoder.writable();
  ssize_t n;
  do n = ::recv(fd, w.data(), w.size(), 0);
  while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
  bool keep = n > 0;
  if (n > 0) {
    it->decoder.commit(static_cast<std::size_t>(n));
    keep = handle_frames(*it);
  } else if (!it->node) {
    refuse(*it, n == 0 ? "closed before sending a valid hello" : "connection error: " + tcp::errno_text(errno));
  } else if (verbose_) {
    say("node " + std::to_string(*it->node) + " closed its control connection");
  }
  if (!keep) {
    if (it->node) node_fd_[*it->node] = -1;
    conns_.erase(it);
  }
}

bool control_server::handle_frames(connection& c) {
  for (;;) {
    if (!c.node) {
      tcp::tcp_config who;  // what judge_incoming_hello checks against: roamrun's identity
      who.node = tcp::launcher_id;
      who.nodes = nodes_;
      who.secret = secret_;
      auto verdict = tcp::judge_incoming_hello(c.decoder, who, [&](std::uint32_t n) { return node_fd_[n] < 0; });
      if (verdict.waiting) return true;
      if (!verdict.refusal.empty()) {
        refuse(c, verdict.refusal);
        return false;
      }
      c.node = verdict.from;
      node_fd_[verdict.from] = c.fd.get();
      // From now on the node may send allgather blobs: a larger cap than a hello's.
      tcp::frame_decoder bigger(max_control_payload);
      bigger.feed(c.decoder.unread());
      c.decoder = std::move(bigger);
      std::string err;
      if (!tcp::write_all(c.fd.get(), tcp::encode_hello(secret_, tcp::launcher_id, verdict.from),
                          tcp::after(write_timeout), err)) {
        say("node " + std::to_string(verdict.from) + ": " + err);
        return false;
      }
      continue;
    }
    const std::uint32_t node = *c.node;
    const auto f = c.decoder.next();
    if (f.st == tcp::frame_decoder::status::need_more) return true;
    if (f.st == tcp::frame_decoder::status::error) {
      say("node " + std::to_string(node) + " (" + c.remote + ") sent a malformed frame: " + c.decoder.error_message());
      return false;
    }
    if (f.kind == tcp::frame_kind::register_node) {
      auto hp = tcp::decode_register(f.payload);
      if (!hp || table_[node]) {
        say("node " + std::to_string(node) + " sent a bad registration");
        return false;
      }
      table_[node] = *hp;
      if (verbose_) say("node " + std::to_string(node) + " listens on " + hp->str());
      maybe_send_table();
    } else if (f.kind == tcp::frame_kind::launcher_note) {
      if (on_note) on_note(node, std::string(reinterpret_cast<const char*>(f.payload.data()), f.payload.size()));
    } else if (f.kind == tcp::frame_kind::allgather) {
      rounds_[node].emplace_back(f.payload.begin(), f.payload.end());
      maybe_finish_round();
    } else {
      say("node " + std::to_string(node) + " sent an unexpected " + std::string(tcp::kind_name(f.kind)) +
          " frame on its control connection");
      return false;
    }
  }
}

bool control_server::send_to(std::uint32_t node, const std::vector<std::byte>& frame) {
  if (node_fd_[node] < 0) return false;
  std::string err;
  if (tcp::write_all(node_fd_[node], frame, tcp::after(write_timeout), err)) return true;
  say("node " + std::to_string(node) + ": " + err);
  return false;
}

void control_server::maybe_send_table() {
  if (table_sent_) return;
  std::vector<tcp::host_port> table;
  for (const auto& e : table_) {
    if (!e) return;
    table.push_back(*e);
  }
  const auto frame = tcp::make_frame(tcp::frame_kind::peer_table, tcp::encode_peer_table(table));
  for (std::uint32_t n = 0; n < nodes_; ++n) send_to(n, frame);
  table_sent_ = true;
  if (verbose_) say("all " + std::to_string(nodes_) + " nodes registered; peer table sent");
}

void control_server::maybe_finish_round() {
  while (std::all_of(rounds_.begin(), rounds_.end(), [](const auto& q) { return !q.empty(); })) {
    std::vector<std::vector<std::byte>> blobs;
    for (auto& q : rounds_) {
      blobs.push_back(std::move(q.front()));
      q.pop_front();
    }
    const auto frame = tcp::make_frame(tcp::frame_kind::allgather_result, tcp::encode_blobs(blobs));
    for (std::uint32_t n = 0; n < nodes_; ++n) send_to(n, frame);
  }
}

tcp::clock::time_point control_server::check_timeouts(tcp::clock::time_point now) {
  auto next = tcp::clock::time_point::max();
  for (auto it = conns_.begin(); it != conns_.end();) {
    if (!it->node && now - it->since > hello_timeout) {
      refuse(*it, "no hello within " + std::to_string(hello_timeout.count()) + " s");
      it = conns_.erase(it);
      continue;
    }
    if (!it->node) next = std::min(next, it->since + hello_timeout);
    ++it;
  }
  return next;
}

}  // namespace roam::detail::roamrun
