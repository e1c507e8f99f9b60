#pragma once
// What a crashed or badly stopped service leaves behind, as seed 004's `fuser /dev/dri/renderD*`
// looks for it: processes holding the GPU device files that are not the service, and device
// memory in use that no process holds (seed 004: DCU memory is not freed at once after a crash).
#include <sys/types.h>

#include <string>
#include <vector>

#include "patrol/thresholds.h"
#include "patrol/types.h"
#include "telemetry/types.h"
#include "util/root.h"

namespace dcukit::patrol {

/// Where to look.
struct ResidueOptions {
  util::Root root = util::Root();  ///< where /proc is read
  /// Read /proc for device-file holders (false for figures from a capture, which is not this host now).
  bool live = true;
  /// The service's processes (check_service); holders outside them are residue. Empty: no
  /// service is known, so holders are counted but not judged.
  std::vector<pid_t> service;
};

/// Adds the residue findings and perfdata for `devices` to `r`.
void check_residue(const std::vector<telemetry::DeviceState>& devices, const Thresholds& t, const ResidueOptions& o,
                   Report& r);

}  // namespace dcukit::patrol
