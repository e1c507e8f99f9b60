#include "util/process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

extern char** environ;

namespace dcukit::util {
namespace {

using Clock = std::chrono::steady_clock;

ExitStatus decode(int status) {
  ExitStatus s;
  if (WIFEXITED(status)) s.code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) s.signal = WTERMSIG(status);
  return s;
}

std::vector<std::string> make_env(const SpawnOptions& o) {
  std::vector<std::string> env;
  auto removed = [&](const std::string& entry) {
    const std::string name = entry.substr(0, entry.find('='));
    for (const auto& r : o.env_remove)
      if (r == name) return true;
    for (const auto& a : o.env_add)
      if (a.substr(0, a.find('=')) == name) return true;
    return false;
  };
  for (char** e = environ; e && *e; ++e)
    if (!removed(*e)) env.emplace_back(*e);
  env.insert(env.end(), o.env_add.begin(), o.env_add.end());
  return env;
}

/// Marks every descriptor from 3 up close-on-exec in the child (async-signal-safe).
void cloexec_from_3() {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */) == 0) return;
#endif
  struct rlimit rl {};
  long max = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? static_cast<long>(rl.rlim_cur) : 1024;
  if (max > 65536) max = 65536;
  for (int fd = 3; fd < max; ++fd) {
    const int flags = fcntl(fd, F_GETFD);
    if (flags >= 0) fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
  }
}

int open_output(const std::string& path, bool append) {
  if (path.empty()) return open("/dev/null", O_WRONLY | O_CLOEXEC);
  return open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0644);
}

/// Forks and execs; out_fd and err_fd become the child's stdout and stderr.
Result<pid_t> spawn_fds(const SpawnOptions& o, int out_fd, int err_fd) {
  if (o.argv.empty() || o.argv[0].empty()) return Error{"no program to run"};
  std::string program = o.argv[0];
  if (program.find('/') == std::string::npos) {
    auto found = find_program(program);
    if (!found) return Error{fmt::format("cannot run {}: not found in PATH", program)};
    program = *found;
  }
  std::vector<std::string> env = make_env(o);
  std::vector<char*> argv, envp;
  for (const auto& a : o.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0)
    return Error{fmt::format("cannot run {}: pipe: {}", program, std::strerror(errno))};
  const pid_t parent = getpid();  // before fork: in the child, getpid() is the child's
  const pid_t pid = fork();
  if (pid < 0) {
    const int e = errno;
    close(report[0]);
    close(report[1]);
    return Error{fmt::format("cannot run {}: fork: {}", program, std::strerror(e))};
  }
  if (pid == 0) {  // the child: only async-signal-safe calls until exec
    if (o.new_session) setsid();
    if (o.die_with_parent) {
      prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
      if (getppid() != parent) _exit(127);  // the parent died before prctl took effect
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD, SIGQUIT}) signal(sig, SIG_DFL);
    const int in = open("/dev/null", O_RDONLY);
    if (in >= 0) dup2(in, 0);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    cloexec_from_3();
    if (!o.cwd.empty() && chdir(o.cwd.c_str()) != 0) {
      const int e = errno;
      (void)!write(report[1], &e, sizeof e);
      _exit(127);
    }
    execve(program.c_str(), argv.data(), envp.data());
    const int e = errno;
    (void)!write(report[1], &e, sizeof e);
    _exit(127);
  }
  close(report[1]);
  int child_errno = 0;
  ssize_t n;
  do n = read(report[0], &child_errno, sizeof child_errno);
  while (n < 0 && errno == EINTR);
  close(report[0]);
  if (n == static_cast<ssize_t>(sizeof child_errno)) {
    waitpid(pid, nullptr, 0);
    return Error{
        fmt::format("cannot run {}{}: {}", program, o.cwd.empty() ? "" : " in " + o.cwd, std::strerror(child_errno))};
  }
  return pid;
}

/// Reaps pid if it has ended, polling every few milliseconds until `until`.
std::optional<ExitStatus> reap_until(pid_t pid, Clock::time_point until) {
  for (;;) {
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return decode(status);
    if (r < 0 && errno == ECHILD) return ExitStatus{};  // reaped elsewhere: nothing to know
    if (Clock::now() >= until) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace

std::string ExitStatus::describe() const {
  std::string s = code >= 0 ? fmt::format("exit {}", code) : signal ? "killed by " + signal_name(signal) : "not reaped";
  return timed_out ? "timed out (" + s + ")" : s;
}

Process::~Process() {
  if (m_pid > 0 && !m_status) {
    (void)signal_group(SIGKILL);
    reap_until(m_pid, Clock::now() + std::chrono::seconds(2));
  }
}

Process::Process(Process&& other) noexcept {
  *this = std::move(other);
}

Process& Process::operator=(Process&& other) noexcept {
  if (this != &other) {
    this->~Process();
    m_pid = other.m_pid;
    m_group = other.m_group;
    m_status = std::move(other.m_status);
    other.m_pid = -1;
    other.m_status.reset();
  }
  return *this;
}

Result<Process> Process::spawn(const SpawnOptions& o) {
  if (o.output_fd >= 0) {
    auto pid = spawn_fds(o, o.output_fd, o.output_fd);
    if (!pid) return pid.error();
    Process p;
    p.m_pid = *pid;
    p.m_group = o.new_session;
    return p;
  }
  const int out = open_output(o.stdout_path, o.append);
  if (out < 0) return Error{fmt::format("cannot open {} for output: {}", o.stdout_path, std::strerror(errno))};
  int err = out;
  if (o.stderr_path != o.stdout_path) {
    err = open_output(o.stderr_path, o.append);
    if (err < 0) {
      const int e = errno;
      close(out);
      return Error{fmt::format("cannot open {} for output: {}", o.stderr_path, std::strerror(e))};
    }
  }
  auto pid = spawn_fds(o, out, err);
  close(out);
  if (err != out) close(err);
  if (!pid) return pid.error();
  Process p;
  p.m_pid = *pid;
  p.m_group = o.new_session;
  return p;
}

bool Process::running() {
  if (m_pid <= 0 || m_status) return false;
  if (auto s = reap_until(m_pid, Clock::now())) m_status = s;
  return !m_status;
}

std::optional<ExitStatus> Process::wait_for(std::chrono::milliseconds timeout) {
  if (m_pid <= 0) return m_status;
  if (!m_status) m_status = reap_until(m_pid, Clock::now() + timeout);
  return m_status;
}

Status Process::signal_group(int sig) {
  if (m_pid <= 0) return Error{"no process"};
  const int r = m_group ? kill(-m_pid, sig) : kill(m_pid, sig);
  if (r != 0 && errno != ESRCH)
    return Error{fmt::format("cannot send {} to process {}: {}", signal_name(sig), m_pid, std::strerror(errno))};
  return {};
}

ExitStatus Process::stop(std::chrono::milliseconds grace) {
  if (m_pid <= 0) return m_status.value_or(ExitStatus{});
  if (!m_status) {
    (void)signal_group(SIGTERM);
    wait_for(grace);
  }
  // The leader may be gone while others of its group live on: the group gets SIGKILL either way.
  (void)signal_group(SIGKILL);
  if (!m_status) {
    m_status = reap_until(m_pid, Clock::now() + std::chrono::seconds(5));
    if (m_status) m_status->timed_out = true;
  }
  return m_status.value_or(ExitStatus{.timed_out = true});
}

Result<Captured> run_capture(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                             const std::vector<std::string>& env_add, std::size_t max_output_bytes) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0) return Error{fmt::format("pipe: {}", std::strerror(errno))};
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(out[0]);
    close(out[1]);
    return Error{fmt::format("pipe: {}", std::strerror(errno))};
  }
  // A mark every descendant inherits: at the deadline, those that left the group with setsid
  // are found by it and killed with the rest.
  static std::atomic<unsigned> serial{0};
  const std::string marker = fmt::format("DCUKIT_CAPTURE={}.{}", getpid(), ++serial);
  SpawnOptions o{.argv = argv, .env_add = env_add};
  o.env_add.push_back(marker);
  auto pid = spawn_fds(o, out[1], err[1]);
  close(out[1]);
  close(err[1]);
  if (!pid) {
    close(out[0]);
    close(err[0]);
    return pid.error();
  }
  Captured c;
  const auto deadline = Clock::now() + timeout;
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* sinks[2] = {&c.out, &c.err};
  std::optional<ExitStatus> status;
  Clock::time_point reaped_at{};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    const auto now = Clock::now();
    if (now >= deadline) break;
    // Once the child is gone, a grandchild may still hold the pipes: read what is there, briefly.
    if (status && now - reaped_at > std::chrono::milliseconds(200)) break;
    const int wait_ms = static_cast<int>(
        std::min<long long>(20, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1));
    if (poll(fds, 2, wait_ms) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        const std::size_t room = max_output_bytes > sinks[i]->size() ? max_output_bytes - sinks[i]->size() : 0;
        sinks[i]->append(buf, std::min<std::size_t>(room, static_cast<std::size_t>(n)));
        if (room < static_cast<std::size_t>(n)) c.truncated = true;
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
    if (!status && (status = reap_until(*pid, Clock::now()))) reaped_at = Clock::now();
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  if (!status) status = reap_until(*pid, deadline);
  if (!status) {  // past the deadline: the whole group goes, and what escaped it
    kill(-*pid, SIGKILL);
    (void)kill_marked(marker, std::chrono::milliseconds(0));
    status = reap_until(*pid, Clock::now() + std::chrono::seconds(2));
    c.status = status.value_or(ExitStatus{});
    c.status.timed_out = true;
    return c;
  }
  c.status = *status;
  return c;
}

std::optional<std::string> find_program(const std::string& program, const std::string& path) {
  if (program.find('/') != std::string::npos)
    return access(program.c_str(), X_OK) == 0 ? std::optional(program) : std::nullopt;
  std::string dirs = path;
  if (dirs.empty()) {
    const char* env = getenv("PATH");
    dirs = env ? env : "/usr/local/bin:/usr/bin:/bin";
  }
  std::size_t pos = 0;
  while (pos <= dirs.size()) {
    const auto colon = dirs.find(':', pos);
    std::string dir = dirs.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos);
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + program;
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(candidate.c_str(), X_OK) == 0)
      return candidate;
    if (colon == std::string::npos) break;
    pos = colon + 1;
  }
  return std::nullopt;
}

Status become_child_subreaper() {
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
    return Error{fmt::format("cannot become a child subreaper: {}", std::strerror(errno))};
  return {};
}

int reap_children_except(pid_t keep) {
  int reaped = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stoi(name));
    if (pid == keep) continue;
    std::ifstream in(entry.path() / "stat");
    std::string stat;
    std::getline(in, stat);
    const auto close_paren = stat.rfind(')');
    char state = 0;
    int ppid = 0;
    if (close_paren == std::string::npos || std::sscanf(stat.c_str() + close_paren + 1, " %c %d", &state, &ppid) != 2)
      continue;
    if (state == 'Z' && ppid == getpid() && waitpid(pid, nullptr, WNOHANG) == pid) ++reaped;
  }
  return reaped;
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGHUP:
      return "SIGHUP";
    case SIGINT:
      return "SIGINT";
    case SIGQUIT:
      return "SIGQUIT";
    case SIGILL:
      return "SIGILL";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGKILL:
      return "SIGKILL";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGALRM:
      return "SIGALRM";
    case SIGTERM:
      return "SIGTERM";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGUSR2:
      return "SIGUSR2";
    case SIGCHLD:
      return "SIGCHLD";
    default:
      return fmt::format("signal {}", sig);
  }
}

}  // namespace dcukit::util
