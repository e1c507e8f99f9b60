#include "guard/supervisor.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>

#include "util/duration.h"
#include "util/procfs.h"
#include "util/sd_notify.h"
#include "util/signals.h"

namespace dcukit::guard {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

json exit_json(const util::ExitStatus& s) {
  return {{"describe", s.describe()},
          {"code", s.code},
          {"signal", s.signal ? util::signal_name(s.signal) : ""},
          {"exit_code_metric", exit_code_metric(s)}};
}

}  // namespace

Supervisor::Supervisor(Options options, Pairs overrides, SupervisorParts parts)
    : m_o(std::move(options)), m_overrides(std::move(overrides)), m_p(std::move(parts)) {}

void Supervisor::set_state(State s) {
  if (s == m_state && m_p.board.state() == s) return;
  m_state = s;
  m_p.board.set_state(s);
  (void)util::sd_notify(fmt::format("STATUS=service {}", to_string(s)));
}

double Supervisor::seconds_since_start() const {
  return std::chrono::duration<double>(Clock::now() - m_started_at).count();
}

ProbeTarget Supervisor::target() const {
  ProbeTarget t;
  t.endpoint.base_url = m_url;
  if (!m_o.api_key_env.empty())
    if (const char* key = std::getenv(m_o.api_key_env.c_str()); key && *key)
      t.endpoint.headers.push_back(fmt::format("Authorization: Bearer {}", key));
  t.address = m_address;
  t.model = m_model.empty() ? m_o.model : m_model;
  t.canary_prompt = m_o.canary_prompt;
  t.canary_max_tokens = m_o.canary_max_tokens;
  return t;
}

bool Supervisor::run() {
  m_hangups = m_p.stop.hangups();
  m_last_watchdog = Clock::now();
  start_service();
  const long long watchdog_us = util::sd_watchdog_usec();
  while (!m_p.stop.stop_requested()) {
    if (m_p.stop.hangups() != m_hangups) {
      m_hangups = m_p.stop.hangups();
      reload();
    }
    tick();
    if (watchdog_us > 0 && Clock::now() - m_last_watchdog > std::chrono::microseconds(watchdog_us / 2)) {
      (void)util::sd_notify("WATCHDOG=1");
      m_last_watchdog = Clock::now();
    }
    (void)m_p.stop.wait_for(20ms);
  }
  (void)util::sd_notify("STOPPING=1");
  const int sig = m_p.stop.stop_signal();
  const std::string why = sig > 0 ? "guard received " + util::signal_name(sig) : "guard was asked to stop";
  if (service_running()) stop(why);
  m_probe.abandon();
  m_p.events.emit(EventKind::exiting, m_state,
                  {{"reason", why}, {"restarts", m_p.board.view().restarts}, {"stop_complete", m_last_stop_complete}});
  return m_last_stop_complete;
}

void Supervisor::tick() {
  if (service_running()) util::reap_children_except(m_process->pid());  // orphans we adopted
  switch (m_state) {
    case State::starting:
    case State::ready: {
      if (!m_process->running()) {
        const util::ExitStatus status = m_process->status().value_or(util::ExitStatus{});
        m_p.events.emit(EventKind::exited, m_state,
                        {{"pid", m_process->pid()},
                         {"exit", exit_json(status)},
                         {"seconds", seconds_since_start()},
                         {"attempt", m_attempt}});
        const std::string reason = fmt::format("the service ended ({})", status.describe());
        stop(reason);
        schedule_restart(reason);
        return;
      }
      if (auto r = m_probe.poll(); r && r->tag == m_attempt) on_probe(*r);
      if (m_state == State::starting && Clock::now() >= m_start_deadline) {
        make_unhealthy(fmt::format("not ready within --startup-timeout {} (waiting for {}: {})",
                                   util::format_duration(m_o.startup_timeout), to_string(m_step), m_last_error),
                       m_step);
        return;
      }
      if ((m_state == State::starting || m_state == State::ready) && !m_probe.busy()) launch_due_probe();
      return;
    }
    case State::backoff:
      if (Clock::now() >= m_restart_at) start_service();
      return;
    case State::unhealthy:
    case State::stopping:
    case State::failed:
      return;
  }
}

void Supervisor::launch_due_probe() {
  const auto now = Clock::now();
  if (m_state == State::starting) {
    if (now < m_next_probe) return;
    const auto timeout = m_step == Probe::canary ? m_o.canary_timeout : m_o.probe_timeout;
    m_probe.launch(m_step, target(), timeout, m_attempt);
  } else if (now >= m_next_canary) {
    m_probe.launch(Probe::canary, target(), m_o.canary_timeout, m_attempt);
  } else if (now >= m_next_health) {
    m_probe.launch(Probe::health, target(), m_o.probe_timeout, m_attempt);
  }
}

void Supervisor::on_probe(const ProbeOutcome& r) {
  const auto now = Clock::now();
  if (m_state == State::starting) {
    if (!r.ok) {
      m_last_error = r.detail;
      m_next_probe = now + std::min<milliseconds>(m_o.probe_interval, 1s);
      return;
    }
    if (r.probe == Probe::models) m_model = r.model;
    m_p.events.emit(EventKind::probe_passed, m_state, {{"probe", to_string(r.probe)}, {"seconds", r.seconds}});
    if (r.probe == Probe::canary) return become_ready(r);
    m_step = static_cast<Probe>(static_cast<int>(r.probe) + 1);
    m_last_error.clear();
    m_next_probe = now;
    return;
  }
  if (m_state != State::ready) return;
  const bool canary = r.probe == Probe::canary;
  int& fails = canary ? m_canary_fails : m_health_fails;
  if (r.ok) {
    fails = 0;
    m_p.events.emit(EventKind::probe_passed, m_state, {{"probe", to_string(r.probe)}, {"seconds", r.seconds}});
    if (canary) m_p.board.canary_latency(r.seconds);
    (canary ? m_next_canary : m_next_health) = now + (canary ? m_o.canary_interval : m_o.probe_interval);
    return;
  }
  ++fails;
  m_p.board.probe_failed(r.probe);
  m_p.events.emit(EventKind::probe_failed, m_state,
                  {{"probe", to_string(r.probe)},
                   {"reason", r.detail},
                   {"consecutive", fails},
                   {"failures", m_o.failures},
                   {"seconds", r.seconds}});
  if (fails >= m_o.failures) {
    make_unhealthy(fmt::format("{} failed {} times in a row (last: {})", to_string(r.probe), fails, r.detail), r.probe);
    return;
  }
  (canary ? m_next_canary : m_next_health) = now + m_o.probe_interval;  // confirm soon
}

void Supervisor::become_ready(const ProbeOutcome& canary) {
  m_p.board.canary_latency(canary.seconds);
  m_p.board.set_target(m_url, m_model);
  m_p.board.set_reason("");
  m_backoff.reset();
  m_health_fails = m_canary_fails = 0;
  const auto now = Clock::now();
  m_next_health = now + m_o.probe_interval;
  m_next_canary = now + m_o.canary_interval;
  set_state(State::ready);
  m_p.events.emit(EventKind::ready, m_state,
                  {{"pid", m_process->pid()},
                   {"attempt", m_attempt},
                   {"model", m_model},
                   {"seconds", seconds_since_start()},
                   {"canary_seconds", canary.seconds}});
}

void Supervisor::make_unhealthy(const std::string& reason, Probe probe) {
  set_state(State::unhealthy);
  m_p.board.set_reason(reason);
  m_p.events.emit(EventKind::unhealthy, m_state,
                  {{"pid", m_process ? m_process->pid() : 0}, {"probe", to_string(probe)}, {"reason", reason}});
  stop(reason);
  schedule_restart(reason);
}

void Supervisor::stop(const std::string& reason) {
  if (!m_process) return;
  m_probe.abandon();
  set_state(State::stopping);
  m_p.events.emit(EventKind::stopping, m_state, {{"pid", m_process->pid()}, {"reason", reason}});
  StopPlan plan{.drain = m_o.drain,
                .release_timeout = m_o.release_timeout,
                .port = m_local ? m_address.port : 0,
                .device = m_o.device,
                .read_memory = m_p.read_memory,
                .device_baseline = m_device_baseline,
                .slack_bytes = m_o.device_slack_bytes,
                .device_holders_before = m_device_holders};
  const pid_t pid = m_process->pid();
  const StopOutcome out = stop_service(*m_process, plan);
  m_process.reset();
  m_p.logs.drop_all_pipes();
  m_p.board.service_ended(out.status);
  m_p.board.set_reason(reason);
  for (const auto& e : out.escaped)
    m_p.events.emit(
        EventKind::escaped, m_state,
        {{"pid", e.pid}, {"cmdline", e.cmdline}, {"found_by", e.found_by}, {"ours", e.ours}, {"ended", e.ended}});
  json fields = {{"pid", pid},
                 {"exit", exit_json(out.status)},
                 {"killed", out.killed},
                 {"seconds", out.seconds},
                 {"group_left", out.group_left},
                 {"escaped", out.escaped.size()},
                 {"port_free", out.port_free},
                 {"port_holders", out.port_holders},
                 {"complete", out.complete()}};
  if (out.device)
    fields["device"] = {{"index", out.device->device},
                        {"baseline_bytes", out.device->baseline_bytes},
                        {"used_bytes", out.device->used_bytes},
                        {"released", out.device->released},
                        {"waited_seconds", out.device->waited_seconds},
                        {"error", out.device->error}};
  else if (m_o.device)
    fields["device"] = {{"index", *m_o.device}, {"released", nullptr}, {"error", m_device_error}};
  m_last_stop_complete = out.complete();
  m_p.events.emit(EventKind::stopped, m_state, fields);
}

void Supervisor::schedule_restart(const std::string& reason) {
  const auto now = Clock::now();
  if (m_window.record(now, m_o.window, m_o.max_restarts)) {
    const auto view = m_p.board.view();
    const std::string why = fmt::format("crash loop: more than {} restarts within {} (last: {})", m_o.max_restarts,
                                        util::format_duration(m_o.window), reason);
    set_state(State::failed);
    m_p.board.set_reason(why);
    json fields = {{"reason", why}, {"restarts", view.restarts}, {"log_tail", m_p.logs.tail()}};
    fields["last_exit"] = view.last_exit ? exit_json(*view.last_exit) : json();
    m_p.events.emit(EventKind::failed, m_state, fields);
    return;
  }
  const auto delay = m_backoff.next(m_o.backoff_initial, m_o.backoff_max);
  m_restart_at = now + delay;
  set_state(State::backoff);
  m_p.events.emit(EventKind::restart_scheduled, m_state,
                  {{"delay_seconds", util::seconds(delay)},
                   {"in_a_row", m_backoff.in_a_row()},
                   {"attempt", m_attempt + 1},
                   {"reason", reason}});
}

}  // namespace dcukit::guard
