#include "child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

extern char** environ;

namespace roam::detail::roamrun {

namespace {
/// The child's environment: roamrun's, with the command's variables set.
std::vector<std::string> child_environment(const child_command& cmd) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string s = *e;
    const auto eq = s.find('=');
    if (eq != std::string::npos) env[s.substr(0, eq)] = s.substr(eq + 1);
  }
  for (const auto& [k, v] : cmd.env) env[k] = v;
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

void write_str(int fd, const std::string& s) noexcept {
  [[maybe_unused]] const ssize_t n = ::write(fd, s.data(), s.size());
}
}  // namespace

std::string check_executable(const std::string& program) {
  auto check = [](const std::string& path) -> int { return ::access(path.c_str(), X_OK) == 0 ? 0 : errno; };
  if (program.find('/') != std::string::npos) {
    const int e = check(program);
    return e == 0 ? std::string() : std::strerror(e);
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  for (;;) {
    const auto colon = dirs.find(':', start);
    std::string dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (dir.empty()) dir = ".";
    if (check(dir + "/" + program) == 0) return {};
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return "not found in PATH";
}

std::optional<child_process> spawn_child(std::uint32_t node, const child_command& cmd, std::string& error) {
  int out[2], err[2], in[2] = {-1, -1};
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0 ||
      (!cmd.stdin_text.empty() && ::pipe2(in, O_CLOEXEC) != 0)) {
    error = std::string("pipe: ") + std::strerror(errno);
    return std::nullopt;
  }
  // Everything the child needs is built before fork: between fork and exec it
  // only makes system calls.
  const std::vector<std::string> env = child_environment(cmd);
  std::vector<char*> envp, argv;
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  for (const auto& a : cmd.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const std::string exec_failed = "roamrun: cannot run '" + cmd.argv[0] + "': ";
  const pid_t parent = ::getpid();

  const pid_t pid = ::fork();
  if (pid < 0) {
    error = std::string("fork: ") + std::strerror(errno);
    return std::nullopt;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // roamrun died before prctl took effect
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);  // roamrun ignores it; an ignored disposition would survive exec
    // Every process of the job gets its code and libraries at the same
    // addresses: a migratable thread's frames return into them wherever it
    // moves (docs/design/isomalloc.md). Failing leaves randomisation on,
    // which only such moves notice (and name).
    ::personality(static_cast<unsigned long>(::personality(0xffffffff)) | ADDR_NO_RANDOMIZE);
    const int stdin_fd = in[0] >= 0 ? in[0] : ::open("/dev/null", O_RDONLY);
    ::dup2(stdin_fd, STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    ::execvpe(argv[0], argv.data(), envp.data());
    write_str(STDERR_FILENO, exec_failed + std::strerror(errno) + "\n");
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here, so the group exists before we might signal it
  ::close(out[1]);
  ::close(err[1]);
  child_process c;
  c.node = node;
  c.pid = pid;
  c.out.reset(out[0]);
  c.err.reset(err[0]);
  roam::detail::tcp::set_nonblocking(out[0]);
  roam::detail::tcp::set_nonblocking(err[0]);
  if (in[0] >= 0) {
    ::close(in[0]);
    // A secret line is far below the pipe's capacity: this write does not block.
    write_str(in[1], cmd.stdin_text);
    ::close(in[1]);
  }
  return c;
}

void signal_child(const child_process& c, int sig) noexcept {
  if (c.pid > 0) {
    if (::kill(-c.pid, sig) != 0) ::kill(c.pid, sig);
  }
}

}  // namespace roam::detail::roamrun
