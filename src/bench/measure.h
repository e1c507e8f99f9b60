#pragma once
// The measuring half of bench::run (run.cpp keeps watch): what the measuring thread and the
// watching thread share, and the loop over devices and benchmarks. Internal to bench.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "bench/types.h"
#include "bench/run.h"
#include "util/signals.h"

namespace dcukit::bench {

/// The report being filled and what the watcher needs to judge the measuring thread.
struct Shared {
  std::mutex mutex;  ///< guards report and current
  Report report;
  std::string current;                       ///< "gemm on cuda device 0": what is running
  std::atomic<std::int64_t> deadline_ns{0};  ///< steady-clock deadline of the benchmark running; 0 = none
};

/// Runs every chosen benchmark on every chosen device into shared.report, ending early when
/// `stop` is requested. The request was validated.
void measure(device::Registry& registry, const Request& request, Shared& shared, const util::StopToken& stop);

}  // namespace dcukit::bench
