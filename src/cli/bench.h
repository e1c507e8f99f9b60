#pragma once
// `dcukit bench`.
#include "cli/command.h"

namespace dcukit::cli {

/// Registers the bench subcommand; when the user picks it, its run is put in runner.
void setup_bench(CLI::App& app, Runner& runner);

} // namespace dcukit::cli
