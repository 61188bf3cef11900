#include "tcp/tcp_transport.hpp"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "tcp/control_messages.hpp"
#include "tcp/handshake.hpp"
#include "tcp/incoming_hello.hpp"
#include "tcp/segmented_frame.hpp"
#include "tcp/tcp_log.hpp"

namespace roam::detail {

std::unique_ptr<transport> make_tcp_transport(std::string& error) {
  std::string why;
  auto cfg = tcp::read_tcp_config([](const char* n) { return std::getenv(n); }, why);
  if (!cfg) {
    error = "tcp transport: " + why;
    return nullptr;
  }
  auto boot = tcp::bootstrap(*cfg, why);
  if (!boot) {
    error = "tcp transport [node " + std::to_string(cfg->node) + "]: bootstrap failed: " + why;
    return nullptr;
  }
  auto t = tcp::tcp_transport::create(*cfg, std::move(*boot), why);
  if (!t) {
    error = "tcp transport [node " + std::to_string(cfg->node) + "]: " + why;
    return nullptr;
  }
  return t;
}

}  // namespace roam::detail

namespace roam::detail::tcp {

namespace {
// Unauthenticated connections kept at once after bootstrap; more are refused
// at accept, so a flood cannot exhaust our descriptors.
constexpr std::size_t max_strays = 16;
constexpr auto stray_timeout = std::chrono::seconds(10);
// progress() looks at the clock (heartbeats, timeouts) once per this many calls.
constexpr std::uint32_t timer_check_period = 64;
constexpr std::uint32_t direct_epoll_period = 16;

bool add_to_epoll(int epfd, int fd, std::uint64_t tag) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = tag;
  return ::epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) == 0;
}
}  // namespace

std::unique_ptr<tcp_transport> tcp_transport::create(tcp_config cfg, bootstrap_result boot, std::string& error) {
  std::unique_ptr<tcp_transport> t(new tcp_transport(cfg, boot));
  if (!t->epoll_ || !t->wake_fd_) {
    error = "cannot create the epoll set or eventfd: " + errno_text(errno);
    return nullptr;
  }
  bool ok = add_to_epoll(t->epoll_.get(), t->wake_fd_.get(), tag_wake) &&
            add_to_epoll(t->epoll_.get(), t->listener_.get(), tag_listener) &&
            add_to_epoll(t->epoll_.get(), t->launcher_.get(), tag_launcher);
  const auto now = clock::now();
  for (std::uint32_t j = 0; j < cfg.nodes && ok; ++j) {
    if (j == cfg.node) continue;
    auto& b = boot.peers[j];
    ok = add_to_epoll(t->epoll_.get(), b.fd.get(), j);
    t->peers_[j] = std::make_unique<peer_connection>(j, b.address, std::move(b.fd), std::move(b.decoder),
                                                     t->epoll_.get(), j);
    t->state_[j].last_recv = t->state_[j].last_send = now;
    // Frames that arrived with the handshake are delivered by the first progress().
    if (t->peers_[j]->decoder().has_complete_frame()) {
      t->state_[j].in_backlog = true;
      t->backlog_.push_back(j);
    }
  }
  if (!ok) {
    error = "cannot register sockets with epoll: " + errno_text(errno);
    return nullptr;
  }
  return t;
}

tcp_transport::tcp_transport(tcp_config cfg, bootstrap_result& boot)
    : cfg_(cfg),
      epoll_(::epoll_create1(EPOLL_CLOEXEC)),
      wake_fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
      listener_(std::move(boot.listener)),
      launcher_(std::move(boot.launcher)),
      launcher_decoder_(std::move(boot.launcher_decoder)),
      listen_address_(boot.listen_address),
      peers_(cfg.nodes),
      state_(cfg.nodes),
      direct_poll_(cfg.nodes == 2) {}

tcp_transport::~tcp_transport() {
  // Without finish() this is an abrupt end: peers see the sockets close and
  // report this node, which is what they should do.
  for (auto& p : peers_)
    if (p) p->close();
}

std::string tcp_transport::who(std::uint32_t node) const {
  return "node " + std::to_string(node) + " (" + (peers_[node] ? peers_[node]->address() : std::string("?")) + ")";
}

void tcp_transport::set_handlers(transport_handlers h) {
  handlers_ = h;
  handlers_set_ = true;
}

void tcp_transport::send(std::uint32_t dst, out_frame frame) {
  if (dst >= cfg_.nodes || dst == cfg_.node) {
    log_line(cfg_.node, "send to node " + std::to_string(dst) + ": no such peer (nodes are 0.." +
                            std::to_string(cfg_.nodes - 1) + ", and never this node); aborting");
    std::abort();
  }
  if (frame.segments().size() > max_frame_segments) {
    log_line(cfg_.node, "send to node " + std::to_string(dst) + ": a frame with " +
                            std::to_string(frame.segments().size()) + " segments, more than " +
                            std::to_string(max_frame_segments) + "; aborting");
    std::abort();
  }
  const frame_kind kind = frame.has_segments() ? frame_kind::user_segmented : frame_kind::user;
  if (!peers_[dst]->send(kind, std::move(frame))) {
    send_breaks_.store(true);
    wake();
  }
}

void tcp_transport::wake() noexcept {
  wake_pending_.store(true);
  // Only a sleeping progress thread needs the syscall; one that is awake will
  // see wake_pending_ before it sleeps (both flags are seq_cst).
  if (sleeping_.load()) {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(wake_fd_.get(), &one, sizeof one);
  }
}

bool tcp_transport::progress() { return progress_with(cfg_.burst); }

bool tcp_transport::progress_with(std::size_t budget) {
  const std::size_t start_budget = budget;
  bool did = false;
  if (handlers_set_ && !unreported_.empty()) {
    auto pending = std::move(unreported_);
    unreported_.clear();
    for (auto& [node, why] : pending) handlers_.on_peer_failure(handlers_.ctx, node, why);
    did = true;
  }
  if (send_breaks_.load(std::memory_order_relaxed) && send_breaks_.exchange(false)) {
    handle_send_breaks(budget);
    did = true;
  }
  // Frames held back by an earlier burst cap go first: they arrived first.
  if (!backlog_.empty()) {
    auto held = std::move(backlog_);
    backlog_.clear();
    for (std::uint32_t node : held) {
      state_[node].in_backlog = false;
      deliver(node, budget);
    }
    did = true;
  }
  ++progress_calls_;
  int n = cached_events_;
  cached_events_ = 0;
  if (n == 0 && direct_poll_ && progress_calls_ % direct_epoll_period != 0) {
    for (std::uint32_t j = 0; j < cfg_.nodes; ++j) {
      if (!peers_[j] || state_[j].gone) continue;
      if (peers_[j]->may_have_queued() && !peers_[j]->flush()) send_breaks_.store(true);
      read_peer(j, budget);
    }
  } else {
    if (n == 0) n = ::epoll_wait(epoll_.get(), events_.data(), static_cast<int>(events_.size()), 0);
    for (int i = 0; i < n; ++i) handle_event(events_[i], budget);
    if (n > 0) did = true;
  }
  if (progress_calls_ % timer_check_period == 0) check_timers(clock::now());
  return did || budget != start_budget;
}

void tcp_transport::handle_event(const epoll_event& ev, std::size_t& budget) {
  const std::uint64_t tag = ev.data.u64;
  if (tag < cfg_.nodes) {
    auto node = static_cast<std::uint32_t>(tag);
    if (state_[node].gone) return;
    if (ev.events & EPOLLOUT) {
      if (!peers_[node]->flush()) send_breaks_.store(true);
    }
    if (ev.events & (EPOLLIN | EPOLLHUP | EPOLLERR)) read_peer(node, budget);
  } else if (tag == tag_wake) {
    std::uint64_t v;
    [[maybe_unused]] const ssize_t r = ::read(wake_fd_.get(), &v, sizeof v);
  } else if (tag == tag_listener) {
    accept_strays();
  } else if (tag == tag_launcher) {
    handle_launcher();
  } else if (tag >= tag_stray) {
    handle_stray(tag - tag_stray);
  }
}

void tcp_transport::read_peer(std::uint32_t node, std::size_t& budget) {
  peer_state& st = state_[node];
  if (st.gone || st.socket_done || st.in_backlog) return;  // a backlogged peer is read after delivery catches up
  peer_connection& p = *peers_[node];
  if (!p.decoder().has_complete_frame()) {
    std::string why;
    switch (p.read_some(why)) {
      case peer_connection::read_status::data: st.received_recently = true; break;
      case peer_connection::read_status::nothing: return;
      case peer_connection::read_status::closed: end_socket(node, "closed the connection"); break;
      case peer_connection::read_status::error: end_socket(node, "connection error: " + why); break;
    }
  }
  deliver(node, budget);
}

void tcp_transport::end_socket(std::uint32_t node, std::string reason) {
  peer_state& st = state_[node];
  st.socket_done = true;
  st.end_reason = std::move(reason);
  peers_[node]->close();
}

void tcp_transport::deliver(std::uint32_t node, std::size_t& budget) {
  peer_state& st = state_[node];
  if (st.gone) return;
  frame_decoder& dec = peers_[node]->decoder();
  for (;;) {
    if (budget == 0) {
      if (dec.has_complete_frame() || st.socket_done) {
        st.in_backlog = true;
        backlog_.push_back(node);
      }
      return;
    }
    const auto f = dec.next();
    if (f.st == frame_decoder::status::need_more) {
      if (st.socket_done) {
        std::string why = who(node) + " " + st.end_reason + " without finishing";
        if (dec.buffered() > 0) why += " (in the middle of a frame)";
        peer_gone(node, why);
      }
      return;
    }
    if (f.st == frame_decoder::status::error) {
      peer_gone(node, "malformed frame from " + who(node) + ": " + dec.error_message());
      return;
    }
    switch (f.kind) {
      case frame_kind::user:
        --budget;
        if (handlers_.on_frame) handlers_.on_frame(handlers_.ctx, node, f.payload, {});
        break;
      case frame_kind::user_segmented:
        --budget;
        if (!f.segments.empty()) {
          // Received in segment mode: the segments are in blocks already, the table was validated.
          if (handlers_.on_frame) handlers_.on_frame(handlers_.ctx, node, f.payload, f.segments);
        } else if (!deliver_segmented(node, f.payload)) {
          return;
        }
        break;
      case frame_kind::heartbeat: break;
      case frame_kind::finish: st.finish_received = true; break;
      default:
        peer_gone(node, "unexpected " + std::string(kind_name(f.kind)) + " frame from " + who(node));
        return;
    }
  }
}

bool tcp_transport::deliver_segmented(std::uint32_t node, std::span<const std::byte> payload) {
  std::string error;
  if (!parse_segmented(payload, segmented_, error)) {
    peer_gone(node, "malformed frame from " + who(node) + ": " + error);
    return false;
  }
  // The whole frame arrived in the decoder's buffer in one go (a frame still
  // incomplete once its head is in is received in segment mode, straight
  // into blocks: frame_decoder.hpp); each segment is copied into a block.
  received_segments_.clear();
  try {
    for (auto bytes : segmented_.segments) {
      block_ref b = block_ref::allocate(bytes.size());
      if (!bytes.empty()) std::memcpy(b.data(), bytes.data(), bytes.size());
      received_segments_.push_back({std::move(b), bytes.size()});
    }
  } catch (const std::bad_alloc&) {
    received_segments_.clear();
    peer_gone(node, "out of memory for the segments of a frame from " + who(node));
    return false;
  }
  if (handlers_.on_frame) handlers_.on_frame(handlers_.ctx, node, segmented_.inline_bytes, received_segments_);
  received_segments_.clear();
  return true;
}

void tcp_transport::peer_gone(std::uint32_t node, const std::string& why) {
  peer_state& st = state_[node];
  if (st.gone) return;
  st.gone = true;
  peers_[node]->close();
  if (!st.finish_received) report_failure(node, why);
}

void tcp_transport::report_failure(std::uint32_t node, const std::string& why) {
  if (handlers_set_ && handlers_.on_peer_failure)
    handlers_.on_peer_failure(handlers_.ctx, node, why);
  else if (!handlers_set_)
    unreported_.emplace_back(node, why);
  else
    log_line(cfg_.node, why);  // handlers without a failure callback: at least say it
}

void tcp_transport::handle_send_breaks(std::size_t& budget) {
  for (std::uint32_t j = 0; j < cfg_.nodes; ++j) {
    if (!peers_[j] || state_[j].gone || state_[j].socket_done || !peers_[j]->send_broken()) continue;
    // The peer may have sent its finish frame before going away: read what is
    // left so an orderly end is not mistaken for a failure.
    std::string why;
    for (int i = 0; i < 64 && peers_[j]->read_some(why) == peer_connection::read_status::data; ++i) {
    }
    end_socket(j, "broke while sending (" + peers_[j]->send_error() + ")");
    if (!state_[j].in_backlog) deliver(j, budget);
  }
}

void tcp_transport::check_timers(clock::time_point now) {
  for (std::uint32_t j = 0; j < cfg_.nodes; ++j) {
    if (!peers_[j]) continue;
    peer_state& st = state_[j];
    if (st.gone || st.socket_done) continue;
    if (st.received_recently) {
      st.received_recently = false;
      st.last_recv = now;
    } else if (!st.finish_received && now - st.last_recv > cfg_.heartbeat_timeout) {
      // Before declaring it dead, make sure its bytes are not simply waiting
      // unread (this thread may itself have been away for a long time).
      std::string why;
      const auto rs = st.in_backlog ? peer_connection::read_status::data : peers_[j]->read_some(why);
      if (rs == peer_connection::read_status::data) {
        st.last_recv = now;
        if (!st.in_backlog) {
          st.in_backlog = true;
          backlog_.push_back(j);
        }
      } else {
        peer_gone(j, who(j) + " sent nothing, not even a heartbeat, for " +
                         std::to_string(cfg_.heartbeat_timeout.count()) + " ms (ROAM_TCP_HEARTBEAT_TIMEOUT_MS)");
        continue;
      }
    }
    if (peers_[j]->take_sent_recently()) {
      st.last_send = now;
    } else if (!finishing_ && now - st.last_send >= cfg_.heartbeat_interval) {
      if (!peers_[j]->send(frame_kind::heartbeat, {})) send_breaks_.store(true);
      peers_[j]->take_sent_recently();
      st.last_send = now;
    }
  }
  for (std::size_t i = 0; i < strays_.size();) {
    if (now - strays_[i].since > stray_timeout)
      drop_stray(i, "no hello within " + std::to_string(stray_timeout.count()) + " s");
    else
      ++i;
  }
}

void tcp_transport::accept_strays() {
  for (;;) {
    unique_fd fd(::accept4(listener_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!fd) return;
    std::string remote = remote_address(fd.get());
    if (strays_.size() >= max_strays) {
      log_line(cfg_.node, "refused a connection from " + remote + ": too many unauthenticated connections");
      continue;
    }
    const std::uint64_t id = next_stray_id_++;
    if (!add_to_epoll(epoll_.get(), fd.get(), tag_stray + id)) continue;
    strays_.push_back({id, std::move(fd), std::move(remote), frame_decoder(handshake_max_payload), clock::now()});
  }
}

void tcp_transport::drop_stray(std::size_t index, const std::string& why) {
  log_line(cfg_.node, "refused a connection from " + strays_[index].remote + ": " + why);
  ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, strays_[index].fd.get(), nullptr);
  strays_.erase(strays_.begin() + static_cast<std::ptrdiff_t>(index));
}

void tcp_transport::handle_stray(std::uint64_t id) {
  auto it = std::find_if(strays_.begin(), strays_.end(), [&](const stray& s) { return s.id == id; });
  if (it == strays_.end()) return;
  const auto index = static_cast<std::size_t>(it - strays_.begin());
  auto w = it->decoder.writable();
  ssize_t n;
  do n = ::recv(it->fd.get(), w.data(), w.size(), 0);
  while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
  if (n <= 0) {
    drop_stray(index, n == 0 ? "closed before sending a valid hello" : "connection error: " + errno_text(errno));
    return;
  }
  it->decoder.commit(static_cast<std::size_t>(n));
  // Every peer is connected by now, so even a correct hello is a duplicate.
  auto verdict = judge_incoming_hello(it->decoder, cfg_, [](std::uint32_t) { return false; });
  if (!verdict.waiting) drop_stray(index, verdict.refusal);
}

void tcp_transport::handle_launcher() {
  if (!launcher_) return;
  auto w = launcher_decoder_.writable();
  ssize_t n;
  do n = ::recv(launcher_.get(), w.data(), w.size(), 0);
  while (n < 0 && errno == EINTR);
  if (n > 0) {
    // roamrun sends nothing unasked; keep the bytes for the next allgather.
    launcher_decoder_.commit(static_cast<std::size_t>(n));
    return;
  }
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
  ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, launcher_.get(), nullptr);
  launcher_.reset();
  if (finishing_) return;
  // roamrun is gone (killed, or its host lost): nobody will clean up after us,
  // and a job without its launcher cannot report anything. Leave now rather
  // than linger as an orphan on some host.
  log_line(cfg_.node, "lost the connection to roamrun (" + (n == 0 ? std::string("closed") : errno_text(errno)) +
                          "); exiting so that no process of the job is left behind");
  std::_Exit(1);
}

void tcp_transport::wait(std::chrono::microseconds timeout) {
  if (!backlog_.empty() || cached_events_ > 0 || (handlers_set_ && !unreported_.empty())) return;
  // Heartbeats are sent from the timer check, so never sleep past one interval.
  timeout = std::min<std::chrono::microseconds>(timeout, cfg_.heartbeat_interval);
  if (timeout.count() < 0) timeout = std::chrono::microseconds(0);
  sleeping_.store(true);
  if (wake_pending_.exchange(false)) {
    sleeping_.store(false);
    return;
  }
  timespec ts{static_cast<time_t>(timeout.count() / 1'000'000), static_cast<long>(timeout.count() % 1'000'000) * 1000};
  int n = ::epoll_pwait2(epoll_.get(), events_.data(), static_cast<int>(events_.size()), &ts, nullptr);
  if (n < 0 && errno == ENOSYS) {
    const auto ms = (timeout.count() + 999) / 1000;
    n = ::epoll_wait(epoll_.get(), events_.data(), static_cast<int>(events_.size()), static_cast<int>(ms));
  }
  sleeping_.store(false);
  cached_events_ = n > 0 ? n : 0;
  check_timers(clock::now());
}

std::vector<std::vector<std::byte>> tcp_transport::allgather(std::span<const std::byte> mine) {
  const std::string where = "tcp transport [node " + std::to_string(cfg_.node) + "]: allgather: ";
  if (!launcher_) throw std::runtime_error(where + "no connection to roamrun");
  std::string err;
  if (!write_all(launcher_.get(), make_frame(frame_kind::allgather, mine), no_deadline(), err))
    throw std::runtime_error(where + "sending to roamrun failed: " + err);
  frame_decoder::result f;
  if (!read_frame(launcher_.get(), launcher_decoder_, no_deadline(), f, err))
    throw std::runtime_error(where + "no answer from roamrun: " + err);
  auto blobs = f.kind == frame_kind::allgather_result ? decode_blobs(f.payload) : std::nullopt;
  if (!blobs || blobs->size() != cfg_.nodes)
    throw std::runtime_error(where + "roamrun answered with a malformed result");
  return std::move(*blobs);
}

void tcp_transport::drop_peer(std::uint32_t node) {
  if (node >= cfg_.nodes || !peers_[node]) return;
  peer_state& st = state_[node];
  st.finish_received = true;  // never reported, never waited for
  st.gone = true;
  peers_[node]->close();
}

void tcp_transport::tell_launcher(std::string_view line) {
  if (!launcher_) return;
  std::string err;
  // Bounded: a launcher that does not read is not worth stalling the job for.
  if (!write_all(launcher_.get(), make_frame(frame_kind::launcher_note, std::as_bytes(std::span(line))),
                 after(std::chrono::seconds(2)), err))
    log_line(cfg_.node, "could not tell roamrun: " + err);
}

void tcp_transport::finish() {
  if (finished_) return;
  finishing_ = true;
  // Queued after everything this node sent before, so each peer sees it last.
  for (std::uint32_t j = 0; j < cfg_.nodes; ++j)
    if (peers_[j] && !state_[j].gone && !peers_[j]->send(frame_kind::finish, {})) send_breaks_.store(true);

  const auto by = clock::now() + cfg_.finish_timeout;
  for (;;) {
    progress_with(cfg_.burst);
    std::string waiting;
    for (std::uint32_t j = 0; j < cfg_.nodes; ++j) {
      if (!peers_[j] || state_[j].gone) continue;
      if (!state_[j].finish_received || peers_[j]->has_queued() || state_[j].in_backlog)
        waiting += (waiting.empty() ? "" : ", ") + std::to_string(j);
    }
    if (waiting.empty()) break;
    if (clock::now() > by) {
      log_line(cfg_.node, "finish: gave up after " + std::to_string(cfg_.finish_timeout.count()) +
                              " ms waiting for node(s) " + waiting + " (ROAM_TCP_FINISH_TIMEOUT_MS)");
      break;
    }
    wait(std::chrono::milliseconds(10));
  }
  for (auto& p : peers_)
    if (p) p->close();
  strays_.clear();
  launcher_.reset();
  listener_.reset();
  finished_ = true;
}

}  // namespace roam::detail::tcp
