#pragma once
// doctor's one entry point: examine a host (the live one, a fake host tree under --root, or a
// support bundle offline), and write a support bundle where one is asked for.
#include "doctor/types.h"
#include "util/result.h"

namespace dcukit::doctor {

/// Examines what `request` names and returns every finding. An Error only for bad input (a root
/// that is not a folder, a bundle that cannot be read, --bundle with --root or --from-bundle);
/// a bundle that cannot be written is Report::bundle's error. Never throws; nothing inside waits
/// without a deadline (telemetry, the Python probe, the vendor tools and the smoke test have theirs).
Result<Report> run(const Request& request);

/// One examination of request.root, no bundle (run's worker; the bundle code calls it too).
Report examine(const Request& request);

}  // namespace dcukit::doctor
