#include "guard/settings.h"

#include <fmt/format.h>

#include <charconv>
#include <nlohmann/json.hpp>

#include "core/units.h"
#include "util/duration.h"
#include "util/files.h"
#include "util/http.h"
#include "util/json_text.h"
#include "util/listen.h"
#include "util/net.h"
#include "util/text.h"

namespace dcukit::guard {
namespace {

Status set_url(Options& o, std::string_view v) {
  auto hp = util::url_host_port(v);
  if (!hp) return hp.error();
  std::string url(v);
  while (!url.empty() && url.back() == '/') url.pop_back();
  o.url = util::url_origin(url);
  return {};
}

Status set_listen(Options& o, std::string_view v) {
  auto hp = util::parse_host_port(v);
  if (!hp) return hp.error();
  o.listen = std::string(v);
  return {};
}

Status set_log_max(Options& o, std::string_view v) {
  auto s = core::parse_size(v);
  if (!s) return s.error();
  if (*s < 1024) return Error{fmt::format("'{}' is below 1 KiB", v)};
  o.log_max_bytes = *s;
  return {};
}

Status set_device(Options& o, std::string_view v) {
  if (v.empty() || v == "none") {
    o.device.reset();
    return {};
  }
  auto n = util::parse_whole(v, 0, 1023);
  if (!n) return n.error();
  o.device = static_cast<int>(*n);
  return {};
}

Status set_slack(Options& o, std::string_view v) {
  auto s = core::parse_size(v);
  if (!s) return s.error();
  o.device_slack_bytes = *s;
  return {};
}

// Each setting's tag: when a reload applies a change to it.
constexpr int kLive = static_cast<int>(Reload::live);
constexpr int kNextStart = static_cast<int>(Reload::next_start);
constexpr int kGuardRestart = static_cast<int>(Reload::guard_restart);

const std::vector<Setting> kSettings = {
    {"url", "URL", "The service's base URL, which every probe uses", set_url,
     util::show_text<&Options::url>, kNextStart},
    {"model", "NAME", "The model /v1/models must list and the canary asks (default: the first listed)", util::set_text<&Options::model>, util::show_text<&Options::model>, kLive},
    {"api-key-env", "VAR", "A variable holding the service's API key, sent as 'Authorization: Bearer'", util::set_text<&Options::api_key_env>, util::show_text<&Options::api_key_env>, kLive},
    {"log-file", "PATH", "The service's output (stdout and stderr), rotated by size", util::set_text<&Options::log_file>, util::show_text<&Options::log_file>, kGuardRestart},
    {"log-max-size", "SIZE", "Rotate the log file when it would pass this size", set_log_max,
     [](const Options& o) { return std::to_string(o.log_max_bytes); }, kLive},
    {"log-keep", "N", "Rotated log files kept (FILE.1 is the newest)", util::set_int<&Options::log_keep, 0, 1000>, util::show_int<&Options::log_keep>, kLive},
    {"startup-timeout", "DURATION", "How long the service may take to become ready (load the model)", util::set_duration<&Options::startup_timeout, 100>, util::show_duration<&Options::startup_timeout>, kLive},
    {"probe-interval", "DURATION", "Time between /health probes once ready", util::set_duration<&Options::probe_interval, 10>, util::show_duration<&Options::probe_interval>, kLive},
    {"probe-timeout", "DURATION", "Deadline of one TCP, /health or /v1/models probe", util::set_duration<&Options::probe_timeout, 10>, util::show_duration<&Options::probe_timeout>, kLive},
    {"canary-interval", "DURATION", "Time between canary completions once ready", util::set_duration<&Options::canary_interval, 10>, util::show_duration<&Options::canary_interval>, kLive},
    {"canary-timeout", "DURATION", "Deadline of one canary completion", util::set_duration<&Options::canary_timeout, 10>, util::show_duration<&Options::canary_timeout>, kLive},
    {"canary-prompt", "TEXT", "The canary's prompt", util::set_text<&Options::canary_prompt>,
     util::show_text<&Options::canary_prompt>, kLive},
    {"canary-max-tokens", "N", "Tokens the canary asks for", util::set_int<&Options::canary_max_tokens, 1, 4096>, util::show_int<&Options::canary_max_tokens>, kLive},
    {"failures", "N", "Consecutive failures of a liveness probe that make the service unhealthy", util::set_int<&Options::failures, 1, 1000>, util::show_int<&Options::failures>, kLive},
    {"drain", "DURATION", "After SIGTERM to the service's group, how long before SIGKILL", util::set_duration<&Options::drain, 0>, util::show_duration<&Options::drain>, kLive},
    {"release-timeout", "DURATION", "After a stop, how long to wait for the port and device memory to be freed", util::set_duration<&Options::release_timeout, 0>, util::show_duration<&Options::release_timeout>, kLive},
    {"backoff-initial", "DURATION", "The first restart delay; each restart in a row doubles it", util::set_duration<&Options::backoff_initial, 0>, util::show_duration<&Options::backoff_initial>, kLive},
    {"backoff-max", "DURATION", "The longest restart delay", util::set_duration<&Options::backoff_max, 0>,
     util::show_duration<&Options::backoff_max>, kLive},
    {"max-restarts", "N", "More restarts than this within --window is a crash loop: state failed", util::set_int<&Options::max_restarts, 0, 1'000'000>, util::show_int<&Options::max_restarts>, kLive},
    {"window", "DURATION", "The crash-loop window", util::set_duration<&Options::window, 1>,
     util::show_duration<&Options::window>, kLive},
    {"events", "PATH", "Append event lines (JSON) to this file instead of standard output", util::set_text<&Options::events_file>, util::show_text<&Options::events_file>, kGuardRestart},
    {"listen", "ADDR:PORT", "Where guard serves /healthz and /metrics", set_listen,
     util::show_text<&Options::listen>, kGuardRestart},
    {"listen-any", "", "Allow --listen on an address other hosts can reach", util::set_switch<&Options::listen_any>,
     util::show_switch<&Options::listen_any>, kGuardRestart},
    {"device", "INDEX", "After a stop, wait until this device's memory is released", set_device,
     [](const Options& o) { return o.device ? std::to_string(*o.device) : std::string(); }, kLive},
    {"device-slack", "SIZE", "Device memory above the pre-start level that still counts as released", set_slack, [](const Options& o) { return std::to_string(o.device_slack_bytes); }, kLive},
};

}  // namespace

const std::vector<Setting>& settings() {
  return kSettings;
}

Status apply_setting(Options& options, std::string_view name, std::string_view value) {
  return util::apply_setting(kSettings, options, name, value, "guard");
}

Result<Options> resolve_options(const std::vector<std::string>& command, const std::string& config_file,
                                const Pairs& overrides) {
  Options defaults;
  defaults.command = command;
  defaults.config_file = config_file;
  auto resolved = util::apply_settings(kSettings, defaults, config_file, overrides, "guard");
  if (!resolved) return resolved.error();
  const Options& o = *resolved;
  if (o.command.empty())
    return Error{"no service command: write it after --, e.g. dcukit guard -- vllm serve /models/x --port 8000"};
  if (auto listen = util::parse_listen(o.listen, o.listen_any); !listen) return listen.error();
  if (o.backoff_max < o.backoff_initial)
    return Error{fmt::format("--backoff-max {} is shorter than --backoff-initial {}",
                             util::format_duration(o.backoff_max), util::format_duration(o.backoff_initial))};
  return o;
}

std::vector<const Setting*> changed_settings(const Options& a, const Options& b) {
  std::vector<const Setting*> out;
  for (const auto& s : kSettings)
    if (s.show(a) != s.show(b)) out.push_back(&s);
  return out;
}

}  // namespace dcukit::guard
