#pragma once
// `dcukit stress`'s one entry point: every device of a backend runs the level's checks on a
// thread of its own while telemetry is read once a second; each device's run is watched against
// its deadline, so that a kernel that never returns is a finding, not a hang; SIGINT and
// SIGTERM stop every check within a batch and keep what was measured.
#include "stress/types.h"
#include "util/result.h"

namespace dcukit::stress {

/// Runs the checks and judges them. An Error is bad input found before anything ran (a level,
/// a device, a backend that did not load); everything else is in the Report.
Result<Report> run(const Request& request);

}  // namespace dcukit::stress
