#pragma once
// `dcukit plan`.
#include "cli/command.h"

namespace dcukit::cli {

/// Registers the plan subcommand; when the user picks it, its run is put in runner.
void setup_plan(CLI::App& app, Runner& runner);

} // namespace dcukit::cli
