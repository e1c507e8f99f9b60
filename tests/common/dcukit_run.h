#pragma once
// The real dcukit binary (DCUKIT_BINARY) run as a user runs it, with a deadline: its exit code
// and what it printed on each stream.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "util/process.h"

namespace testutil {

/// What one run of the binary returned and printed; code -1 when it could not be run.
struct BinaryRun {
  int code = -1;
  std::string out, err;
};

/// Runs `argv` as it is (the binary, or env(1) in front of it); a run that cannot start or
/// passes `deadline` fails the test.
inline BinaryRun run_argv(const std::vector<std::string>& argv, std::chrono::milliseconds deadline) {
  BinaryRun r;
  auto c = dcukit::util::run_capture(argv, deadline);
  if (!c) {
    ADD_FAILURE() << c.error().message;
    return r;
  }
  r.code = c->status.code;
  r.out = c->out;
  r.err = c->err;
  return r;
}

/// Runs `dcukit ARGS`; a run that cannot start or passes `deadline` fails the test.
inline BinaryRun run_dcukit(std::vector<std::string> args,
                            std::chrono::milliseconds deadline = std::chrono::seconds(60)) {
  args.insert(args.begin(), DCUKIT_BINARY);
  return run_argv(args, deadline);
}

/// As run_dcukit, with `env` set first ("COLUMNS=80"; "-u", "COLUMNS" to unset), as env(1) takes it.
inline BinaryRun run_dcukit_env(const std::vector<std::string>& env, std::vector<std::string> args,
                                std::chrono::milliseconds deadline = std::chrono::seconds(60)) {
  std::vector<std::string> all{"/usr/bin/env"};
  all.insert(all.end(), env.begin(), env.end());
  all.push_back(DCUKIT_BINARY);
  all.insert(all.end(), args.begin(), args.end());
  return run_argv(all, deadline);
}

}  // namespace testutil
