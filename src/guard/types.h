#pragma once
// What `dcukit guard` is told and what it reports: its options (one struct, filled from the
// defaults, then the options file, then the command line), the states the service goes
// through, the probes and the events. Plain data; the supervisor (supervisor.h) acts on it.
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/run_info.h"
#include "util/result.h"
#include "util/settings.h"

namespace dcukit::guard {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

/// Seconds from t until now, as a fraction (status ages, stop times).
inline double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

/// Where the service is in its life. Readiness is probed in `starting`, liveness in `ready`.
enum class State { starting, ready, unhealthy, stopping, backoff, failed };
/// "starting", "ready", ...: the label values of dcukit_guard_state.
std::string_view to_string(State s);
std::optional<State> parse_state(std::string_view s);
/// Every state, in the order above (for the metric's one-series-per-state).
inline constexpr State kStates[] = {State::starting, State::ready,   State::unhealthy,
                                    State::stopping, State::backoff, State::failed};

/// A probe of the service: readiness runs them in this order, liveness runs health and canary.
enum class Probe { tcp, health, models, canary };
std::string_view to_string(Probe p);
inline constexpr Probe kProbes[] = {Probe::tcp, Probe::health, Probe::models, Probe::canary};

/// What an event line says happened.
enum class EventKind {
  guard_started,      ///< guard is up and serving its endpoints
  started,            ///< the service process was started
  ready,              ///< every readiness step passed
  probe_failed,       ///< one liveness probe failed (not yet unhealthy); not with -q
  probe_passed,       ///< a readiness step or liveness probe passed; only with -v
  unhealthy,          ///< readiness ran out of time or liveness failed --failures times in a row
  exited,             ///< the service ended on its own
  stopping,           ///< guard began stopping the service
  stopped,            ///< the service is gone (or guard gave up waiting), with what was left
  escaped,            ///< a process that left the service's group was found (and ended if ours)
  port_busy,          ///< the service's port was held by another process before a start
  restart_scheduled,  ///< a restart after a back-off delay
  failed,             ///< too many restarts within the window: guard stopped restarting
  reloaded,           ///< the options file was read again (SIGHUP)
  reload_failed,      ///< the options file could not be used; the old options stay
  exiting,            ///< guard is ending (SIGTERM or SIGINT)
  leftovers_killed,   ///< processes of an earlier guard's service (same command and URL) were ended at start
};
std::string_view to_string(EventKind k);

/// How many events guard writes: -q leaves out probe_failed (the state changes stay), -v adds
/// probe_passed.
enum class EventDetail { quiet, normal, verbose };

/// "DCUKIT_GUARD_SERVICE=<hash of the command and URL>": put in the service's environment, which
/// its descendants inherit, so that a guard started after one killed with SIGKILL finds what the
/// earlier one's service left running (workers that left its group, still holding the GPU).
std::string service_marker(const std::vector<std::string>& command, const std::string& url);

/// How much device memory a device has in use: what guard checks after a stop (--device).
struct DeviceMemory {
  std::uint64_t used_bytes = 0;
  std::uint64_t total_bytes = 0;
};
/// Reads device `index`'s memory; given to guard by the CLI (from telemetry), faked in tests.
using DeviceMemoryReader = std::function<Result<DeviceMemory>(int index)>;

/// Every option of guard. Durations are milliseconds; see settings.h for each one's meaning.
struct Options {
  std::vector<std::string> command;  ///< what to run (after "--"); never from the options file
  std::string url = "http://127.0.0.1:8000";
  std::string model;        ///< the model /v1/models must list; empty: the first listed
  std::string api_key_env;  ///< name of a variable holding the API key sent as a Bearer token
  std::string log_file = "dcukit-guard-service.log";
  std::uint64_t log_max_bytes = 64ull << 20;
  int log_keep = 5;
  milliseconds startup_timeout{20 * 60 * 1000};
  milliseconds probe_interval{5000}, probe_timeout{5000};
  milliseconds canary_interval{60'000}, canary_timeout{30'000};
  std::string canary_prompt = "Hello";
  int canary_max_tokens = 1;
  int failures = 3;
  milliseconds drain{30'000};            ///< SIGTERM to SIGKILL
  milliseconds release_timeout{60'000};  ///< port and device memory freed after a stop
  milliseconds backoff_initial{1000}, backoff_max{300'000};
  int max_restarts = 5;
  milliseconds window{30 * 60 * 1000};
  std::string events_file;  ///< empty: standard output
  std::string listen = "127.0.0.1:9401";
  bool listen_any = false;
  std::optional<int> device;                        ///< the device whose memory must be released after a stop
  std::uint64_t device_slack_bytes = 512ull << 20;  ///< used memory above the baseline still "released"
  std::string config_file;
};

/// name=value pairs, in the order given (the command line's settings).
using Pairs = util::Pairs;

/// What to guard and how.
struct Request {
  Options options;                 ///< resolved (settings.h: resolve_options)
  Pairs overrides;                 ///< the command line's settings, applied again on each SIGHUP reload
  DeviceMemoryReader read_memory;  ///< reads --device's memory; empty when no reader is available
  EventDetail detail = EventDetail::normal;  ///< -q, -v
  std::string command;                       ///< dcukit's command line as typed, for run_info
};

/// How guard ended.
struct Report {
  core::RunInfo run_info;
  std::uint64_t restarts = 0;
  State final_state = State::stopping;
  bool stop_complete = true;  ///< the last stop left nothing of the service behind
};

}  // namespace dcukit::guard
