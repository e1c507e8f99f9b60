#pragma once
// `dcukit telemetry`'s engine: one reading, a watch of many, or a captured file, each reading
// handed to the caller as it is taken (the CLI writes it; a pipeline could keep it).
#include "telemetry/types.h"
#include "util/result.h"

namespace dcukit::telemetry {

/// Takes the readings the Request asks for. Errors are bad input: a --from file that cannot be
/// read or recognised, --watch or --count with --from.
Result<Report> run(const Request& request);

}  // namespace dcukit::telemetry
