// Runs a job and kills (or stops) one of its processes at a moment chosen
// from a seed, then checks that the job still ends well: exit status 0 and
// the expected result line. The fault-tolerance tests (ft.cmake) use it.
//
//   ft_kill_driver [--seed S] [--node N|N,M,...|random] [--on TEXT] [--nth LO:HI]
//                  [--stop-ms MS] [--failures K] [--expect TEXT] [--expect-status N]
//                  -- COMMAND...
//
// The job's processes are found as roamrun's (or OpenMPI mpirun's) children
// (their ROAM_TCP_NODE, or OMPI_COMM_WORLD_RANK, says which node each is). Each line of the job's output (stdout and stderr, merged) is
// echoed; the k-th line containing TEXT (k drawn from [LO, HI]) triggers the
// fault: SIGKILL to node N's process (to every listed node at once: a host
// that dies), or with --stop-ms SIGSTOP and SIGCONT
// MS milliseconds later (a slow process, not a dead one). --failures K
// repeats it after each recovery ("roam: recovered" in the output), on a
// node still alive. The seed is printed first, so a failure can be replayed.
// When the job reports the process failed (roamrun's "declared failed"),
// the driver prints how long after the fault that was: the detection
// latency, from outside the job (bench/ft_detection.sh).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <map>
#include <sstream>
#include <random>
#include <string>
#include <vector>

namespace {

struct settings {
  std::uint64_t seed = 1;
  long node = -1;  // -1: random
  std::vector<long> together;  // --node A,B,...: these all at once (a host that dies)
  std::string on = "checkpoint_check: step ";
  int nth_lo = 1, nth_hi = 1;
  long stop_ms = 0;
  int failures = 1;
  std::string expect;
  int expect_status = 0;
  std::vector<std::string> command;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "ft_kill_driver: %s\n", why.c_str());
  std::exit(2);
}

settings parse(int argc, char** argv) {
  settings s;
  int i = 1;
  auto value = [&](const char* name) -> std::string {
    if (i + 1 >= argc) usage(std::string(name) + " needs a value");
    return argv[++i];
  };
  for (; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "--seed") s.seed = std::stoull(value("--seed"));
    else if (a == "--node") {
      const std::string v = value("--node");
      if (v == "random") {
        s.node = -1;
      } else {
        std::istringstream list(v);
        for (std::string item; std::getline(list, item, ',');) s.together.push_back(std::stol(item));
        s.node = s.together.front();
        if (s.together.size() == 1) s.together.clear();
      }
    } else if (a == "--on") s.on = value("--on");
    else if (a == "--nth") {
      const std::string v = value("--nth");
      if (std::sscanf(v.c_str(), "%d:%d", &s.nth_lo, &s.nth_hi) != 2 || s.nth_lo < 1 || s.nth_hi < s.nth_lo)
        usage("--nth expects LO:HI with 1 <= LO <= HI");
    } else if (a == "--stop-ms") s.stop_ms = std::stol(value("--stop-ms"));
    else if (a == "--failures") s.failures = std::stoi(value("--failures"));
    else if (a == "--expect") s.expect = value("--expect");
    else if (a == "--expect-status") s.expect_status = std::stoi(value("--expect-status"));
    else usage("unknown option " + a);
  }
  for (; i < argc; ++i) s.command.emplace_back(argv[i]);
  if (s.command.empty()) usage("no command after --");
  return s;
}

// node -> pid of the processes whose parent is `parent` (roamrun), from /proc.
std::map<long, long> children_by_node(pid_t parent) {
  std::map<long, long> out;
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    const long pid = std::atol(e->d_name);
    if (pid <= 0) continue;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state = 0;
    long ppid = 0;
    rest >> state >> ppid;
    if (ppid != parent || state == 'Z') continue;
    std::ifstream env("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
    std::string var;
    while (std::getline(env, var, '\0'))
      if (var.starts_with("ROAM_TCP_NODE=")) out[std::atol(var.c_str() + 14)] = pid;
      else if (var.starts_with("OMPI_COMM_WORLD_RANK=")) out[std::atol(var.c_str() + 21)] = pid;
  }
  ::closedir(d);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const settings s = parse(argc, argv);
  std::mt19937_64 rng(s.seed);
  std::printf("ft_kill_driver: seed %llu\n", static_cast<unsigned long long>(s.seed));
  std::fflush(stdout);

  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) usage("pipe failed");
  const pid_t child = ::fork();
  if (child == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(out[1], STDERR_FILENO);
    std::vector<char*> args;
    for (const auto& a : s.command) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    std::perror("exec");
    std::_Exit(127);
  }
  ::close(out[1]);

  std::map<long, long> pids;  // node -> pid
  std::vector<long> killed;
  int faults_done = 0;
  auto draw_nth = [&] { return std::uniform_int_distribution<int>(s.nth_lo, s.nth_hi)(rng); };
  int nth = draw_nth();
  int seen = 0;
  bool armed = true;  // waiting for the trigger of the next fault
  pid_t stopped = 0;
  auto cont_at = std::chrono::steady_clock::time_point::max();
  std::string all, partial;
  bool expect_seen = s.expect.empty();

  auto fault_at = std::chrono::steady_clock::time_point::max();  // of the last fault, until it is declared
  auto fault = [&] {
    for (const auto& [node, pid] : children_by_node(child))
      if (!pids.count(node)) pids[node] = pid;
    std::vector<long> candidates;
    for (const auto& [node, pid] : pids)
      if (std::find(killed.begin(), killed.end(), node) == killed.end()) candidates.push_back(node);
    if (candidates.empty()) return;
    if (!s.together.empty() && s.stop_ms == 0) {
      // A whole host at once: every listed node in the same instant.
      for (long n : s.together) {
        if (!pids.count(n)) continue;
        std::printf("ft_kill_driver: SIGKILL to node %ld (pid %ld)\n", n, pids[n]);
        ::kill(static_cast<pid_t>(pids[n]), SIGKILL);
        killed.push_back(n);
      }
      std::fflush(stdout);
      fault_at = std::chrono::steady_clock::now();
      ++faults_done;
      return;
    }
    long node = s.node;
    if (node < 0 || std::find(candidates.begin(), candidates.end(), node) == candidates.end())
      node = candidates[std::uniform_int_distribution<std::size_t>(0, candidates.size() - 1)(rng)];
    const long pid = pids[node];
    if (s.stop_ms > 0) {
      std::printf("ft_kill_driver: SIGSTOP to node %ld (pid %ld) for %ld ms\n", node, pid, s.stop_ms);
      ::kill(static_cast<pid_t>(pid), SIGSTOP);
      stopped = static_cast<pid_t>(pid);
      cont_at = std::chrono::steady_clock::now() + std::chrono::milliseconds(s.stop_ms);
    } else {
      std::printf("ft_kill_driver: SIGKILL to node %ld (pid %ld)\n", node, pid);
      ::kill(static_cast<pid_t>(pid), SIGKILL);
      killed.push_back(node);
    }
    std::fflush(stdout);
    fault_at = std::chrono::steady_clock::now();
    ++faults_done;
  };

  for (;;) {
    int timeout = -1;
    if (stopped) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(cont_at - std::chrono::steady_clock::now());
      timeout = static_cast<int>(std::max<long long>(0, left.count()));
    }
    pollfd p{out[0], POLLIN, 0};
    const int rc = ::poll(&p, 1, timeout);
    if (stopped && std::chrono::steady_clock::now() >= cont_at) {
      std::printf("ft_kill_driver: SIGCONT to pid %ld\n", static_cast<long>(stopped));
      std::fflush(stdout);
      ::kill(stopped, SIGCONT);
      stopped = 0;
    }
    if (rc <= 0) continue;
    char buf[4096];
    const ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n <= 0) break;
    partial.append(buf, static_cast<std::size_t>(n));
    std::size_t nl;
    while ((nl = partial.find('\n')) != std::string::npos) {
      const std::string line = partial.substr(0, nl);
      partial.erase(0, nl + 1);
      std::printf("%s\n", line.c_str());
      std::fflush(stdout);
      long node = 0, pid = 0;
      if (const auto at = line.find("checkpoint_check: node "); at != std::string::npos &&
          std::sscanf(line.c_str() + at, "checkpoint_check: node %ld pid %ld", &node, &pid) == 2)
        pids[node] = pid;
      if (!s.expect.empty() && line.find(s.expect) != std::string::npos) expect_seen = true;
      if (fault_at != std::chrono::steady_clock::time_point::max() && line.find("declared failed") != std::string::npos) {
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - fault_at).count();
        std::printf("ft_kill_driver: declared failed %.1f ms after the fault\n", ms);
        std::fflush(stdout);
        fault_at = std::chrono::steady_clock::time_point::max();
      }
      if (!armed && line.find("roam: recovered") != std::string::npos && faults_done < s.failures) {
        armed = true;
        seen = 0;
        nth = draw_nth();
      }
      if (armed && line.find(s.on) != std::string::npos && ++seen == nth) {
        armed = false;
        fault();
      }
    }
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  bool ok = true;
  if (faults_done < s.failures) {
    std::printf("ft_kill_driver: FAILED: only %d of %d faults were injected (the trigger '%s' came too few times)\n",
                faults_done, s.failures, s.on.c_str());
    ok = false;
  }
  if (code != s.expect_status) {
    std::printf("ft_kill_driver: FAILED: exit status %d, expected %d\n", code, s.expect_status);
    ok = false;
  }
  if (!expect_seen) {
    std::printf("ft_kill_driver: FAILED: no line contains '%s'\n", s.expect.c_str());
    ok = false;
  }
  std::printf("ft_kill_driver: %s (seed %llu)\n", ok ? "OK" : "FAILED", static_cast<unsigned long long>(s.seed));
  return ok ? 0 : 1;
}
