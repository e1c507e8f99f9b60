#pragma once
// `dcukit exporter`.
#include "cli/command.h"

namespace dcukit::cli {
/// Registers the exporter subcommand; when the user picks it, its run is put in runner.
void setup_exporter(CLI::App& app, Runner& runner);
}  // namespace dcukit::cli
