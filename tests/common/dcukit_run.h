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

/// Runs `dcukit ARGS`; a run that cannot start or passes `deadline` fails the test.
inline BinaryRun run_dcukit(std::vector<std::string> args,
                            std::chrono::milliseconds deadline = std::chrono::seconds(60)) {
  args.insert(args.begin(), DCUKIT_BINARY);
  BinaryRun r;
  auto c = dcukit::util::run_capture(args, deadline);
  if (!c) {
    ADD_FAILURE() << c.error().message;
    return r;
  }
  r.code = c->status.code;
  r.out = c->out;
  r.err = c->err;
  return r;
}

/// As run_dcukit, with `env` set first ("COLUMNS=80"; "-u", "COLUMNS" to unset), as env(1) takes it.
inline BinaryRun run_dcukit_env(const std::vector<std::string>& env, std::vector<std::string> args,
                                std::chrono::milliseconds deadline = std::chrono::seconds(60)) {
  std::vector<std::string> all{"/usr/bin/env"};
  all.insert(all.end(), env.begin(), env.end());
  all.push_back(DCUKIT_BINARY);
  all.insert(all.end(), args.begin(), args.end());
  BinaryRun r;
  auto c = dcukit::util::run_capture(all, deadline);
  if (!c) {
    ADD_FAILURE() << c.error().message;
    return r;
  }
  r.code = c->status.code;
  r.out = c->out;
  r.err = c->err;
  return r;
}

}  // namespace testutil
