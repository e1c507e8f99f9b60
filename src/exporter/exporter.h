#pragma once
// `dcukit exporter`: device metrics for Prometheus, read fresh on each scrape within a deadline,
// from the live host (telemetry's Collector) or from a captured tool output (--from). The one
// entry point cli/exporter.cpp calls.
#include "exporter/types.h"
#include "util/result.h"

namespace dcukit::exporter {

/// Checks `o` before anything is bound: the address parses, a non-loopback one was asked for
/// with listen_any, the deadline is positive. The error names the flag and the fix.
Status validate(const Request& o);

/// Serves /metrics (and / with a link, /healthz) until `stop` is requested. Its only errors are
/// validate()'s and the address that cannot be bound (in use, not this host's), naming it.
Result<Report> run(const Request& request);

}  // namespace dcukit::exporter
