// Placeholder until the plan capability lands: it says so and fails.
#include "cli/plan.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

namespace dcukit::cli {

void setup_plan(CLI::App& app, Runner& runner) {
  auto* sub = app.add_subcommand("plan", "(not built yet)");
  sub->callback([&runner] {
    runner = [] {
      fmt::print(stderr, "dcukit plan is not built yet\n");
      return ExitCode::failed;
    };
  });
}

} // namespace dcukit::cli
