#pragma once
// What a load Request must hold before it runs, whoever filled it (the CLI, a pipeline): the
// checks across fields, with messages in the flags' names, and the defaults the fields left out.
#include "load/run.h"
#include "util/result.h"

namespace dcukit::load {

/// Fills the defaults left out (200 requests a level unless a duration bounds it; every latency
/// metric; the 90, 95, 99 and 99.9 percentiles; the endpoint's leading "/") and checks the
/// combinations: a URL the client can reach, headers on one line, a workload that can be made,
/// one loop kind, SLOs the replies can show, metadata keys that are not result fields.
Status validate(Request& request);

}  // namespace dcukit::load
