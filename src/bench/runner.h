#pragma once
// Runs the chosen benchmarks on the chosen devices of one backend, filling a Report as it
// goes, so that whatever was measured before a failure or a hang is still there to write.
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "bench/options.h"
#include "bench/result.h"
#include "device/registry.h"

namespace dcukit::bench {

/// What the runner shares with a watchdog on another thread.
struct RunState {
  std::mutex mutex;      ///< guards report
  Report report;
  std::atomic<std::int64_t> deadline_ns{0};  ///< steady-clock deadline of the benchmark running; 0 = none
  std::string current;   ///< "gemm on device 0" (guarded by mutex)
};

/// Which backend and devices to run on; empty means the defaults.
struct RunRequest {
  std::string backend;       ///< "cpu", "cuda", "hip" or "" (first GPU backend with a device, else cpu)
  std::vector<int> devices;  ///< empty = every device of the backend
  Options options;
  std::function<void(const std::string&)> progress;
};

/// Checks the request against what the registry found: the backend exists and loaded, the
/// devices exist, the benchmark keys are known. Errors name the input and the choices.
Status validate(device::Registry& registry, const RunRequest& request);

/// Runs everything into state.report. A failing benchmark is recorded and the run goes on.
void run(device::Registry& registry, const RunRequest& request, RunState& state);

} // namespace dcukit::bench
