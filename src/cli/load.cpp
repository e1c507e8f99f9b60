// Placeholder until the load capability lands: it says so and fails.
#include "cli/load.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

namespace dcukit::cli {

void setup_load(CLI::App& app, Runner& runner) {
  auto* sub = app.add_subcommand("load", "(not built yet)");
  sub->callback([&runner] {
    runner = [] {
      fmt::print(stderr, "dcukit load is not built yet\n");
      return ExitCode::failed;
    };
  });
}

} // namespace dcukit::cli
