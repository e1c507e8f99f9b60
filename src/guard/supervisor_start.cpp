// Supervisor: starting the service (after checking its port is free) and reloading options.
#include <fmt/format.h>
#include <unistd.h>

#include "guard/supervisor.h"
#include "util/duration.h"
#include "util/procfs.h"

namespace dcukit::guard {
namespace {

using nlohmann::json;

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : " ") + s;
  return out;
}

}  // namespace

void Supervisor::start_service() {
  ++m_attempt;
  m_url = m_o.url;
  auto address = util::url_host_port(m_url);
  m_address = address ? *address : util::HostPort{};
  m_local = address && util::is_loopback_host(m_address.host);
  m_model.clear();
  m_p.board.set_target(m_url, m_o.model);

  // A port held by someone else means our probes would reach them, not our service.
  if (m_local && !util::listening_socket_inodes(m_address.port).empty()) {
    json holders = json::array();
    std::string names;
    for (pid_t pid : util::port_listeners(m_address.port)) {
      auto info = util::read_proc_info(pid);
      holders.push_back({{"pid", pid}, {"cmdline", info ? info->cmdline : ""}});
      names += fmt::format("{}{} ({})", names.empty() ? "" : ", ", pid, info ? info->comm : "?");
    }
    const std::string reason =
        fmt::format("port {} is already in use by {}", m_address.port,
                    names.empty() ? std::string("a process guard cannot see (another user's?)") : names);
    m_p.board.set_reason(reason);
    m_p.events.emit(EventKind::port_busy, m_state,
                    {{"port", m_address.port}, {"holders", holders}, {"attempt", m_attempt}});
    schedule_restart(reason);
    return;
  }

  m_device_baseline.reset();
  m_device_error.clear();
  m_device_holders.clear();
  if (m_o.device && m_p.read_memory) {
    auto m = m_p.read_memory(*m_o.device);
    if (m)
      m_device_baseline = m->used_bytes;
    else
      m_device_error = "cannot read the memory before the start, so its release is not checked: " + m.error().message;
    m_device_holders = gpu_file_holders();
  }

  auto pipe = m_p.logs.new_pipe();
  Result<util::Process> spawned =
      pipe ? util::Process::spawn({.argv = m_o.command,
                                                  .env_add = {service_marker(m_o.command, m_o.url)},
                                                  .output_fd = *pipe,
                                                  .die_with_parent = true}) : Result<util::Process>(pipe.error());
  if (pipe) close(*pipe);
  if (!spawned) {
    const std::string reason = spawned.error().message;
    m_p.logs.note("--- dcukit guard: " + reason + " ---");
    m_p.logs.drop_all_pipes();
    m_p.board.set_reason(reason);
    m_p.events.emit(EventKind::exited, m_state, {{"attempt", m_attempt}, {"error", reason}});
    schedule_restart(reason);
    return;
  }
  m_process.emplace(std::move(*spawned));
  m_started_at = Clock::now();
  m_p.logs.note(fmt::format("--- dcukit guard: attempt {} started pid {}: {} ---", m_attempt, m_process->pid(),
                            join(m_o.command)));
  m_p.board.service_started(m_process->pid(), m_attempt > 1);
  m_step = Probe::tcp;
  m_last_error = "no probe answered yet";
  m_next_probe = m_started_at;
  m_start_deadline = m_started_at + m_o.startup_timeout;
  m_health_fails = m_canary_fails = 0;
  set_state(State::starting);
  json started = {{"pid", m_process->pid()},
                  {"attempt", m_attempt},
                  {"command", m_o.command},
                  {"url", m_url},
                  {"startup_timeout_seconds", util::seconds(m_o.startup_timeout)}};
  if (!m_device_error.empty()) started["device_error"] = m_device_error;
  m_p.events.emit(EventKind::started, m_state, started);
}

void Supervisor::reload() {
  auto fresh = resolve_options(m_o.command, m_o.config_file, m_overrides);
  if (!fresh) {
    m_p.events.emit(EventKind::reload_failed, m_state, {{"error", fresh.error().message}});
    return;
  }
  json now = json::array(), next_start = json::array(), guard_restart = json::array();
  for (const Setting* s : changed_settings(m_o, *fresh)) {
    const std::string name(s->name);
    if (reload_of(*s) == Reload::live) now.push_back(name);
    if (reload_of(*s) == Reload::next_start) next_start.push_back(name);
    if (reload_of(*s) == Reload::guard_restart) guard_restart.push_back(name);
  }
  Options kept = *fresh;
  // Where guard listens, logs and writes events stays as it was until guard is restarted.
  kept.events_file = m_o.events_file;
  kept.listen = m_o.listen;
  kept.listen_any = m_o.listen_any;
  kept.log_file = m_o.log_file;
  m_o = std::move(kept);
  m_p.logs.set_limits(m_o.log_max_bytes, m_o.log_keep);
  m_p.events.emit(EventKind::reloaded, m_state,
                  {{"config", m_o.config_file},
                   {"applied", now},
                   {"at_next_start", next_start},
                   {"at_guard_restart", guard_restart}});
  if (m_state == State::failed) {  // the operator fixed something: try again from a clean slate
    m_window.clear();
    m_backoff.reset();
    start_service();
  }
}

}  // namespace dcukit::guard
