#pragma once
// `dcukit load`'s one entry point: run(Request) -> Report. It waits for the server, finds out
// what the server accepts (a trial request first, token ids or text, its /tokenize dialect),
// builds the prompts, warms up, then runs each load level of the sweep (scraping /metrics
// around it when asked). Whatever ends the run early (a stop, a dead server, a failed engine),
// every level measured before it stays in the Report.
#include "load/types.h"
#include "util/result.h"

namespace dcukit::util {
class StopToken;
}

namespace dcukit::load {

/// Runs every level. An Error is bad input found before anything was measured (a dataset file,
/// a length, a URL): nothing to write. Otherwise the Report holds what was measured;
/// Report::problem says what ended the run early (a server that never got ready, a failed trial
/// request, a failed engine) and Report::interrupted whether the user stopped it. Credentials
/// in URLs are redacted from everything in it.
Result<Report> run(const Request& request);

}  // namespace dcukit::load
