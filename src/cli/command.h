#pragma once
// What every subcommand shares: how it hands its run to the top level, and the exit codes.
#include <functional>
#include <string>

namespace CLI {
class App;
}

namespace dcukit::cli {

/// Exit codes: the only place where dcukit decides them.
enum class ExitCode : int {
  ok = 0,
  failed = 1,     ///< ran, but something failed (a benchmark, a check, an SLO)
  bad_input = 2,  ///< the input was wrong; nothing was run
  unknown = 3,    ///< patrol (a Nagios plugin) and slurm-check (as NHC): nothing could be judged
  interrupted = 130,
};

/// Set by a subcommand's parse callback; the top level calls it after parsing succeeds.
using Runner = std::function<ExitCode()>;

/// The command line as typed (argv joined), recorded in reports.
const std::string& command_line();

} // namespace dcukit::cli
