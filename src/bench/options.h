#pragma once
// What a user chose for `dcukit bench`, already parsed and checked by the CLI.
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "device/types.h"

namespace dcukit::bench {

enum class Suite { quick, full };

/// Empty vectors mean "the suite's default for this backend".
struct Options {
  Suite suite = Suite::quick;
  std::vector<std::string> only;                 ///< benchmark keys to run; empty = all
  std::vector<int> gemm_sizes;
  std::vector<device::Precision> precisions;
  std::vector<std::uint64_t> memory_sizes;       ///< bytes per array
  std::vector<device::Precision> stream_types;   ///< fp32 and/or fp64
  std::vector<std::uint64_t> transfer_sizes;
  int iterations = 0;                            ///< 0 = the benchmark's default
  int warmup = 0;
  std::chrono::seconds timeout{600};             ///< per benchmark and device
  std::map<std::string, double> peak_overrides;  ///< --peak
};

} // namespace dcukit::bench
