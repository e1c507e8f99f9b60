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

/// The checks a pasted collect_env (`path`) can answer (doctor --from); an Error when the file
/// cannot be read or is not a collect_env output.
Result<Report> run_from_collect_env(const std::string& path, const Request& request);

}  // namespace dcukit::doctor
