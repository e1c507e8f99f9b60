#include "guard/status.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "serving/process_metrics.h"
#include "serving/prometheus.h"
#include "util/json_text.h"
#include "util/redact.h"

namespace dcukit::guard {
namespace {

const std::vector<double> kCanaryBounds = {0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};


}  // namespace

StatusBoard::StatusBoard() : m_state_since(Clock::now()) {
  m_v.canary_bounds = kCanaryBounds;
  m_v.canary_cumulative.assign(kCanaryBounds.size(), 0);
}

void StatusBoard::set_state(State s) {
  std::lock_guard lock(m_mutex);
  if (m_v.state != s) m_state_since = Clock::now();
  m_v.state = s;
}

State StatusBoard::state() const {
  std::lock_guard lock(m_mutex);
  return m_v.state;
}

void StatusBoard::service_started(int pid, bool is_restart) {
  std::lock_guard lock(m_mutex);
  m_v.pid = pid;
  m_started_at = Clock::now();
  ++m_v.starts;
  if (is_restart) ++m_v.restarts;
}

void StatusBoard::service_ended(const util::ExitStatus& status) {
  std::lock_guard lock(m_mutex);
  m_v.pid.reset();
  m_v.last_exit = status;
}

void StatusBoard::set_reason(const std::string& reason) {
  std::lock_guard lock(m_mutex);
  m_v.reason = reason;
}

void StatusBoard::probe_failed(Probe p) {
  std::lock_guard lock(m_mutex);
  ++m_v.probe_failures[static_cast<std::size_t>(p)];
}

void StatusBoard::canary_latency(double seconds) {
  std::lock_guard lock(m_mutex);
  for (std::size_t i = 0; i < m_v.canary_bounds.size(); ++i)
    if (seconds <= m_v.canary_bounds[i]) ++m_v.canary_cumulative[i];
  m_v.canary_sum += seconds;
  ++m_v.canary_count;
  m_v.last_canary_seconds = seconds;
}

void StatusBoard::set_target(const std::string& url, const std::string& model) {
  std::lock_guard lock(m_mutex);
  m_v.url = url;
  m_v.model = model;
}

void StatusBoard::set_log_tail(std::function<std::string()> tail) {
  std::lock_guard lock(m_mutex);
  m_tail = std::move(tail);
}

StatusView StatusBoard::view() const {
  std::function<std::string()> tail;
  StatusView v;
  {
    std::lock_guard lock(m_mutex);
    v = m_v;
    v.state_seconds = seconds_since(m_state_since);
    v.uptime_seconds = v.pid ? seconds_since(m_started_at) : 0;
    tail = m_tail;
  }
  if (v.state != State::ready && tail) v.log_tail = tail();
  return v;
}

int exit_code_metric(const std::optional<util::ExitStatus>& s) {
  if (!s) return -1;
  if (s->code >= 0) return s->code;
  if (s->signal > 0) return 128 + s->signal;
  return -1;
}

std::string render_metrics(const StatusView& v) {
  serving::TextWriter w;
  w.family("dcukit_guard_state", serving::MetricType::gauge,
           "1 for the state the guarded service is in (starting, ready, unhealthy, stopping, backoff, failed), 0 "
           "for the others");
  for (State s : kStates) w.sample("dcukit_guard_state", {{"state", std::string(to_string(s))}}, s == v.state ? 1 : 0);
  w.family("dcukit_guard_restarts_total", serving::MetricType::counter, "Restarts of the service since guard started");
  w.sample("dcukit_guard_restarts_total", {}, static_cast<double>(v.restarts));
  w.family("dcukit_guard_last_exit_code", serving::MetricType::gauge,
           "How the service last ended: its exit code, 128 + the signal that ended it, -1 before the first end");
  w.sample("dcukit_guard_last_exit_code", {}, exit_code_metric(v.last_exit));
  w.family("dcukit_guard_canary_latency_seconds", serving::MetricType::histogram,
           "Latency of the canary completions that succeeded");
  w.histogram("dcukit_guard_canary_latency_seconds", {}, v.canary_bounds, v.canary_cumulative, v.canary_sum,
              v.canary_count);
  w.family("dcukit_guard_probe_failures_total", serving::MetricType::counter,
           "Liveness probes that failed, by probe (tcp, health, models, canary)");
  for (Probe p : kProbes)
    w.sample("dcukit_guard_probe_failures_total", {{"probe", std::string(to_string(p))}},
             static_cast<double>(v.probe_failures[static_cast<std::size_t>(p)]));
  w.family("dcukit_guard_uptime_seconds", serving::MetricType::gauge,
           "Seconds since the running service process started; 0 when none runs");
  w.sample("dcukit_guard_uptime_seconds", {}, v.uptime_seconds);
  serving::write_process_metrics(w);
  return w.str();
}

std::string render_healthz(const StatusView& v) {
  nlohmann::ordered_json j;
  j["state"] = to_string(v.state);
  j["ready"] = v.state == State::ready;
  j["state_seconds"] = v.state_seconds;
  j["url"] = v.url;
  j["model"] = v.model;
  j["pid"] = v.pid ? nlohmann::ordered_json(*v.pid) : nlohmann::ordered_json();
  j["uptime_seconds"] = v.uptime_seconds;
  j["restarts"] = v.restarts;
  if (v.last_exit) {
    j["last_exit"] = {{"code", v.last_exit->code},
                      {"signal", v.last_exit->signal ? util::signal_name(v.last_exit->signal) : ""},
                      {"describe", v.last_exit->describe()}};
  } else {
    j["last_exit"] = nullptr;
  }
  j["reason"] = v.reason;
  if (v.last_canary_seconds) j["last_canary_seconds"] = *v.last_canary_seconds;
  if (v.state != State::ready) j["log_tail"] = v.log_tail;
  util::redact_strings(j);
  return util::json_text(j, 2) + "\n";
}

}  // namespace dcukit::guard
