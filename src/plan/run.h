#pragma once
// plan's one entry point: from what the user asked (a model directory, cards by name or this
// host's, engine settings, the vLLM version whose accounting to follow) to a report holding the
// plan, or, given a vLLM start-up log, the plan held against that log line by line. The CLI
// parses into a Request and renders the Report; nothing of the pipeline lives in cli/.
#include "plan/types.h"

namespace dcukit::plan {

/// Reads the model, counts its weights, finds the cards (asking this host's own stack where
/// they are detected), chooses the vLLM version whose accounting to follow and plans; or, with
/// check_log, checks that log. Every error is bad input and names it; a model that fits nowhere
/// is a Report whose plan has nothing recommended.
Result<Report> run(const Request& request);

}  // namespace dcukit::plan
