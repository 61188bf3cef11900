#include "tcp/bootstrap.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

#include "tcp/control_messages.hpp"
#include "tcp/handshake.hpp"
#include "tcp/incoming_hello.hpp"
#include "tcp/tcp_log.hpp"

namespace roam::detail::tcp {

namespace {

/// A connection we dialled, waiting for the peer's answering hello.
struct dialled {
  std::uint32_t node = 0;
  unique_fd fd;
  frame_decoder decoder{handshake_max_payload};
};

/// A connection we accepted, waiting for its hello.
struct accepted {
  unique_fd fd;
  std::string remote;
  frame_decoder decoder{handshake_max_payload};
};

/// The decoder a peer connection keeps for the rest of the run, holding any
/// bytes that followed the hello.
frame_decoder promote(const frame_decoder& handshake, std::uint64_t max_frame) {
  frame_decoder d(max_frame);
  d.feed(handshake.unread());
  return d;
}

/// Reads what is there into `dec`; "" while the connection is healthy.
std::string pull(int fd, frame_decoder& dec) {
  auto w = dec.writable();
  ssize_t n;
  do n = ::recv(fd, w.data(), w.size(), 0);
  while (n < 0 && errno == EINTR);
  if (n > 0) {
    dec.commit(static_cast<std::size_t>(n));
    return {};
  }
  if (n == 0) return "closed the connection";
  if (errno == EAGAIN || errno == EWOULDBLOCK) return {};
  return errno_text(errno);
}

bool talk_to_launcher(const tcp_config& cfg, bootstrap_result& r, deadline by, std::vector<host_port>& table,
                      std::string& error) {
  const std::string where = "roamrun at " + cfg.launcher.str();
  r.launcher = connect_tcp(cfg.launcher, by, error);
  if (!r.launcher) return false;
  const auto hello_frame = encode_hello(cfg.secret, cfg.node, launcher_id);
  if (!write_all(r.launcher.get(), hello_frame, by, error)) return false;
  frame_decoder::result f;
  if (!read_frame(r.launcher.get(), r.launcher_decoder, by, f, error)) {
    error = "no hello from " + where + ": " + error;
    return false;
  }
  if (f.kind != frame_kind::hello) {
    error = where + " answered with a " + std::string(kind_name(f.kind)) + " frame instead of a hello";
    return false;
  }
  const hello h = decode_hello(f.payload);
  if (std::string why = hello_refusal(h, cfg.secret, cfg.node); !why.empty() || h.from != launcher_id) {
    error = where + " failed the handshake: " + (why.empty() ? "it did not speak as roamrun" : why);
    return false;
  }

  // Listen where roamrun reached us: that interface is routable from the
  // launcher's side of the network, and on one host it is loopback.
  auto local = local_address(r.launcher.get());
  if (!local) {
    error = "cannot read the local address of the roamrun connection";
    return false;
  }
  r.listener = listen_tcp(local->host, 0, error);
  if (!r.listener) return false;
  auto bound = local_address(r.listener.get());
  if (!bound) {
    error = "cannot read the listening address";
    return false;
  }
  r.listen_address = *bound;
  const auto reg = make_frame(frame_kind::register_node, encode_register(*bound));
  if (!write_all(r.launcher.get(), reg, by, error)) return false;
  if (!read_frame(r.launcher.get(), r.launcher_decoder, by, f, error)) {
    error = "no peer table from " + where + ": " + error;
    return false;
  }
  auto t = f.kind == frame_kind::peer_table ? decode_peer_table(f.payload) : std::nullopt;
  if (!t || t->size() != cfg.nodes) {
    error = where + " sent a malformed peer table";
    return false;
  }
  table = std::move(*t);
  return true;
}

}  // namespace

std::optional<bootstrap_result> bootstrap(const tcp_config& cfg, std::string& error) {
  const deadline by = after(cfg.connect_timeout);
  bootstrap_result r{unique_fd{}, frame_decoder(cfg.max_frame), unique_fd{}, host_port{}, {}};
  std::vector<host_port> table;
  if (!talk_to_launcher(cfg, r, by, table, error)) return std::nullopt;
  r.peers.reserve(cfg.nodes);
  for (std::uint32_t j = 0; j < cfg.nodes; ++j)
    r.peers.push_back({unique_fd{}, table[j].str(), frame_decoder(cfg.max_frame)});

  std::vector<dialled> out;
  for (std::uint32_t j = cfg.node + 1; j < cfg.nodes; ++j) {
    dialled d;
    d.node = j;
    d.fd = connect_tcp(table[j], by, error);
    if (!d.fd) {
      error = "node " + std::to_string(j) + ": " + error;
      return std::nullopt;
    }
    if (!write_all(d.fd.get(), encode_hello(cfg.secret, cfg.node, j), by, error)) {
      error = "node " + std::to_string(j) + " (" + table[j].str() + "): " + error;
      return std::nullopt;
    }
    out.push_back(std::move(d));
  }

  std::vector<accepted> in;
  std::size_t missing = cfg.nodes - 1;
  while (missing > 0) {
    std::vector<pollfd> fds;
    fds.push_back({r.listener.get(), POLLIN, 0});
    for (auto& d : out) fds.push_back({d.fd.get(), POLLIN, 0});
    for (auto& a : in) fds.push_back({a.fd.get(), POLLIN, 0});
    const int rc = ::poll(fds.data(), fds.size(), poll_timeout_ms(by));
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) {
      std::string who;
      for (std::uint32_t j = 0; j < cfg.nodes; ++j)
        if (j != cfg.node && !r.peers[j].fd) who += (who.empty() ? "" : ", ") + std::to_string(j);
      error = "timed out after " + std::to_string(cfg.connect_timeout.count()) +
              " ms waiting for the handshake with node(s) " + who + " (ROAM_TCP_CONNECT_TIMEOUT_MS)";
      return std::nullopt;
    }

    // Answers to our dials: a bad one is fatal, that node is part of the job.
    std::size_t k = 1;
    for (auto it = out.begin(); it != out.end(); ++k) {
      if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) {
        ++it;
        continue;
      }
      const std::string who = "node " + std::to_string(it->node) + " (" + table[it->node].str() + ")";
      if (std::string why = pull(it->fd.get(), it->decoder); !why.empty()) {
        error = who + " during the handshake: " + why;
        return std::nullopt;
      }
      auto f = it->decoder.next();
      if (f.st == frame_decoder::status::need_more) {
        ++it;
        continue;
      }
      if (f.st == frame_decoder::status::error || f.kind != frame_kind::hello) {
        error = who + " answered with a bad handshake: " +
                (f.st == frame_decoder::status::error ? it->decoder.error_message() : "not a hello frame");
        return std::nullopt;
      }
      const hello h = decode_hello(f.payload);
      if (std::string why = hello_refusal(h, cfg.secret, cfg.node); !why.empty() || h.from != it->node) {
        error = who + " failed the handshake: " + (why.empty() ? "it answered as " + endpoint_name(h.from) : why);
        return std::nullopt;
      }
      r.peers[it->node].fd = std::move(it->fd);
      r.peers[it->node].decoder = promote(it->decoder, cfg.max_frame);
      --missing;
      it = out.erase(it);
    }

    // Hellos on accepted connections: a bad one is refused and logged, then ignored.
    for (auto it = in.begin(); it != in.end(); ++k) {
      if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) {
        ++it;
        continue;
      }
      std::string why = pull(it->fd.get(), it->decoder);
      std::uint32_t from = 0;
      if (why.empty()) {
        auto verdict = judge_incoming_hello(it->decoder, cfg, [&](std::uint32_t n) {
          return n < cfg.node && !r.peers[n].fd;
        });
        if (verdict.waiting) {
          ++it;
          continue;
        }
        why = verdict.refusal;
        from = verdict.from;
      } else {
        why = "the connection ended before its hello (" + why + ")";
      }
      if (!why.empty()) {
        log_line(cfg.node, "refused a connection from " + it->remote + ": " + why);
        it = in.erase(it);
        continue;
      }
      std::string werr;
      if (!write_all(it->fd.get(), encode_hello(cfg.secret, cfg.node, from), by, werr)) {
        error = "node " + std::to_string(from) + " (" + table[from].str() + ") during the handshake: " + werr;
        return std::nullopt;
      }
      r.peers[from].fd = std::move(it->fd);
      r.peers[from].decoder = promote(it->decoder, cfg.max_frame);
      --missing;
      it = in.erase(it);
    }

    if (fds[0].revents & POLLIN) {
      for (;;) {
        const int fd = ::accept4(r.listener.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) break;
        accepted a;
        a.fd.reset(fd);
        a.remote = remote_address(fd);
        set_nodelay(fd);
        in.push_back(std::move(a));
      }
    }
  }
  for (auto& a : in) log_line(cfg.node, "refused a connection from " + a.remote + ": no hello before the bootstrap ended");
  return r;
}

}  // namespace roam::detail::tcp
