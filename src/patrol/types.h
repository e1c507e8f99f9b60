#pragma once
// `dcukit patrol`'s Request (what to inspect and the limits) and Report (what one inspection
// found, as plain data: a state per finding, the figures as perfdata, and the worst state
// overall). The renderers (render.h) turn it into the one line a monitoring system reads, or JSON.
#include <optional>
#include <string>
#include <vector>

#include "core/run_info.h"
#include "patrol/finding.h"
#include "patrol/service.h"
#include "patrol/thresholds.h"
#include "telemetry/types.h"

namespace dcukit::patrol {

/// One inspection.
struct Report {
  core::RunInfo run_info;  ///< the header of the JSON
  std::string timestamp;  ///< UTC, ISO 8601
  std::string source;     ///< "live" or the --from path
  State state = State::ok;
  int devices = 0;
  std::vector<Finding> findings;  ///< every check made, OK ones included
  std::vector<Perf> perfdata;
};

/// Adds `f` to `r` and folds its state into r.state.
void add(Report& r, Finding f);

/// What to inspect.
struct Request {
  bool devices = true;                ///< judge the devices (false: only the service)
  std::string from;                   ///< device figures from a captured tool output instead of the host
  telemetry::CollectOptions collect;  ///< the live reading (collect.root also roots /proc)
  std::optional<int> expect_devices;  ///< fewer devices than this is CRITICAL
  Thresholds thresholds;
  ServiceOptions service;
  std::string command;  ///< the command line as typed, for run_info
};

}  // namespace dcukit::patrol
