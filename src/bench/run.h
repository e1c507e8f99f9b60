#pragma once
// bench's one entry point: run(Request) -> Report. It measures on a thread of its own while the
// calling thread keeps watch: SIGINT and SIGTERM (util::StopToken) stop the run at the next case
// or timed run, and a benchmark stuck in the device runtime past its deadline plus a grace is
// abandoned. Either way the report holds everything measured before, for the caller to write.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/options.h"
#include "bench/report.h"
#include "device/registry.h"

namespace dcukit::bench {

/// What to run, where; empty fields mean the defaults.
struct Request {
  /// The backends; null: run() loads them. Shared with the measuring thread, which may outlive
  /// run() when it is abandoned.
  std::shared_ptr<device::Registry> registry;
  std::optional<device::BackendKind> backend;  ///< empty: the first GPU backend with a device, else cpu
  std::vector<int> devices;                    ///< empty: every device of the backend
  Options options;
  std::string command;  ///< the command line as typed, for run_info
  /// A line of progress for the terminal; called from the measuring thread. May be empty.
  std::function<void(const std::string&)> progress;
  /// How long past a benchmark's deadline (--timeout) a call may hang before it is abandoned.
  std::chrono::milliseconds hang_grace{30000};
  /// How long after SIGINT/SIGTERM the case running may take to stop before it is abandoned.
  std::chrono::milliseconds stop_grace{5000};
};

/// Checks the request against what the registry found: the backend exists and loaded, the
/// devices exist and are named once, the benchmark keys are known. Errors name the input and
/// the choices.
Status validate(device::Registry& registry, const Request& request);

/// Runs the chosen benchmarks on the chosen devices of one backend and returns what was
/// measured; a failing benchmark is recorded and the run goes on. An Error means the request
/// was wrong and nothing ran. Installs util::StopToken's SIGINT/SIGTERM handlers. When the
/// report is `abandoned`, a measuring thread is still inside the device runtime: write the
/// report and end the process with std::_Exit.
Result<Report> run(const Request& request);

}  // namespace dcukit::bench
