#pragma once
// `dcukit COMMAND ARGS` as the app runs it, in-process, for the CLI tests: a flag CLI11 refuses
// is bad input (as in app/main.cpp), otherwise the runner's exit code with what it printed.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/output.h"

namespace testutil {

/// What one command run returned and printed.
struct CliRun {
  dcukit::cli::ExitCode code = dcukit::cli::ExitCode::ok;
  std::string out, err;
};

/// A command's setup function (cli::setup_plan, cli::setup_doctor, ...).
using CliSetup = void (*)(CLI::App&, dcukit::cli::Runner&);

/// Parses `args` (without "dcukit COMMAND") with the real `setup` and runs the command.
inline CliRun cli_run(CliSetup setup, const char* command, std::vector<std::string> args) {
  args.insert(args.begin(), {"dcukit", command});
  CLI::App app;
  dcukit::cli::Runner runner;
  setup(app, runner);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  CliRun r;
  try {
    dcukit::cli::parse_command_line(app, static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    r.code = dcukit::cli::ExitCode::bad_input;
    r.err = e.what();
    return r;
  }
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  r.code = runner();
  std::fflush(stdout);
  std::fflush(stderr);
  r.out = testing::internal::GetCapturedStdout();
  r.err = testing::internal::GetCapturedStderr();
  return r;
}

}  // namespace testutil
