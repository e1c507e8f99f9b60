#pragma once
// `dcukit telemetry`.
#include "cli/command.h"

namespace dcukit::cli {

/// Registers the telemetry subcommand; when the user picks it, its run is put in runner.
void setup_telemetry(CLI::App& app, Runner& runner);

}  // namespace dcukit::cli
