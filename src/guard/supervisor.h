#pragma once
// The supervisor: one loop that starts the service, probes readiness then liveness, notices an
// exit, stops the service completely when it is unhealthy, backs off, gives up on a crash loop,
// reloads its options on SIGHUP and stops everything on SIGTERM/SIGINT. It is the only writer
// of the StatusBoard and the event log's main author.
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "guard/backoff.h"
#include "guard/events.h"
#include "guard/log_pump.h"
#include "guard/prober.h"
#include "guard/settings.h"
#include "guard/status.h"
#include "guard/stopper.h"
#include "guard/types.h"
#include "util/process.h"

namespace dcukit::util {
class StopToken;
}

namespace dcukit::guard {

/// What the supervisor works with; all of it outlives the supervisor.
struct SupervisorParts {
  EventLog& events;
  StatusBoard& board;
  LogPump& logs;
  util::StopToken& stop;
  DeviceMemoryReader read_memory;  ///< may be empty (then --device is refused earlier)
};

class Supervisor {
public:
  /// options: resolved; overrides: the command line's settings, applied again on each reload.
  Supervisor(Options options, Pairs overrides, SupervisorParts parts);
  /// Runs until a stop is requested, then stops the service. True when that last stop was
  /// complete (nothing of the service left).
  bool run();

private:
  void tick();
  void start_service();
  void on_probe(const ProbeOutcome& r);
  void launch_due_probe();
  void become_ready(const ProbeOutcome& canary);
  void make_unhealthy(const std::string& reason, Probe probe);
  void stop(const std::string& reason);
  void schedule_restart(const std::string& reason);
  void reload();
  void set_state(State s);
  ProbeTarget target() const;
  bool service_running() const { return m_process.has_value(); }
  double seconds_since_start() const;

  Options m_o;
  Pairs m_overrides;
  SupervisorParts m_p;
  State m_state = State::starting;
  std::optional<util::Process> m_process;
  std::string m_url;  ///< the URL of the running service (a reload changes it at the next start)
  util::HostPort m_address;
  bool m_local = false;  ///< the service's host is this host: its port can be checked
  std::uint64_t m_attempt = 0;
  Clock::time_point m_started_at, m_start_deadline, m_restart_at, m_next_probe, m_next_health, m_next_canary;
  Clock::time_point m_last_watchdog;
  Probe m_step = Probe::tcp;  ///< the readiness step being probed
  std::string m_last_error;   ///< the last readiness step's error
  std::string m_model;        ///< the model found by the models step
  int m_health_fails = 0, m_canary_fails = 0;
  AsyncProbe m_probe;
  Backoff m_backoff;
  CrashWindow m_window;
  unsigned m_hangups = 0;
  bool m_last_stop_complete = true;
  std::optional<std::uint64_t> m_device_baseline;
  std::string m_device_error;  ///< why the baseline could not be read (then the release is not checked)
  std::set<pid_t> m_device_holders;
};

}  // namespace dcukit::guard
