#pragma once
// `dcukit patrol`.
#include "cli/command.h"

namespace dcukit::cli {
/// Registers the patrol subcommand; when the user picks it, its run is put in runner.
void setup_patrol(CLI::App& app, Runner& runner);
}  // namespace dcukit::cli
