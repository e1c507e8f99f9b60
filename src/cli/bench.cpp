// Placeholder until the bench capability lands: it says so and fails.
#include "cli/bench.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

namespace dcukit::cli {

void setup_bench(CLI::App& app, Runner& runner) {
  auto* sub = app.add_subcommand("bench", "(not built yet)");
  sub->callback([&runner] {
    runner = [] {
      fmt::print(stderr, "dcukit bench is not built yet\n");
      return ExitCode::failed;
    };
  });
}

} // namespace dcukit::cli
