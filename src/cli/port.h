#pragma once
// `dcukit port`: `port audit` and `port translate`.
#include "cli/command.h"

namespace dcukit::cli {

/// Registers the port subcommand and its two subcommands; the chosen run is put in runner.
void setup_port(CLI::App& app, Runner& runner);

}  // namespace dcukit::cli
