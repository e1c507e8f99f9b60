#include "cli/app.h"

#include <fmt/core.h>

#include <CLI/CLI.hpp>

#include "cli/output.h"
#include "core/build_info.h"
#include "cli/command.h"
#include "cli/commands.h"
#include "cli/help.h"

namespace dcukit::cli {
namespace {
std::string g_command_line;

/// The (sub)command the parser had reached: "bench", "port audit"; empty before any.
std::string command_reached(CLI::App& app) {
  std::string name;
  CLI::App* at = &app;
  for (;;) {
    const auto subs = at->get_subcommands();
    if (subs.empty()) return name;
    at = subs.front();
    name += (name.empty() ? "" : " ") + at->get_name();
  }
}

/// The commands dcukit has, "bench, plan, load, ...", for a message.
std::string command_names(CLI::App& app) {
  std::string out;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    if (sub->get_name() != "help") out += (out.empty() ? "" : ", ") + sub->get_name();
  return out;
}

/// A parse error as every other error of dcukit: "dcukit <command>: what is wrong", then where
/// the options are listed; exit 2. Help and --version (exit code 0) print as CLI11 does.
int parse_failed(CLI::App& app, const CLI::ParseError& e) {
  if (e.get_exit_code() == 0) return app.exit(e);
  const std::string command = command_reached(app);
  // patrol is a Nagios plugin: 2 would read as CRITICAL, so its bad input is UNKNOWN (3).
  const auto code = command == "patrol" ? ExitCode::unknown : ExitCode::bad_input;
  if (command.empty())
    fmt::print(stderr, "dcukit: {}\nRun 'dcukit --help' for the commands ({}).\n", e.what(), command_names(app));
  else
    fmt::print(stderr, "dcukit {}: {}\nRun 'dcukit {} --help' for its options.\n", command, e.what(), command);
  return static_cast<int>(code);
}

}  // namespace

const std::string& command_line() {
  return g_command_line;
}

int run_app(int argc, char** argv) {
  g_command_line = "dcukit";
  for (int i = 1; i < argc; ++i) g_command_line += std::string(" ") + argv[i];
  CLI::App app{"dcukit: bring up, measure and run LLM inference on Hygon DCU, AMD ROCm and NVIDIA CUDA GPUs",
               "dcukit"};
  app.formatter(std::make_shared<HelpFormatter>());  // before the commands: each takes a copy
  app.set_version_flag("--version", [] { return core::version_text(); });
  app.require_subcommand(0, 1);
  Runner runner;
  for (const Setup setup : kCommands) setup(app, runner);
  auto* help = app.add_subcommand("help", "Show help for dcukit or one of its commands");
  std::string help_topic;
  help->add_option("command", help_topic, "The command to explain");
  try {
    parse_command_line(app, argc, argv);  // --json/--csv [FILE]: cli/output.h
  } catch (const CLI::ParseError& e) {
    return parse_failed(app, e);
  }
  if (help->parsed() || !runner) {
    CLI::App* target = &app;
    if (!help_topic.empty()) {
      try {
        target = app.get_subcommand(help_topic);
      } catch (const CLI::OptionNotFound&) {
        fmt::print(stderr, "dcukit help: no command '{}'; the commands are {}\n", help_topic, command_names(app));
        return static_cast<int>(ExitCode::bad_input);
      }
    }
    const std::string name = target == &app ? "dcukit" : "dcukit " + target->get_name();
    fmt::print("{}", target->get_formatter()->make_help(target, name, CLI::AppFormatMode::Normal));
    return 0;
  }
  return static_cast<int>(runner());
}

}  // namespace dcukit::cli
