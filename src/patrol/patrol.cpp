#include "patrol/patrol.h"

#include <fmt/format.h>

#include "patrol/residue.h"
#include "telemetry/capture.h"
#include "telemetry/collector.h"

namespace dcukit::patrol {
namespace {

/// The reading: the capture, or the live host; an UNKNOWN finding when neither gives one.
std::optional<telemetry::Snapshot> read_devices(const Request& o, Report& r) {
  if (!o.from.empty()) {
    auto snap = telemetry::read_capture_file(o.from);
    if (!snap) {
      add(r, {"devices", "read", State::unknown, snap.error().message});  // it names --from and the file
      return std::nullopt;
    }
    return *snap;
  }
  return telemetry::collect(o.collect);
}

/// "nvml unavailable: ...; sysfs ok" for a reading that found no devices.
std::string source_reports(const telemetry::Snapshot& s) {
  std::string out;
  for (const auto& rep : s.sources) {
    out += (out.empty() ? "" : "; ") + rep.name + " " + std::string(telemetry::to_string(rep.state));
    if (!rep.detail.empty()) out += ": " + rep.detail;
  }
  return out.empty() ? "the reading lists none" : out;
}

void check_devices(const Request& o, const std::vector<pid_t>& service, Report& r) {
  const auto snap = read_devices(o, r);
  if (!snap) return;
  r.devices = static_cast<int>(snap->devices.size());
  if (o.expect_devices && r.devices < *o.expect_devices)
    add(r, {"devices", "count", State::critical,
            fmt::format("{} devices found, {} expected ({})", r.devices, *o.expect_devices, source_reports(*snap))});
  else if (r.devices == 0)
    add(r, {"devices", "count", State::unknown, "no GPU found: " + source_reports(*snap)});
  for (const auto& d : snap->devices) check_device(d, o.thresholds, r);
  ResidueOptions ro;
  ro.root = o.collect.root;
  ro.live = o.from.empty();
  ro.service = service;
  check_residue(snap->devices, o.thresholds, ro, r);
}

}  // namespace

Result<Report> run(const Request& o) {
  Report r;
  r.run_info = core::collect_run_info("dcukit patrol", o.command);
  r.timestamp = telemetry::timestamp_now();
  r.source = o.from.empty() ? "live" : o.from;
  const auto service = check_service(o.service, r, o.collect.root);
  if (o.devices) check_devices(o, service, r);
  return r;
}

}  // namespace dcukit::patrol
