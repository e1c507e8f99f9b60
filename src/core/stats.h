#pragma once
// Summary statistics over samples (times, rates, latencies).
#include <cstddef>
#include <span>
#include <vector>

namespace dcukit::core {

/// The figures reported for a set of samples. Percentiles interpolate linearly between
/// order statistics (numpy's default), so they agree with what Python tools print.
struct Summary {
  std::size_t count = 0;
  double mean = 0, median = 0, stddev = 0, min = 0, max = 0;
  double p90 = 0, p95 = 0, p99 = 0, p999 = 0;
};

/// Percentile q in [0, 100] of samples (need not be sorted). Empty input gives 0.
double percentile(std::span<const double> samples, double q);

/// All of Summary's figures; stddev is the sample standard deviation (n - 1).
Summary summarize(std::span<const double> samples);

} // namespace dcukit::core
