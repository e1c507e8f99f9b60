#pragma once
// The text the exporter answers a scrape with: one family per device figure
// (dcukit_gpu_temperature_celsius, ..., or under dcgm-exporter's or AMD's names: names.h), and
// the exporter's own families, which say why a scrape has no devices or no fresh figures. A pure
// function of a Scrape, so that tests render fixtures without a server.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "exporter/names.h"
#include "telemetry/types.h"

namespace dcukit::exporter {

/// What one scrape found, and the exporter's counters at that moment.
struct Scrape {
  /// The reading; nullopt when the collect failed or missed its deadline.
  std::optional<telemetry::Snapshot> snapshot;
  /// Why there is no reading (the deadline, an unreadable --from file); empty otherwise. For the
  /// log: labels carry only the bounded reason() below.
  std::string error;
  bool deadline_missed = false;  ///< the reading did not finish within the deadline
  double collect_seconds = 0;              ///< how long this scrape waited for its reading
  std::uint64_t scrapes_total = 0;         ///< scrapes served, this one included
  std::uint64_t collect_errors_total = 0;  ///< collects that failed or missed their deadline
  std::string source;                      ///< "live" or "capture" (--from)
};

/// Why a scrape has no device figures, as a bounded label value: "deadline_missed",
/// "read_failed", "no_source_found", "empty_reading"; "" when it has devices.
std::string_view no_device_reason(const Scrape& s);

/// The scrape's diagnostics in one line (the error, each source's state and detail), for the
/// exporter's log; "" when every source read and devices were found.
std::string diagnostics(const Scrape& s);

/// How the device series are named, and the labels every one carries.
struct RenderOptions {
  NameSet names = NameSet::dcukit;
  Identity identity;  ///< hostname on every device series; the cluster for AMD's names; the jobs
  /// A device's health, 0 ok, 1 warning, 2 failing, -1 not judged (dcukit_gpu_health); empty:
  /// no health series. The CLI gives patrol's judgment of the device's figures.
  std::function<int(const telemetry::DeviceState&)> health;
};

/// dcgm-exporter's job-mapping folder: a file a device, named by its index, holding the job id(s)
/// using it, one a line (a Slurm prolog writes it, the epilog removes it). Files whose name is
/// not an index, and anything past 4 KiB a file, are not read.
std::map<int, std::string> read_job_mapping(const std::string& dir);

/// Renders `s` in Prometheus' text format (version 0.0.4), process_* families included.
std::string render_metrics(const Scrape& s, const RenderOptions& o = {});

}  // namespace dcukit::exporter
