#pragma once
// What guard knows now, shared between the supervisor (the only writer) and the HTTP
// endpoints (readers on worker threads): the state, counters, the canary's latencies, the
// last exit. Rendered as /healthz JSON and as /metrics in Prometheus' text format.
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "guard/types.h"
#include "util/process.h"

namespace dcukit::guard {

/// A point-in-time copy of the board, for rendering.
struct StatusView {
  State state = State::starting;
  double state_seconds = 0;   ///< time in the current state
  double uptime_seconds = 0;  ///< since the running service process started; 0 when none
  std::optional<int> pid;     ///< the running service's process id
  std::uint64_t restarts = 0;
  std::uint64_t starts = 0;
  std::optional<util::ExitStatus> last_exit;
  std::string reason;                             ///< why the service was last stopped, or why guard failed
  std::array<std::uint64_t, 4> probe_failures{};  ///< by Probe
  std::vector<double> canary_bounds;
  std::vector<std::uint64_t> canary_cumulative;  ///< per bound
  double canary_sum = 0;
  std::uint64_t canary_count = 0;
  std::optional<double> last_canary_seconds;
  std::string url, model;
  std::string log_tail;  ///< filled for /healthz when the service is not ready
};

class StatusBoard {
public:
  StatusBoard();
  /// Moves to `s` (the time in state restarts).
  void set_state(State s);
  State state() const;
  /// The service process started (pid) / ended (status).
  void service_started(int pid, bool is_restart);
  void service_ended(const util::ExitStatus& status);
  void set_reason(const std::string& reason);
  void probe_failed(Probe p);
  void canary_latency(double seconds);
  void set_target(const std::string& url, const std::string& model);
  /// Where /healthz gets the log tail from.
  void set_log_tail(std::function<std::string()> tail);

  StatusView view() const;

private:
  mutable std::mutex m_mutex;
  StatusView m_v;
  Clock::time_point m_state_since, m_started_at;
  std::function<std::string()> m_tail;
};

/// Prometheus text of the view: dcukit_guard_state{state}, _restarts_total, _last_exit_code,
/// _canary_latency_seconds (histogram), _probe_failures_total{probe}, _uptime_seconds.
std::string render_metrics(const StatusView& v);

/// /healthz's body (JSON): state, ready, pid, restarts, last exit, reason, and the log tail when
/// the service is not ready.
std::string render_healthz(const StatusView& v);

/// The exit code a metric reports: the code, 128 + the signal for a signal, -1 when none yet.
int exit_code_metric(const std::optional<util::ExitStatus>& s);

}  // namespace dcukit::guard
