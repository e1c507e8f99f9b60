#include "patrol/service.h"
#include "patrol/types.h"

#include <fmt/format.h>
#include <signal.h>

#include <cerrno>
#include <sstream>

#include "serving/canary.h"
#include "serving/probe.h"
#include "util/files.h"
#include "util/procfs.h"

namespace dcukit::patrol {
namespace {

/// The pid in `path`, or an Error naming the file.
Result<pid_t> read_pid(const std::string& path) {
  auto text = util::read_file(path, util::kPidFileInput);
  if (!text)
    return Error{fmt::format("--pid-file {}: {}; the service is not running, or give its pid file", path,
                             text.error().message)};
  std::istringstream in(*text);
  long pid = 0;
  if (!(in >> pid) || pid <= 0)
    return Error{fmt::format("--pid-file {} holds no process id (a positive number)", path)};
  return static_cast<pid_t>(pid);
}

std::vector<pid_t> check_pid_file(const std::string& path, Report& r, const util::Root& root) {
  auto pid = read_pid(path);
  if (!pid) {
    add(r, {"service", "process", State::critical, pid.error().message});
    return {};
  }
  const auto info = util::read_proc_info(*pid, root);
  const bool exists = ::kill(*pid, 0) == 0 || errno == EPERM;
  if (!exists || !info || info->state == 'Z') {
    add(r, {"service", "process", State::critical, fmt::format("process {} from {} is not running", *pid, path)});
    return {};
  }
  add(r, {"service", "process", State::ok, fmt::format("process {} ({}) is running", *pid, info->comm)});
  std::vector<pid_t> pids{*pid};
  for (const auto& d : util::descendants_of(*pid, root)) pids.push_back(d.pid);
  return pids;
}

/// /health: 200 is OK, 404 (a server without the route) UNKNOWN, anything else CRITICAL.
void check_health(const serving::Endpoint& ep, const ServiceOptions& o, Report& r) {
  const auto reply = serving::get(ep, "/health", o.probe_timeout);
  if (!reply) return add(r, {"service", "health", State::critical, reply.error().message});
  if (reply->status == 200) return add(r, {"service", "health", State::ok, "/health answered 200"});
  if (reply->status == 404)
    return add(r, {"service", "health", State::unknown, "/health is not served (404); the other probes still judge"});
  add(r, {"service", "health", State::critical, fmt::format("/health answered HTTP {}", reply->status)});
}

void check_canary(const serving::Endpoint& ep, const std::string& model, const ServiceOptions& o, Report& r) {
  serving::CanaryRequest req;
  req.model = model;
  req.timeout = o.canary_timeout;
  const auto c = serving::send_canary(ep, req);
  Perf perf{"canary", 0, "s", {}, {}, 0, {}};
  // As Nagios ranges: alert above each (a canary takes a positive time).
  if (o.max_canary) perf.warn = fmt::format("{}", std::chrono::duration<double>(*o.max_canary).count());
  perf.crit = fmt::format("{}", std::chrono::duration<double>(o.canary_timeout).count());
  if (!c) {
    add(r, {"service", "canary", State::critical, "canary failed: " + c.error().message});
    return;
  }
  perf.value = c->latency_seconds;
  r.perfdata.push_back(perf);
  const double ms = c->latency_seconds * 1000;
  if (o.max_canary && ms > static_cast<double>(o.max_canary->count()))
    return add(r, {"service", "canary", State::warning,
                   fmt::format("canary took {:.0f} ms (warning above {} ms)", ms, o.max_canary->count())});
  add(r, {"service", "canary", State::ok, fmt::format("canary answered in {:.0f} ms", ms)});
}

void check_url(const ServiceOptions& o, Report& r) {
  serving::Endpoint ep;
  ep.base_url = o.url;
  while (!ep.base_url.empty() && ep.base_url.back() == '/') ep.base_url.pop_back();
  ep.headers = o.headers;
  check_health(ep, o, r);
  const auto model = serving::served_model(ep, o.model, o.probe_timeout);
  if (!model) return add(r, {"service", "models", State::critical, model.error().message});
  add(r, {"service", "models", State::ok, fmt::format("/v1/models lists {}", *model)});
  if (o.canary) check_canary(ep, *model, o, r);
}

}  // namespace

std::vector<pid_t> check_service(const ServiceOptions& o, Report& r, const util::Root& root) {
  std::vector<pid_t> pids;
  if (!o.pid_file.empty()) pids = check_pid_file(o.pid_file, r, root);
  if (!o.url.empty()) check_url(o, r);
  return pids;
}

}  // namespace dcukit::patrol
