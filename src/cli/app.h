#pragma once
// The command line: builds the CLI11 app with every subcommand and runs the chosen one.

namespace dcukit::cli {

/// Parses argv, runs the chosen subcommand, and returns the process exit code.
int run_app(int argc, char** argv);

} // namespace dcukit::cli
