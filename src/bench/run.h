#pragma once
// bench's one entry point: run(Request) -> Report. It measures on a thread of its own while the
// calling thread keeps watch: SIGINT and SIGTERM (util::StopToken) stop the run at the next case
// or timed run, and a benchmark stuck in the device runtime past its deadline plus a grace is
// abandoned. Either way the report holds everything measured before, for the caller to write.
#include "bench/types.h"
#include "device/registry.h"

namespace dcukit::bench {

/// Checks the request against what the registry found: the backend exists and loaded, the
/// devices exist and are named once, the benchmark keys are known. Errors name the input and
/// the choices.
Status validate(device::Registry& registry, const Request& request);

/// Runs the chosen benchmarks on the chosen devices of one backend and returns what was
/// measured; a failing benchmark is recorded and the run goes on. An Error means the request
/// was wrong and nothing ran. Installs util::StopToken's SIGINT/SIGTERM handlers. When the
/// report is `abandoned`, a measuring thread is still inside the device runtime: write the
/// report and end the process with std::_Exit.
Result<Report> run(const Request& request);

}  // namespace dcukit::bench

namespace dcukit::bench {

/// Under MPI: every rank's report, in rank order with its host, made one as rank 0 writes it:
/// each rank's devices (tagged with rank and host), rank 0's group results (the same on every
/// rank), every rank's errors and interruptions. A rank whose per-device rate is under 0.8 of the
/// median rank's for the same case (three ranks or more) is named in a note.
Report merge_ranks(std::vector<Report> ranks, const std::vector<std::string>& hosts);

}  // namespace dcukit::bench
