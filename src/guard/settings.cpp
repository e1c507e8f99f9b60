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

Error bad(std::string_view name, std::string_view value, const std::string& why) {
  return Error{fmt::format("{} '{}': {}", name, value, why)};
}

/// A duration of at least MinMs milliseconds.
template <milliseconds Options::*Field, long long MinMs>
Status set_duration(Options& o, std::string_view v) {
  auto d = util::parse_duration(v);
  if (!d) return Error{d.error().message};
  if (d->count() < MinMs)
    return Error{fmt::format("'{}' is shorter than {}", v, util::format_duration(milliseconds(MinMs)))};
  o.*Field = *d;
  return {};
}
template <milliseconds Options::*Field>
std::string show_duration(const Options& o) {
  return util::format_duration(o.*Field);
}

Result<long long> parse_int(std::string_view v, long long lo, long long hi) {
  long long n = 0;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || ptr != v.data() + v.size())
    return Error{fmt::format("'{}' is not a whole number", v)};
  if (n < lo || n > hi) return Error{fmt::format("{} is outside {} to {}", v, lo, hi)};
  return n;
}

template <int Options::*Field, long long Lo, long long Hi>
Status set_int(Options& o, std::string_view v) {
  auto n = parse_int(v, Lo, Hi);
  if (!n) return n.error();
  o.*Field = static_cast<int>(*n);
  return {};
}
template <int Options::*Field>
std::string show_int(const Options& o) {
  return std::to_string(o.*Field);
}

template <std::string Options::*Field>
Status set_text(Options& o, std::string_view v) {
  o.*Field = std::string(v);
  return {};
}
template <std::string Options::*Field>
std::string show_text(const Options& o) {
  return o.*Field;
}

Result<bool> parse_bool(std::string_view v) {
  if (v.empty() || v == "true" || v == "1" || v == "yes" || v == "on") return true;
  if (v == "false" || v == "0" || v == "no" || v == "off") return false;
  return Error{fmt::format("'{}' is not true or false", v)};
}

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

Status set_listen_any(Options& o, std::string_view v) {
  auto b = parse_bool(v);
  if (!b) return b.error();
  o.listen_any = *b;
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
  auto n = parse_int(v, 0, 1023);
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

const std::vector<Setting> kSettings = {
    {"url", "URL", "The service's base URL, which every probe uses", Reload::next_start, set_url,
     show_text<&Options::url>},
    {"model", "NAME", "The model /v1/models must list and the canary asks (default: the first listed)", Reload::live,
     set_text<&Options::model>, show_text<&Options::model>},
    {"api-key-env", "VAR", "A variable holding the service's API key, sent as 'Authorization: Bearer'", Reload::live,
     set_text<&Options::api_key_env>, show_text<&Options::api_key_env>},
    {"log-file", "PATH", "The service's output (stdout and stderr), rotated by size", Reload::guard_restart,
     set_text<&Options::log_file>, show_text<&Options::log_file>},
    {"log-max-size", "SIZE", "Rotate the log file when it would pass this size", Reload::live, set_log_max,
     [](const Options& o) { return std::to_string(o.log_max_bytes); }},
    {"log-keep", "N", "Rotated log files kept (FILE.1 is the newest)", Reload::live,
     set_int<&Options::log_keep, 0, 1000>, show_int<&Options::log_keep>},
    {"startup-timeout", "DURATION", "How long the service may take to become ready (load the model)", Reload::live,
     set_duration<&Options::startup_timeout, 100>, show_duration<&Options::startup_timeout>},
    {"probe-interval", "DURATION", "Time between /health probes once ready", Reload::live,
     set_duration<&Options::probe_interval, 10>, show_duration<&Options::probe_interval>},
    {"probe-timeout", "DURATION", "Deadline of one TCP, /health or /v1/models probe", Reload::live,
     set_duration<&Options::probe_timeout, 10>, show_duration<&Options::probe_timeout>},
    {"canary-interval", "DURATION", "Time between canary completions once ready", Reload::live,
     set_duration<&Options::canary_interval, 10>, show_duration<&Options::canary_interval>},
    {"canary-timeout", "DURATION", "Deadline of one canary completion", Reload::live,
     set_duration<&Options::canary_timeout, 10>, show_duration<&Options::canary_timeout>},
    {"canary-prompt", "TEXT", "The canary's prompt", Reload::live, set_text<&Options::canary_prompt>,
     show_text<&Options::canary_prompt>},
    {"canary-max-tokens", "N", "Tokens the canary asks for", Reload::live,
     set_int<&Options::canary_max_tokens, 1, 4096>, show_int<&Options::canary_max_tokens>},
    {"failures", "N", "Consecutive failures of a liveness probe that make the service unhealthy", Reload::live,
     set_int<&Options::failures, 1, 1000>, show_int<&Options::failures>},
    {"drain", "DURATION", "After SIGTERM to the service's group, how long before SIGKILL", Reload::live,
     set_duration<&Options::drain, 0>, show_duration<&Options::drain>},
    {"release-timeout", "DURATION", "After a stop, how long to wait for the port and device memory to be freed",
     Reload::live, set_duration<&Options::release_timeout, 0>, show_duration<&Options::release_timeout>},
    {"backoff-initial", "DURATION", "The first restart delay; each restart in a row doubles it", Reload::live,
     set_duration<&Options::backoff_initial, 0>, show_duration<&Options::backoff_initial>},
    {"backoff-max", "DURATION", "The longest restart delay", Reload::live, set_duration<&Options::backoff_max, 0>,
     show_duration<&Options::backoff_max>},
    {"max-restarts", "N", "More restarts than this within --window is a crash loop: state failed", Reload::live,
     set_int<&Options::max_restarts, 0, 1'000'000>, show_int<&Options::max_restarts>},
    {"window", "DURATION", "The crash-loop window", Reload::live, set_duration<&Options::window, 1>,
     show_duration<&Options::window>},
    {"events", "PATH", "Append event lines (JSON) to this file instead of standard output", Reload::guard_restart,
     set_text<&Options::events_file>, show_text<&Options::events_file>},
    {"listen", "ADDR:PORT", "Where guard serves /healthz and /metrics", Reload::guard_restart, set_listen,
     show_text<&Options::listen>},
    {"listen-any", "", "Allow --listen on an address other hosts can reach", Reload::guard_restart, set_listen_any,
     [](const Options& o) { return std::string(o.listen_any ? "true" : "false"); }},
    {"device", "INDEX", "After a stop, wait until this device's memory is released", Reload::live, set_device,
     [](const Options& o) { return o.device ? std::to_string(*o.device) : std::string(); }},
    {"device-slack", "SIZE", "Device memory above the pre-start level that still counts as released", Reload::live,
     set_slack, [](const Options& o) { return std::to_string(o.device_slack_bytes); }},
};

const Setting* find(std::string_view name) {
  for (const auto& s : kSettings)
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace

const std::vector<Setting>& settings() {
  return kSettings;
}

Status apply_setting(Options& options, std::string_view name, std::string_view value) {
  const Setting* s = find(name);
  if (!s) return Error{fmt::format("'{}' is not a guard option (see dcukit guard --help)", name)};
  if (auto st = s->apply(options, value); !st) return bad(fmt::format("--{}", name), value, st.message());
  return {};
}

Result<Pairs> read_options_file(const std::string& path) {
  auto text = util::read_file(path, util::kSettingsInput);
  if (!text) return Error{fmt::format("--config: {}", text.error().message)};
  Pairs pairs;
  const std::string body(util::trim(*text));
  auto check_key = [&](const std::string& key, const std::string& where) -> Status {
    if (key == "config") return Error{fmt::format("{}{}: an options file cannot name another", path, where)};
    if (!find(key))
      return Error{
          fmt::format("{}{}: '{}' is not a guard option (the keys are the flag names without --)", path, where, key)};
    return {};
  };
  if (!body.empty() && body.front() == '{') {
    const auto j = util::parse_json(body);
    if (j.is_discarded() || !j.is_object()) return Error{path + " is not a JSON object"};
    for (const auto& [key, value] : j.items()) {
      if (auto st = check_key(key, ""); !st) return st.error();
      std::string v = value.is_string() ? value.get<std::string>() : value.is_null() ? "" : util::json_text(value);
      pairs.emplace_back(key, v);
    }
    return pairs;
  }
  int line_no = 0;
  std::size_t pos = 0;
  while (pos <= text->size()) {
    const auto nl = text->find('\n', pos);
    const std::string line(
        util::trim(std::string_view(*text).substr(pos, nl == std::string::npos ? std::string::npos : nl - pos)));
    pos = nl == std::string::npos ? text->size() + 1 : nl + 1;
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    const auto eq = line.find('=');
    const std::string where = fmt::format(":{}", line_no);
    if (eq == std::string::npos) return Error{fmt::format("{}{}: expected NAME=VALUE, got '{}'", path, where, line)};
    std::string key(util::trim(std::string_view(line).substr(0, eq)));
    if (key.rfind("--", 0) == 0) key = key.substr(2);
    if (auto st = check_key(key, where); !st) return st.error();
    std::string value(util::trim(std::string_view(line).substr(eq + 1)));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    pairs.emplace_back(key, value);
  }
  return pairs;
}

Result<Options> resolve_options(const std::vector<std::string>& command, const std::string& config_file,
                                const Pairs& overrides) {
  Options o;
  o.command = command;
  o.config_file = config_file;
  if (!config_file.empty()) {
    auto pairs = read_options_file(config_file);
    if (!pairs) return pairs.error();
    for (const auto& [k, v] : *pairs)
      if (auto st = apply_setting(o, k, v); !st) return Error{fmt::format("{}: {}", config_file, st.message())};
  }
  for (const auto& [k, v] : overrides)
    if (auto st = apply_setting(o, k, v); !st) return st.error();
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
