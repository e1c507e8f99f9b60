#pragma once
// `dcukit plan ARGS` as the app runs it, for the plan tests: a flag CLI11 refuses is bad input
// (as in app/main.cpp), otherwise the runner's exit code with what it printed.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/plan.h"

namespace testutil {

/// What one `dcukit plan` run returned and printed.
struct PlanCliRun {
  dcukit::cli::ExitCode code = dcukit::cli::ExitCode::ok;
  std::string out, err;
};

/// Parses `args` (without "dcukit plan") with the real setup_plan and runs the command.
inline PlanCliRun plan_cli(std::vector<std::string> args) {
  args.insert(args.begin(), {"dcukit", "plan"});
  CLI::App app;
  dcukit::cli::Runner runner;
  dcukit::cli::setup_plan(app, runner);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  PlanCliRun r;
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    r.code = dcukit::cli::ExitCode::bad_input;
    r.err = e.what();
    return r;
  }
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  r.code = runner();
  std::fflush(stdout);
  r.out = testing::internal::GetCapturedStdout();
  r.err = testing::internal::GetCapturedStderr();
  return r;
}

}  // namespace testutil
