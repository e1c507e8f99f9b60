#pragma once
// Child processes with deadlines: a vendor tool run and read (hy-smi, nvidia-smi, python3 -c),
// or a service started in its own session and process group and stopped completely (guard).
// Nothing here waits without a deadline, and every child is reaped: a Process that goes out of
// scope kills its whole group.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace dcukit::util {

/// How a child ended.
struct ExitStatus {
  int code = -1;           ///< exit code; -1 when a signal ended it or it was not reaped
  int signal = 0;          ///< the signal that ended it, 0 when it exited
  bool timed_out = false;  ///< the deadline passed and it was killed
  bool exited() const { return code >= 0; }
  bool success() const { return code == 0 && !timed_out; }
  /// "exit 0", "exit 3", "killed by SIGKILL", "timed out after 5 s (killed)".
  std::string describe() const;
};

/// What to start and where its output goes.
struct SpawnOptions {
  std::vector<std::string> argv;        ///< argv[0] is looked up in PATH when it has no '/'
  std::vector<std::string> env_add;     ///< "NAME=value" entries added to (or replacing in) ours
  std::vector<std::string> env_remove;  ///< names removed from ours
  std::string cwd;                      ///< empty: ours
  std::string stdout_path;              ///< empty: /dev/null (spawn) or a pipe (run_capture)
  std::string stderr_path;              ///< empty: /dev/null; may equal stdout_path
  bool append = false;                  ///< append to the output files instead of truncating
  bool new_session = true;              ///< setsid(): its own session and process group
  /// When >= 0, stdout and stderr both go to this descriptor (a pipe's write end that a
  /// supervisor reads and logs) instead of the paths; the caller keeps and closes its copy.
  int output_fd = -1;
  /// The child gets SIGKILL when this process dies, even by SIGKILL (PR_SET_PDEATHSIG): a
  /// supervisor's service never outlives it. Spawn from a thread that lives as long as the child.
  bool die_with_parent = false;
};

/// A running child (RAII): the destructor kills its process group with SIGKILL and reaps it.
class Process {
public:
  Process() = default;
  ~Process();
  Process(Process&& other) noexcept;
  Process& operator=(Process&& other) noexcept;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  /// Starts the child. The error names the program and why (not found, not executable).
  static Result<Process> spawn(const SpawnOptions& options);

  pid_t pid() const { return m_pid; }
  /// True until the child has been reaped. Does not block.
  bool running();
  /// The exit status once reaped.
  const std::optional<ExitStatus>& status() const { return m_status; }
  /// Waits up to `timeout` for the child to end; its status, or nullopt if still running.
  std::optional<ExitStatus> wait_for(std::chrono::milliseconds timeout);
  /// Sends `sig` to the child's process group (or the child alone without a session of its own).
  Status signal_group(int sig);
  /// SIGTERM to the group, up to `grace` for it to end, then SIGKILL to the group; waits for
  /// the child (never past grace + 5 s) and returns how it ended.
  ExitStatus stop(std::chrono::milliseconds grace);
  /// Forgets the child without killing it (it keeps running; nothing reaps it here).
  void release() { m_pid = -1; }

private:
  pid_t m_pid = -1;
  bool m_group = false;
  std::optional<ExitStatus> m_status;
};

/// A finished command: how it ended and what it wrote.
struct Captured {
  ExitStatus status;
  std::string out, err;
  bool truncated = false;  ///< output beyond max_output_bytes was dropped
};

/// Runs argv to completion with a deadline and returns its output. Past the deadline its whole
/// process group is killed and status.timed_out is set (still a value: partial output is kept).
/// An Error only when it could not be started.
Result<Captured> run_capture(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                             const std::vector<std::string>& env_add = {}, std::size_t max_output_bytes = 16u << 20);

/// The path of `program` found in $PATH (or in `path`, a colon-separated list), or nullopt.
std::optional<std::string> find_program(const std::string& program, const std::string& path = "");

/// The processes whose process group is `pgid` (read from /proc), the leader included.
std::vector<pid_t> process_group_members(pid_t pgid);

/// The processes (other than this one) whose environment holds the entry `marker`
/// ("NAME=value"): a child's descendants, even those that left its session or group with
/// setsid, since the environment is inherited. Only processes this user may read are seen.
std::vector<pid_t> processes_with_env(const std::string& marker);

/// SIGKILLs every process processes_with_env(marker) finds, scanning again until two scans in a
/// row find none still running (gone or a zombie: its sockets and device memory are released)
/// or `wait` is spent; returns the pids it killed. Repeated scans catch a process that one scan
/// missed (forked after the listing, or in execve with its environment briefly unreadable).
std::vector<pid_t> kill_marked(const std::string& marker, std::chrono::milliseconds wait);

/// Makes this process the reaper of its orphaned descendants (Linux' PR_SET_CHILD_SUBREAPER):
/// a process that double-forks out of a supervised service becomes our child, so that it can
/// be found as ours and reaped. The error says why when the kernel refuses.
Status become_child_subreaper();

/// Reaps, without blocking, every child of ours that has ended, except `keep` (a child whose
/// status its owner collects). Returns how many were reaped.
int reap_children_except(pid_t keep);

/// The name of signal `sig`: "SIGTERM", "SIGKILL", or "signal 42".
std::string signal_name(int sig);

}  // namespace dcukit::util
