#pragma once
// `dcukit doctor`.
#include "cli/command.h"

namespace dcukit::cli {

/// Registers the doctor subcommand; when the user picks it, its run is put in runner.
void setup_doctor(CLI::App& app, Runner& runner);

}  // namespace dcukit::cli
