#include "launcher.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "child_command.hpp"
#include "child_process.hpp"
#include "control_server.hpp"
#include "hosts_file.hpp"
#include "line_forwarder.hpp"
#include "say.hpp"
#include "tcp/job_secret.hpp"
#include "tcp/socket_io.hpp"

namespace roam::detail::roamrun {

namespace tcp = roam::detail::tcp;
using tcp::clock;

namespace {

constexpr auto term_to_kill = std::chrono::seconds(2);
// After the last node exits, output still in flight (or held by a grandchild
// that keeps the pipe open) gets this long before roamrun stops reading.
constexpr auto drain_after_exit = std::chrono::seconds(2);


std::string signal_name(int sig) {
  const char* d = ::strsignal(sig);
  return std::to_string(sig) + (d ? std::string(" (") + d + ")" : std::string());
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

/// ROAM_* variables of roamrun's environment (not the contract's own), for remote nodes.
std::vector<std::pair<std::string, std::string>> forwarded_environment() {
  std::vector<std::pair<std::string, std::string>> out;
  for (char** e = environ; *e; ++e) {
    const std::string s = *e;
    const auto eq = s.find('=');
    if (eq == std::string::npos || !s.starts_with("ROAM_")) continue;
    const std::string k = s.substr(0, eq);
    if (k == "ROAM_TRANSPORT" || k.starts_with("ROAM_TCP_NODE") || k == "ROAM_TCP_LAUNCHER" || k == "ROAM_TCP_SECRET")
      continue;
    out.emplace_back(k, s.substr(eq + 1));
  }
  return out;
}

/// One started node and its two forwarded streams.
struct node_slot {
  child_process proc;
  std::unique_ptr<line_forwarder> out;
  std::unique_ptr<line_forwarder> err;
  bool stopped_by_us = false;
  bool declared_failed = false;  // --ft: the job gave up on it (its exit status is not the job's)
  clock::time_point died{};      // when roamrun reaped it
};

class job {
 public:
  explicit job(const options& o) : o_(o) {}
  int run();

 private:
  /// 0 when every node started, else roamrun's exit status (2: usage, 127: cannot run, 1: other).
  int start(std::string& error);
  void loop();
  void reap();
  void on_exit(node_slot& n, int status);
  void begin_stop(const std::string& why);
  void read_stream(node_slot& n, bool is_err);
  void on_note(std::uint32_t from, const std::string& line);
  int ft_exit_status() const;
  bool any_running() const {
    return std::any_of(nodes_.begin(), nodes_.end(), [](const node_slot& n) { return n.proc.running; });
  }
  bool any_stream_open() const {
    return std::any_of(nodes_.begin(), nodes_.end(), [](const node_slot& n) { return n.proc.out || n.proc.err; });
  }

  const options& o_;
  std::vector<node_slot> nodes_;
  std::unique_ptr<control_server> control_;
  tcp::unique_fd signals_;
  std::optional<int> exit_status_;      // decided by the first failure or an interrupt
  int interrupted_ = 0;
  bool stopping_ = false;
  clock::time_point grace_deadline_ = clock::time_point::max();
  clock::time_point kill_deadline_ = clock::time_point::max();
  clock::time_point drain_deadline_ = clock::time_point::max();
};

int job::run() {
  std::string error;
  if (const int failed = start(error); failed != 0) {
    say(error);
    for (auto& n : nodes_) signal_child(n.proc, SIGKILL);
    for (auto& n : nodes_) ::waitpid(n.proc.pid, nullptr, 0);
    return failed;
  }
  loop();
  if (o_.ft && !interrupted_) return ft_exit_status();
  return exit_status_.value_or(0);
}

// --ft: the program's result is what the processes that finished it say;
// those the job declared failed (and any that died meanwhile) do not count.
int job::ft_exit_status() const {
  int status = 0;
  bool any = false;
  for (const auto& n : nodes_) {
    if (n.declared_failed) continue;
    const int s = n.proc.wait_status;
    const int code = WIFEXITED(s) ? WEXITSTATUS(s) : 128 + WTERMSIG(s);
    if (!any || (status == 0 && code != 0)) status = code;
    any = true;
  }
  return any ? status : 1;
}

void job::on_note(std::uint32_t from, const std::string& line) {
  auto words = split_words(line);
  if (words.size() == 2 && words[0] == "failed") {
    std::uint32_t p = 0;
    try {
      p = static_cast<std::uint32_t>(std::stoul(words[1]));
    } catch (...) {
      return;
    }
    if (p >= nodes_.size() || nodes_[p].declared_failed) return;
    node_slot& n = nodes_[p];
    n.declared_failed = true;
    // Fenced: a declared process must not come back and split the job.
    if (n.proc.running) {
      say("node " + std::to_string(p) + " (pid " + std::to_string(n.proc.pid) + ") declared failed by node " +
          std::to_string(from) + "; killing it");
      n.stopped_by_us = true;
      signal_child(n.proc, SIGKILL);
    } else {
      const auto after = std::chrono::duration<double, std::milli>(clock::now() - n.died).count();
      char ms[32];
      std::snprintf(ms, sizeof ms, "%.1f", after);
      say("node " + std::to_string(p) + " declared failed by node " + std::to_string(from) + ", " + ms +
          " ms after it died");
    }
    return;
  }
  if (words.size() == 7 && words[0] == "recovered") {
    try {
      const double detected = std::stod(words[2]), resumed = std::stod(words[3]);
      char text[200];
      std::snprintf(text, sizeof text, "the job recovered (epoch %s): running again %.1f ms after the failure was "
                                       "detected, from in-memory checkpoint %s, %s -> %s processes",
                    words[1].c_str(), (resumed - detected) / 1e6, words[4].c_str(), words[5].c_str(), words[6].c_str());
      say(text);
    } catch (...) {
    }
    return;
  }
  if (o_.verbose) say("node " + std::to_string(from) + " says: " + line);
}

int job::start(std::string& error) {
  std::vector<std::string> hosts;
  if (!o_.hosts_file.empty()) {
    auto h = read_hosts_file(o_.hosts_file, error);
    if (!h) return 2;
    hosts = std::move(*h);
  } else if (std::string why = check_executable(o_.program); !why.empty()) {
    error = "cannot run '" + o_.program + "': " + why;
    return 127;
  }
  auto secret = tcp::generate_job_secret(error);
  if (!secret) return 1;

  // One host: loopback only. Several hosts: every interface, and the nodes dial
  // back the name (or $ROAMRUN_HOST) of this one.
  const bool remote = !hosts.empty();
  tcp::unique_fd listener = tcp::listen_tcp(remote ? "" : "127.0.0.1", 0, error);
  if (!listener) return 1;
  auto bound = tcp::local_address(listener.get());
  if (!bound) {
    error = "cannot read the control socket's address";
    return 1;
  }
  job_info info;
  info.nodes = o_.nodes + o_.spares;
  info.spares = o_.spares;
  info.secret_hex = tcp::to_hex(*secret);
  if (remote) {
    std::string host;
    if (const char* h = std::getenv("ROAMRUN_HOST"); h && *h) {
      host = h;
    } else {
      char name[HOST_NAME_MAX + 1] = {};
      ::gethostname(name, sizeof name - 1);
      host = name;
    }
    info.launcher_address = tcp::host_port{host, bound->port}.str();
    char cwd[PATH_MAX];
    if (!::getcwd(cwd, sizeof cwd)) {
      error = std::string("cannot read the working directory: ") + std::strerror(errno);
      return 1;
    }
    info.cwd = cwd;
  } else {
    info.launcher_address = bound->str();
  }
  control_ = std::make_unique<control_server>(std::move(listener), *secret, info.nodes, o_.verbose);
  control_->on_note = [this](std::uint32_t from, const std::string& line) { on_note(from, line); };

  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, s);
  ::sigprocmask(SIG_BLOCK, &set, nullptr);
  signals_.reset(::signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC));
  ::signal(SIGPIPE, SIG_IGN);  // a closed stdout must not kill roamrun and orphan the job

  std::vector<std::string> ssh = split_words(std::getenv("ROAMRUN_SSH") ? std::getenv("ROAMRUN_SSH") : "ssh");
  if (ssh.empty()) ssh.push_back("ssh");
  const auto forwarded = forwarded_environment();
  for (std::uint32_t k = 0; k < info.nodes; ++k) {
    const child_command cmd = remote ? ssh_command(o_, info, k, hosts[k % hosts.size()], ssh, forwarded)
                                     : local_command(o_, info, k);
    if (o_.verbose) {
      std::string line = "node " + std::to_string(k) + ":";
      for (const auto& a : cmd.argv) line += " " + shell_quote(a);
      say(line);
    }
    auto child = spawn_child(k, cmd, error);
    if (!child) {
      error = "starting node " + std::to_string(k) + ": " + error;
      return 1;
    }
    node_slot slot;
    slot.proc = std::move(*child);
    std::string prefix = (o_.prefix && (k > 0 || o_.prefix_node0)) ? "[node " + std::to_string(k) + "] " : "";
    slot.out = std::make_unique<line_forwarder>(STDOUT_FILENO, prefix);
    slot.err = std::make_unique<line_forwarder>(STDERR_FILENO, prefix);
    nodes_.push_back(std::move(slot));
  }
  return 0;
}

void job::begin_stop(const std::string& why) {
  if (stopping_) return;
  stopping_ = true;
  std::string which;
  for (auto& n : nodes_) {
    if (!n.proc.running) continue;
    n.stopped_by_us = true;
    signal_child(n.proc, SIGTERM);
    which += (which.empty() ? "" : ", ") + std::to_string(n.proc.node);
  }
  if (!which.empty()) say("stopping node(s) " + which + " (" + why + ")");
  kill_deadline_ = clock::now() + term_to_kill;
}

void job::on_exit(node_slot& n, int status) {
  n.proc.running = false;
  n.proc.wait_status = status;
  n.died = clock::now();
  const std::string who = "node " + std::to_string(n.proc.node) + " (pid " + std::to_string(n.proc.pid) + ")";
  int code = 0;
  std::string what;
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    code = WEXITSTATUS(status);
    what = who + " exited with code " + std::to_string(code);
  } else if (WIFSIGNALED(status)) {
    code = 128 + WTERMSIG(status);
    what = who + " killed by signal " + signal_name(WTERMSIG(status));
  }
  if (code == 0) return;
  if (n.stopped_by_us) {
    if (o_.verbose) say(what + " (stopped by roamrun)");
    return;
  }
  if (o_.ft) {
    // The survivors decide: they recover, or end the job themselves.
    say(what + (n.declared_failed ? "" : "; the others recover (--ft)"));
    return;
  }
  say(what);
  if (exit_status_) return;
  exit_status_ = code;
  if (any_running()) grace_deadline_ = clock::now() + o_.grace;
}

void job::reap() {
  for (;;) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid <= 0) break;
    for (auto& n : nodes_)
      if (n.proc.pid == pid && n.proc.running) on_exit(n, status);
  }
  if (!any_running() && drain_deadline_ == clock::time_point::max()) drain_deadline_ = clock::now() + drain_after_exit;
}

void job::read_stream(node_slot& n, bool is_err) {
  tcp::unique_fd& fd = is_err ? n.proc.err : n.proc.out;
  line_forwarder& fw = is_err ? *n.err : *n.out;
  char buf[16384];
  const ssize_t r = ::read(fd.get(), buf, sizeof buf);
  if (r > 0) {
    fw.feed({buf, static_cast<std::size_t>(r)});
  } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
    fw.finish();
    fd.reset();
  }
}

void job::loop() {
  for (;;) {
    const auto now = clock::now();
    if (now >= grace_deadline_) {
      grace_deadline_ = clock::time_point::max();
      begin_stop("still running " + std::to_string(o_.grace.count() / 1000) + " s after the first failure");
    }
    if (now >= kill_deadline_) {
      kill_deadline_ = clock::time_point::max();
      for (auto& n : nodes_)
        if (n.proc.running) signal_child(n.proc, SIGKILL);
    }
    if (!any_running() && (!any_stream_open() || now >= drain_deadline_)) break;

    auto next = std::min({grace_deadline_, kill_deadline_, control_->check_timeouts(now),
                          any_running() ? clock::time_point::max() : drain_deadline_});
    std::vector<pollfd> fds{{signals_.get(), POLLIN, 0}};
    const std::vector<int> control_fds = control_->poll_fds();
    for (int fd : control_fds) fds.push_back({fd, POLLIN, 0});
    const std::size_t streams_at = fds.size();
    for (auto& n : nodes_) {
      fds.push_back({n.proc.out ? n.proc.out.get() : -1, POLLIN, 0});
      fds.push_back({n.proc.err ? n.proc.err.get() : -1, POLLIN, 0});
    }
    const int rc = ::poll(fds.data(), fds.size(), tcp::poll_timeout_ms(next));
    if (rc < 0 && errno != EINTR) {
      say(std::string("poll: ") + std::strerror(errno));
      begin_stop("roamrun failed");
    }
    if (rc <= 0) continue;

    // Output first: a node's last words should come out before the report of its death.
    for (std::size_t k = 0; k < nodes_.size(); ++k) {
      if (fds[streams_at + 2 * k].revents) read_stream(nodes_[k], false);
      if (fds[streams_at + 2 * k + 1].revents) read_stream(nodes_[k], true);
    }
    for (std::size_t i = 0; i < control_fds.size(); ++i)
      if (fds[1 + i].revents) control_->on_ready(control_fds[i]);
    if (fds[0].revents & POLLIN) {
      signalfd_siginfo si{};
      while (::read(signals_.get(), &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
        const int sig = static_cast<int>(si.ssi_signo);
        if (sig == SIGCHLD) continue;
        if (interrupted_ != 0) {
          say("second signal; killing every node");
          for (auto& n : nodes_)
            if (n.proc.running) signal_child(n.proc, SIGKILL);
          continue;
        }
        interrupted_ = sig;
        exit_status_ = 128 + sig;
        begin_stop("roamrun got signal " + signal_name(sig));
      }
      reap();
    }
  }
  for (auto& n : nodes_) {
    if (n.proc.out) n.out->finish();
    if (n.proc.err) n.err->finish();
    // Whatever a stopped node left behind in its group goes with it.
    if (n.stopped_by_us) signal_child(n.proc, SIGKILL);
  }
}

}  // namespace

int run_job(const options& o) {
  job j(o);
  return j.run();
}

}  // namespace roam::detail::roamrun
