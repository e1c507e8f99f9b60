#pragma once
// `dcukit load`.
#include "cli/command.h"

namespace dcukit::cli {

/// Registers the load subcommand; when the user picks it, its run is put in runner.
void setup_load(CLI::App& app, Runner& runner);

} // namespace dcukit::cli
