#pragma once
// One setting of `dcukit tune` (flows/tune.h): the engine started under guard with the setting's
// flags, a bracketing search of the request rate with `dcukit load`, device memory watched the
// whole time; and the start-only probe of vLLM's --gpu-memory-utilization.
#include <chrono>
#include <string>
#include <vector>

#include "flows/tune.h"

namespace dcukit::flows {

using TuneClock = std::chrono::steady_clock;

/// Serves `command` under guard in `dir` and searches its rate; stops the engine completely.
TuneRow run_setting(const TuneRequest& r, const std::vector<std::string>& command, const std::string& dir,
                    TuneClock::time_point start);

/// Starts `command` plus --gpu-memory-utilization U for U from r.utilization_from down by 0.05
/// (not below 0.5) until one starts, each in OUT/utilization-U; stops at a failure that is not
/// out of memory. The tries, the last one started if any.
std::vector<UtilizationTry> probe_utilization(const TuneRequest& r, const std::vector<std::string>& command);

/// Whether an engine's log says it ran out of memory (vLLM, PyTorch, HIP, llama.cpp).
bool says_out_of_memory(const std::string& log);

}  // namespace dcukit::flows
