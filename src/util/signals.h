#pragma once
// One stop token for the whole process: SIGINT and SIGTERM both request a stop, so that every
// long-running command (bench, load, guard, telemetry --watch) ends the same way whichever
// signal it gets: stop measuring, write what was measured, exit. A second signal of either kind
// ends the process at once (the default action), for a user whose first Ctrl-C did not help;
// one that comes within kRepeatWindow of the first is the same stop sent twice (coreutils'
// `timeout` signals the child and then its whole process group) and is ignored.
// SIGHUP is counted separately (guard reloads its options on it).
#include <atomic>
#include <chrono>

namespace dcukit::util {

class StopToken {
public:
  /// A second SIGINT/SIGTERM this soon after the first is a repeat of it, not a user insisting.
  static constexpr std::chrono::milliseconds kRepeatWindow{500};

  /// The process's token; installs the SIGINT/SIGTERM/SIGHUP handlers on first use.
  static StopToken& process();

  /// True once SIGINT or SIGTERM arrived, or request_stop() was called.
  bool stop_requested() const { return m_signal.load() != 0; }
  /// The signal that asked for the stop (SIGINT, SIGTERM), -1 for request_stop(), 0 if none.
  int stop_signal() const { return m_signal.load(); }
  /// "interrupted by SIGTERM", "interrupted by SIGINT", or "interrupted" (request_stop()).
  const char* describe() const;
  /// Asks for a stop from inside the program (a watchdog, a test).
  void request_stop();
  /// Sleeps up to `d`, waking early on a stop; true when a stop was requested.
  bool wait_for(std::chrono::milliseconds d) const;
  /// A descriptor that becomes readable (and stays so) once a stop is requested, for poll/epoll.
  int fd() const { return m_pipe[0]; }
  /// How many SIGHUPs have arrived so far.
  unsigned hangups() const { return m_hangups.load(); }

  /// Back to "no stop requested" and handlers re-armed (for tests and for a supervisor that
  /// has handled one stop). Not for use while another thread waits on fd().
  void reset();

private:
  StopToken();
  friend void on_stop_signal(int sig);
  friend void on_hangup(int sig);

  std::atomic<int> m_signal{0};
  std::atomic<long long> m_stop_ns{0};  ///< CLOCK_MONOTONIC time of the stop request
  std::atomic<unsigned> m_hangups{0};
  int m_pipe[2] = {-1, -1};
};

}  // namespace dcukit::util
