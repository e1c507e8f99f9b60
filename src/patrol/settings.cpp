#include "patrol/settings.h"

#include "util/net.h"

namespace dcukit::patrol {
namespace {

using Ms = std::chrono::milliseconds;

Status set_url(Request& r, std::string_view v) {
  if (auto hp = util::url_host_port(v); !hp) return hp.error();
  r.service.url = std::string(v);
  return {};
}

Status set_max_canary(Request& r, std::string_view v) {
  auto ms = util::parse_whole(v, 1, 1'000'000'000);
  if (!ms) return ms.error();
  r.service.max_canary = Ms(*ms);
  return {};
}

/// A positive duration into one of the service's deadlines.
template <Ms ServiceOptions::*Field>
Status set_deadline(Request& r, std::string_view v) {
  auto d = util::parse_duration(v);
  if (!d || d->count() <= 0) return Error{"give a positive duration, e.g. 5s"};
  r.service.*Field = *d;
  return {};
}
template <Ms ServiceOptions::*Field>
std::string show_deadline(const Request& r) {
  return util::format_duration(r.service.*Field);
}

const std::vector<Setting> kSettings = {
    {"url", "URL", "The service's base URL: /health, /v1/models and one small completion (the canary) are probed",
     set_url, [](const Request& r) { return r.service.url; }},
    {"pid-file", "PATH", "A file holding the service's pid: is it running?",
     [](Request& r, std::string_view v) -> Status {
       r.service.pid_file = std::string(v);
       return {};
     },
     [](const Request& r) { return r.service.pid_file; }},
    {"model", "NAME", "The model /v1/models must list (default: the first listed)",
     [](Request& r, std::string_view v) -> Status {
       r.service.model = std::string(v);
       return {};
     },
     [](const Request& r) { return r.service.model; }},
    {"header", "NAME: VALUE", "An HTTP header for the probes, \"Name: value\" (repeatable)",
     [](Request& r, std::string_view v) -> Status {
       r.service.headers.emplace_back(v);
       return {};
     },
     [](const Request&) { return std::string(); }, 0, true},
    {"max-canary-ms", "MS", "A canary slower than this is WARNING", set_max_canary,
     [](const Request& r) { return r.service.max_canary ? std::to_string(r.service.max_canary->count()) : std::string(); }},
    {"no-canary", "", "Do not send the canary completion",
     [](Request& r, std::string_view v) -> Status {
       auto on = util::parse_switch(v);
       if (!on) return on.error();
       r.service.canary = !*on;
       return {};
     },
     [](const Request&) { return std::string(); }},
    {"probe-timeout", "DURATION", "Deadline of /health and /v1/models", set_deadline<&ServiceOptions::probe_timeout>,
     show_deadline<&ServiceOptions::probe_timeout>},
    {"canary-timeout", "DURATION", "A canary that takes longer is CRITICAL",
     set_deadline<&ServiceOptions::canary_timeout>, show_deadline<&ServiceOptions::canary_timeout>},
    {"limit", "KEY=WARN,CRIT",
     "Override a device limit for every device: KEY=WARN,CRIT, KEY=WARN, KEY=,CRIT or KEY=off, each a Nagios range "
     "(80: above 80; 10: below 10; 10:20 outside; @10:20 inside); keys: temperature (C), power (% of cap), memory "
     "(% used), busy (%), ecc-corrected, ecc-uncorrected, residue-memory (MiB in use with no process), pcie=on|off "
     "(repeatable)",
     [](Request& r, std::string_view v) { return r.thresholds.set(v); }, [](const Request&) { return std::string(); },
     0, true},
    {"expect-devices", "N", "Fewer devices than N is CRITICAL",
     [](Request& r, std::string_view v) -> Status {
       auto n = util::parse_whole(v, 1, 4096);
       if (!n) return n.error();
       r.expect_devices = static_cast<int>(*n);
       return {};
     },
     [](const Request& r) { return r.expect_devices ? std::to_string(*r.expect_devices) : std::string(); }},
    {"no-devices", "", "Inspect the service only",
     [](Request& r, std::string_view v) -> Status {
       auto on = util::parse_switch(v);
       if (!on) return on.error();
       r.devices = !*on;
       return {};
     },
     [](const Request&) { return std::string(); }},
};

}  // namespace

const std::vector<Setting>& settings() {
  return kSettings;
}

Result<Request> resolve_request(Request defaults, const std::string& config_file, const util::Pairs& overrides) {
  auto r = util::apply_settings(kSettings, std::move(defaults), config_file, overrides, "patrol");
  if (!r) return r.error();
  if (!r->devices && r->service.url.empty() && r->service.pid_file.empty())
    return Error{"--no-devices leaves nothing to inspect; give --url or --pid-file"};
  return r;
}

}  // namespace dcukit::patrol
