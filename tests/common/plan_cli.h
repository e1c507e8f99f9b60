#pragma once
// `dcukit plan ARGS` as the app runs it, for the plan tests (cli_run.h).
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "cli_run.h"

namespace testutil {

using PlanCliRun = CliRun;

/// Parses `args` (without "dcukit plan") with the real setup_plan and runs the command.
inline PlanCliRun plan_cli(std::vector<std::string> args) {
  return cli_run(dcukit::cli::setup_plan, "plan", std::move(args));
}

}  // namespace testutil
