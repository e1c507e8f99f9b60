#pragma once
// patrol's look at the inference service, in the order seed 004's script asks: is the process
// alive (--pid-file), does /health answer, does /v1/models list the model, and does one small
// completion (the canary) come back within --max-canary-ms. Every call has a deadline.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "patrol/finding.h"
#include "util/root.h"

namespace dcukit::patrol {

struct Report;

/// What to check; an empty pid_file or url skips that part.
struct ServiceOptions {
  std::string pid_file;                                 ///< a file holding the service's pid (vllm.pid)
  std::string url;                                      ///< base URL of an OpenAI-compatible server
  std::string model;                                    ///< the model /v1/models must list; empty: the first listed
  std::vector<std::string> headers;                     ///< sent with every request ("Authorization: Bearer ...")
  bool canary = true;                                   ///< send one small completion
  std::optional<std::chrono::milliseconds> max_canary;  ///< a slower canary is WARNING
  std::chrono::milliseconds probe_timeout{5000};        ///< /health and /v1/models
  std::chrono::milliseconds canary_timeout{30000};      ///< a canary that takes longer is CRITICAL
};

/// Adds the service's findings and perfdata to `r`; returns the service's processes (the pid in
/// the pid file and its descendants), empty when there is no pid file or it is not running.
std::vector<pid_t> check_service(const ServiceOptions& o, Report& r, const util::Root& root = util::Root());

}  // namespace dcukit::patrol
