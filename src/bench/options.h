#pragma once
// What a user chose for `dcukit bench`, already parsed and range-checked by the CLI.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "device/types.h"
#include "util/names.h"

namespace dcukit::bench {

/// quick: about two minutes on a GPU; full: more sizes and types.
enum class Suite { quick, full };

/// The one table between Suite and its name.
inline constexpr util::Name<Suite> kSuiteNames[] = {{Suite::quick, "quick"}, {Suite::full, "full"}};

/// "quick", "full".
constexpr std::string_view to_string(Suite s) {
  return util::name_of(kSuiteNames, s);
}

/// The suite named `name`, or nullopt.
constexpr std::optional<Suite> parse_suite(std::string_view name) {
  return util::value_of(kSuiteNames, name);
}

/// Empty vectors mean "the suite's default for this backend".
struct Options {
  Suite suite = Suite::quick;
  std::vector<std::string> only;  ///< benchmark keys to run; empty = all
  std::vector<int> gemm_sizes;
  std::vector<device::Precision> precisions;
  std::vector<std::uint64_t> memory_sizes;      ///< bytes per array
  std::vector<device::Precision> stream_types;  ///< fp32 and/or fp64
  std::vector<std::uint64_t> transfer_sizes;    ///< bytes per host/device copy
  int iterations = 0;                           ///< 0 = the benchmark's default
  int warmup = 0;
  std::chrono::milliseconds timeout{600000};     ///< per benchmark and device
  std::map<std::string, double> peak_overrides;  ///< --peak
};

}  // namespace dcukit::bench
