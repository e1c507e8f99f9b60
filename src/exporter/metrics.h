#pragma once
// The text the exporter answers a scrape with: one family per device figure, named like
// dcgm-exporter's and AMD's device-metrics-exporter (dcukit_gpu_temperature_celsius, ...), and
// the exporter's own families, which say why a scrape has no devices or no fresh figures. A pure
// function of a Scrape, so that tests render fixtures without a server.
#include <cstdint>
#include <optional>
#include <string>

#include "telemetry/types.h"

namespace dcukit::exporter {

/// What one scrape found, and the exporter's counters at that moment.
struct Scrape {
  /// The reading; nullopt when the collect failed or missed its deadline.
  std::optional<telemetry::Snapshot> snapshot;
  /// Why there is no reading (the deadline, an unreadable --from file); empty otherwise.
  std::string error;
  double collect_seconds = 0;              ///< how long this scrape waited for its reading
  std::uint64_t scrapes_total = 0;         ///< scrapes served, this one included
  std::uint64_t collect_errors_total = 0;  ///< collects that failed or missed their deadline
  std::string source;                      ///< "live" or the --from path
};

/// Renders `s` in Prometheus' text format (version 0.0.4), process_* families included.
std::string render_metrics(const Scrape& s);

}  // namespace dcukit::exporter
