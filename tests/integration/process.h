#pragma once
// Child processes for integration tests: spawn with stdout and stderr in files, wait with a
// deadline (killing the child past it), and RAII so that no test leaves a server running.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace itest {

/// How a child ended.
struct Exit {
  int code = -1;  ///< exit status, or -1 if killed
  bool timed_out = false;
  std::string out, err;  ///< what it wrote
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A running child; killed (SIGKILL) and reaped on destruction if still running.
class Child {
public:
  /// How the child's stderr is connected.
  enum class Stderr {
    file,      ///< base + ".err"
    with_out,  ///< the same file as stdout, base + ".out", as `cmd > f 2>&1` would
    to_fd,     ///< stderr_fd (a terminal's slave side, for a test of what a terminal sees)
  };

  /// Starts argv[0] with argv; stdout and stderr go to base + ".out" / ".err". env sets
  /// "NAME=value" entries in the current environment, and unset removes names from it.
  Child(const std::vector<std::string>& argv, const std::string& base, const std::vector<std::string>& env = {},
        Stderr err = Stderr::file, int stderr_fd = -1, const std::vector<std::string>& unset = {})
      : m_out(base + ".out"), m_err(base + ".err") {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, m_out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err == Stderr::file)
      posix_spawn_file_actions_addopen(&fa, 2, m_err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    else if (err == Stderr::with_out)
      posix_spawn_file_actions_adddup2(&fa, 1, 2);
    else
      posix_spawn_file_actions_adddup2(&fa, stderr_fd, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    std::vector<std::string> env_store;
    for (char** e = environ; *e; ++e) {
      const std::string entry = *e;
      bool removed = false;
      for (const auto& name : unset) removed = removed || entry.rfind(name + "=", 0) == 0;
      for (const auto& set : env) removed = removed || entry.rfind(set.substr(0, set.find('=') + 1), 0) == 0;
      if (!removed) env_store.push_back(entry);
    }
    for (const auto& e : env) env_store.push_back(e);
    std::vector<char*> envp;
    for (auto& e : env_store) envp.push_back(e.data());
    envp.push_back(nullptr);
    if (posix_spawn(&m_pid, args[0], &fa, nullptr, args.data(), envp.data()) != 0) m_pid = -1;
    posix_spawn_file_actions_destroy(&fa);
  }
  ~Child() {
    if (m_pid > 0) {
      kill(m_pid, SIGKILL);
      waitpid(m_pid, nullptr, 0);
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  bool started() const { return m_pid > 0; }
  /// Sends sig to the child while it runs (a user's Ctrl-C is SIGINT).
  void signal(int sig) {
    if (m_pid > 0) kill(m_pid, sig);
  }
  std::string out() const { return slurp(m_out); }

  /// Whether the child has ended (it is reaped here, without waiting; wait() then returns at once).
  bool finished() {
    int status = 0;
    if (m_pid > 0 && waitpid(m_pid, &status, WNOHANG) == m_pid) {
      m_pid = -1;
      m_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    return m_pid <= 0;
  }

  /// Waits up to deadline; past it the child is killed and timed_out is set.
  Exit wait(std::chrono::milliseconds deadline) {
    Exit e;
    const auto end = std::chrono::steady_clock::now() + deadline;
    while (!finished()) {
      if (std::chrono::steady_clock::now() >= end) {
        kill(m_pid, SIGKILL);
        waitpid(m_pid, nullptr, 0);
        m_pid = -1;
        e.timed_out = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    e.code = e.timed_out ? -1 : m_code;
    e.out = slurp(m_out);
    e.err = slurp(m_err);
    return e;
  }

private:
  pid_t m_pid = -1;
  int m_code = -1;
  std::string m_out, m_err;
};

}  // namespace itest
