#pragma once
// `dcukit patrol`: one inspection in the shape of seed 004's daily patrol script (devices,
// service, residue), judged as a Nagios check. The one entry point cli/patrol.cpp calls.
#include "patrol/types.h"
#include "util/result.h"

namespace dcukit::patrol {

/// One inspection. What cannot be read becomes an UNKNOWN finding; the Result holds a Report always.
Result<Report> run(const Request& request);

}  // namespace dcukit::patrol
