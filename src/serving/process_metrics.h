#pragma once
// The process metrics every Prometheus client library exports (process_open_fds,
// process_resident_memory_bytes, process_start_time_seconds), for dcukit's own long-running
// servers: a leak in guard or the exporter shows on the dashboard before it hurts.
#include "serving/prometheus.h"

namespace dcukit::serving {

/// Appends the process_* families, read from /proc/self now.
void write_process_metrics(TextWriter& w);

}  // namespace dcukit::serving
