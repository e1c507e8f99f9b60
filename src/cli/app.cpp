#include "cli/app.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "cli/bench.h"
#include "cli/command.h"
#include "cli/exporter.h"
#include "cli/guard.h"
#include "cli/load.h"
#include "cli/patrol.h"
#include "cli/plan.h"
#include "cli/port.h"
#include "cli/telemetry.h"

namespace dcukit::cli {
namespace {
std::string g_command_line;
}

const std::string& command_line() { return g_command_line; }

int run_app(int argc, char** argv) {
  g_command_line = "dcukit";
  for (int i = 1; i < argc; ++i) g_command_line += std::string(" ") + argv[i];
  CLI::App app{"dcukit: bring up, measure and run LLM inference on Hygon DCU, AMD ROCm and NVIDIA CUDA GPUs"};
  app.set_version_flag("--version", std::string("dcukit ") + DCUKIT_VERSION);
  app.require_subcommand(0, 1);
  Runner runner;
  setup_bench(app, runner);
  setup_plan(app, runner);
  setup_load(app, runner);
  setup_port(app, runner);
  setup_guard(app, runner);
  setup_telemetry(app, runner);
  setup_exporter(app, runner);
  setup_patrol(app, runner);
  auto* help = app.add_subcommand("help", "Show help for dcukit or one of its commands");
  std::string help_topic;
  help->add_option("command", help_topic, "The command to explain");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (app.exit(e) == 0) return 0;
    // patrol is a Nagios plugin: 2 would read as CRITICAL, so its bad input is UNKNOWN (3).
    return static_cast<int>(app.get_subcommand("patrol")->parsed() ? ExitCode::unknown : ExitCode::bad_input);
  }
  if (help->parsed() || !runner) {
    CLI::App* target = &app;
    if (!help_topic.empty()) {
      try {
        target = app.get_subcommand(help_topic);
      } catch (const CLI::OptionNotFound&) {
        fmt::print(stderr, "dcukit help: no command '{}'; the commands are bench, plan and load\n", help_topic);
        return static_cast<int>(ExitCode::bad_input);
      }
    }
    fmt::print("{}", target->get_formatter()->make_help(target, target->get_name(), CLI::AppFormatMode::Normal));
    return 0;
  }
  return static_cast<int>(runner());
}

} // namespace dcukit::cli
