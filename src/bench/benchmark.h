#pragma once
// A benchmark is a registered unit with a key, a description, applies(), run() and its table
// (nvbandwidth's Testcase, TransferBench's presets). One that does not apply is reported as
// skipped with the reason, never silently absent. Adding a benchmark touches its own file and
// the list in benchmark.cpp, nothing else.
#include <memory>
#include <string>
#include <vector>

#include "bench/context.h"
#include "bench/table_spec.h"

namespace dcukit::bench {

class Benchmark {
public:
  virtual ~Benchmark() = default;
  /// "gemm", "memory", "transfer", "latency": what --only takes and Measurement::benchmark holds.
  virtual std::string key() const = 0;
  virtual std::string description() const = 0;
  /// Empty when it can run on this device, else the reason it cannot.
  virtual std::string applies(const Context&) const { return {}; }
  /// Runs every case, appending one Measurement per case (failed cases included), and
  /// verifies each case's output before its time counts. Ends early on ctx.stopped().
  virtual void run(Context& ctx, std::vector<Measurement>& out) = 0;
  /// How its measurements are shown: columns, units, notes.
  virtual TableSpec table() const = 0;
};

/// Every benchmark, in the order they run.
std::vector<std::unique_ptr<Benchmark>> all_benchmarks();

/// A Measurement for a case about to run.
Measurement new_case(const std::string& benchmark, const std::string& name);

/// A Measurement for a case that could not run, with the reason.
Measurement failed_case(const std::string& benchmark, const std::string& name, const std::string& reason,
                        Outcome outcome = Outcome::failed);

/// m marked failed with the reason; the samples taken so far stay.
Measurement mark_failed(Measurement m, const std::string& why);

}  // namespace dcukit::bench
