#pragma once
// `dcukit patrol`: one inspection in the shape of seed 004's daily patrol script (devices,
// service, residue), judged as a Nagios check. The one entry point cli/patrol.cpp calls.
#include <optional>
#include <string>

#include "patrol/service.h"
#include "patrol/thresholds.h"
#include "patrol/types.h"
#include "telemetry/collector.h"
#include "util/result.h"

namespace dcukit::patrol {

/// What to inspect.
struct Request {
  bool devices = true;                ///< judge the devices (false: only the service)
  std::string from;                   ///< device figures from a captured tool output instead of the host
  telemetry::CollectOptions collect;  ///< the live reading (collect.root also roots /proc)
  std::optional<int> expect_devices;  ///< fewer devices than this is CRITICAL
  Thresholds thresholds;
  ServiceOptions service;
};

/// One inspection. What cannot be read becomes an UNKNOWN finding; the Result holds a Report always.
Result<Report> run(const Request& request);

}  // namespace dcukit::patrol
