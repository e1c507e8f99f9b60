#pragma once
// `dcukit telemetry`'s engine: one reading, a watch of many, or a captured file, each reading
// handed to the caller as it is taken (the CLI writes it; a pipeline could keep it).
#include <chrono>
#include <functional>
#include <string>

#include "telemetry/collector.h"
#include "telemetry/types.h"
#include "util/result.h"

namespace dcukit::util {
class StopToken;
}

namespace dcukit::telemetry {

struct Request {
  CollectOptions collect;               ///< the live sources
  std::string from;                     ///< a captured tool output read once instead ("" none)
  std::chrono::milliseconds every{0};   ///< 0: one reading; else the interval of a watch
  int count = 0;                        ///< readings to take (0: one, or until stopped when watching)
  const util::StopToken* stop = nullptr;  ///< ends a watch between readings
  /// Called with each reading as it is taken; `first` for the first. False: stop (a write failed).
  std::function<bool(const Snapshot&, bool first)> on_reading;
};

struct Report {
  int readings = 0;
  bool any_device = false;  ///< some reading found a device
  bool written = true;      ///< every on_reading returned true
};

/// Takes the readings the Request asks for. Errors are bad input: a --from file that cannot be
/// read or recognised, --watch or --count with --from.
Result<Report> run(const Request& request);

}  // namespace dcukit::telemetry
