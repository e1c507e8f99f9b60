#pragma once
// The one interface every live source implements: NVML, the rocm_smi library, sysfs, and the
// vendor tools. A source is created once and sampled as often as --watch asks; it loads what it
// needs (a library, a tool's path) on its first sample and remembers when that is unavailable.
#include <string>

#include "telemetry/types.h"

namespace dcukit::telemetry {

/// One source's reading.
struct SourceSample {
  SourceState state = SourceState::ok;
  std::string detail;  ///< why unavailable or failed; or what was read ("2 devices")
  Snapshot snapshot;   ///< devices with every figure stamped with its source
};

class Source {
public:
  virtual ~Source() = default;
  /// The name in reports: "nvml", "rocm_smi_lib", "sysfs", "cli".
  virtual std::string name() const = 0;
  /// Reads every device this source sees. `so_far` is what the sources before it found (the
  /// vendor tools skip a vendor a library already covered). Blocks, possibly for long on a sick
  /// driver: the collector calls it on a worker thread with a deadline.
  virtual SourceSample sample(const Snapshot& so_far) = 0;
};

}  // namespace dcukit::telemetry
