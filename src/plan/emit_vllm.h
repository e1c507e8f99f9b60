#pragma once
// The launch script for a plan's recommended option, in seed 004's form: the toolkit's
// environment, the visible devices, numactl binding to the cards' NUMA node and `vllm serve`
// with each flag commented with why it has its value.
#include <string>

#include "util/result.h"
#include "plan/planner.h"

namespace dcukit::plan {

/// What the script needs beyond the plan.
struct EmitOptions {
  std::string toolkit_env;        ///< script to source; empty: /opt/dtk/env.sh on DCU, nothing elsewhere
  std::string served_model_name;  ///< empty: the model directory's name
  std::string host = "0.0.0.0";
  int port = 8000;
};

/// A bash script that starts vLLM with the recommended option. A plan with nothing recommended
/// is an error carrying the plan's reason and the nearest inputs that work.
Result<std::string> emit_vllm(const Plan& plan, const EmitOptions& options);

} // namespace dcukit::plan
