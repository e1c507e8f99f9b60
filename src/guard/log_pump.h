#pragma once
// The service's output: each start gets a fresh pipe whose write end becomes the service's
// stdout and stderr; one thread reads every open pipe into the rotated log file (and the
// in-memory tail). A pipe of a stopped service is dropped when guard says so, even if an
// escaped process still holds its write end, so that nothing it does can block guard.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "util/result.h"
#include "util/rotating_file.h"

namespace dcukit::guard {

class LogPump {
public:
  LogPump(std::string path, std::uint64_t max_bytes, int keep);
  ~LogPump();  ///< stops the thread and closes every pipe
  LogPump(const LogPump&) = delete;
  LogPump& operator=(const LogPump&) = delete;

  /// Opens the log file and starts the reader thread; the error names the file.
  Status start();
  /// A new pipe for a service start: returns the write end (close-on-exec; the spawned child
  /// gets it as stdout and stderr; the caller closes its copy after spawning).
  Result<int> new_pipe();
  /// Closes every pipe but the newest after reading what is already in them.
  void drop_old_pipes();
  /// Closes every pipe (after reading what is in them).
  void drop_all_pipes();
  /// Writes a line of guard's own into the log ("--- dcukit guard: started pid 42 ---").
  void note(const std::string& line);
  /// The last lines the service wrote.
  std::string tail() const;
  /// New limits for rotation (a reload).
  void set_limits(std::uint64_t max_bytes, int keep);

private:
  void run();
  void wake();
  void drain(int fd);

  mutable std::mutex m_mutex;  ///< guards m_file and m_fds
  util::RotatingFile m_file;
  std::vector<int> m_fds;
  int m_wake[2] = {-1, -1};
  std::atomic<bool> m_stop{false};
  std::thread m_thread;
};

}  // namespace dcukit::guard
