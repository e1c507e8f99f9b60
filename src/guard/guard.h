#pragma once
// `dcukit guard`'s one entry point: keep an inference service alive until told to stop.
#include <cstdint>
#include <string>

#include "guard/settings.h"
#include "guard/types.h"
#include "util/result.h"

namespace dcukit::guard {

/// What to guard and how.
struct Request {
  Options options;                 ///< resolved (settings.h: resolve_options)
  Pairs overrides;                 ///< the command line's settings, applied again on each SIGHUP reload
  DeviceMemoryReader read_memory;  ///< reads --device's memory; empty when no reader is available
  EventDetail detail = EventDetail::normal;  ///< -q, -v
};

/// How guard ended.
struct Report {
  std::uint64_t restarts = 0;
  State final_state = State::stopping;
  bool stop_complete = true;  ///< the last stop left nothing of the service behind
};

/// Opens the event stream and the log, serves /healthz and /metrics on options.listen, and
/// supervises the command until SIGTERM or SIGINT (util::StopToken). An Error when guard itself
/// could not start (the listen address, the log or events file); the service's failures are
/// events and states, never errors.
Result<Report> run(const Request& request);

}  // namespace dcukit::guard
