#pragma once
// A device figure as a Prometheus family, shared by dcukit's own names (metrics.cpp) and the
// other exporters' (names.cpp): the family's name, type and help, the value of one device
// (nullopt: the device does not report it, so it has no sample), and labels of its own.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "serving/prometheus.h"
#include "telemetry/types.h"

namespace dcukit::exporter {

struct Series {
  const char* name;
  serving::MetricType type;
  const char* help;
  std::function<std::optional<double>(const telemetry::DeviceState&)> value;
  serving::Labels extra = {};  ///< after the device's labels ({"clock_type", "memory"})
};

/// `v` times `scale` as a double; nullopt stays nullopt.
template <class T>
std::optional<double> scaled(const std::optional<T>& v, double scale = 1.0) {
  if (!v) return std::nullopt;
  return static_cast<double>(*v) * scale;
}

/// Writes each series for every device that has its figure: one HELP and TYPE a family (two
/// entries may share a family: gpu_clock's system and memory clocks), then its samples, each
/// labelled labels(device) then the series' own.
void write_series(serving::TextWriter& w, const std::vector<Series>& series,
                  const std::vector<telemetry::DeviceState>& devices,
                  const std::function<serving::Labels(const telemetry::DeviceState&)>& labels);

}  // namespace dcukit::exporter
