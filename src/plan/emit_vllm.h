#pragma once
// The launch script for a plan's recommended option, line for line in seed 004's production
// template (the toolkit's environment, numactl binding, `vllm serve` with one flag a line) where
// the plan agrees with it, and saying why where it differs. Every value from the user or the
// model directory is shell-quoted and every comment is one line, so nothing in a name can run.
#include <string>
#include <string_view>

#include "plan/planner.h"
#include "util/result.h"

namespace dcukit::plan {

/// What the script needs beyond the plan.
struct EmitOptions {
  std::string toolkit_env;        ///< script to source; empty: /opt/dtk/env.sh on DCU, nothing elsewhere
  std::string served_model_name;  ///< empty: the model directory's name
  std::string host = "0.0.0.0";
  int port = 8000;  ///< 1 to 65535
};

/// `text` as one bash word that expands to exactly `text`: bare where it is only safe characters,
/// else single-quoted, or $'...' where it holds control characters (a newline stays on the line)
/// or '$' and '`' (which shellcheck would otherwise take for a forgotten expansion).
std::string shell_word(std::string_view text);

/// `text` made safe for a comment line: control characters become spaces.
std::string comment_text(std::string_view text);

/// A bash script that starts vLLM with the recommended option. A plan with nothing recommended
/// is an error carrying the plan's reason and the nearest inputs that work; so is a port outside
/// 1-65535 or an empty host.
Result<std::string> emit_vllm(const Plan& plan, const EmitOptions& options);

}  // namespace dcukit::plan
