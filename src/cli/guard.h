#pragma once
// `dcukit guard`: keep an inference service alive (guard/guard.h).
#include "cli/command.h"

namespace dcukit::cli {

/// Registers the guard subcommand; its run is put in runner.
void setup_guard(CLI::App& app, Runner& runner);

}  // namespace dcukit::cli
