#pragma once
// `dcukit guard`'s one entry point: keep an inference service alive until told to stop.
#include "guard/types.h"
#include "util/result.h"

namespace dcukit::guard {

/// Opens the event stream and the log, serves /healthz and /metrics on options.listen, and
/// supervises the command until SIGTERM or SIGINT (util::StopToken). An Error when guard itself
/// could not start (the listen address, the log or events file); the service's failures are
/// events and states, never errors.
Result<Report> run(const Request& request);

}  // namespace dcukit::guard
