#pragma once
// `dcukit exporter`: device metrics for Prometheus, read fresh on each scrape within a deadline,
// from the live host (telemetry's Collector) or from a captured tool output (--from). The one
// entry point cli/exporter.cpp calls.
#include <chrono>
#include <functional>
#include <string>

#include "exporter/names.h"
#include "telemetry/collector.h"
#include "util/result.h"

namespace dcukit::util {
class StopToken;
}

namespace dcukit::exporter {

/// How to serve.
struct Request {
  std::string listen = "127.0.0.1:9402";     ///< ADDR:PORT; port 0 picks a free one
  bool listen_any = false;                   ///< allow an address other hosts can reach
  std::string from;                          ///< a captured tool output read on each scrape, instead of the host
  telemetry::CollectOptions collect;         ///< the live sources (collect.timeout: per source)
  std::chrono::milliseconds deadline{8000};  ///< the most a scrape waits for its reading
  NameSet names = NameSet::dcukit;           ///< --names: dcukit's, dcgm-exporter's or AMD's
  std::string cluster = "default";           ///< --cluster-name, for AMD's dashboards
  /// Where the log lines go (what the labels leave out, once per change); empty: stderr.
  std::function<void(const std::string&)> log;
  bool log_scrapes = false;  ///< -v: also a line for every scrape
  const util::StopToken* stop = nullptr;  ///< serving ends when it is requested (null: never)
  /// Called once with the address bound ("127.0.0.1:9402"), e.g. to print it.
  std::function<void(const std::string&)> on_listening;
};

/// How a serving ended.
struct Report {
  std::string address;  ///< where it served
};

/// Checks `o` before anything is bound: the address parses, a non-loopback one was asked for
/// with listen_any, the deadline is positive. The error names the flag and the fix.
Status validate(const Request& o);

/// Serves /metrics (and / with a link, /healthz) until `stop` is requested. Its only errors are
/// validate()'s and the address that cannot be bound (in use, not this host's), naming it.
Result<Report> run(const Request& request);

}  // namespace dcukit::exporter
