#pragma once
// What `dcukit bench` measured, as plain data: every renderer (text, Markdown, JSON) reads
// these structs and nothing else (TransferBench's TestResults, nvbandwidth's Output).
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/run_info.h"
#include "core/stats.h"
#include "device/types.h"

namespace dcukit::bench {

enum class Outcome { ok, skipped, failed };

/// "ok", "skipped", "failed".
const char* to_string(Outcome o);
std::optional<Outcome> parse_outcome(std::string_view text);

/// What a measurement's rate counts.
enum class RateUnit { none, flop_per_s, op_per_s, byte_per_s, microseconds };

/// The one table between RateUnit and its name in the JSON: "", "FLOP/s", "OP/s", "B/s", "us".
std::string_view to_string(RateUnit u);
std::optional<RateUnit> parse_rate_unit(std::string_view text);

/// A parameter's value as the benchmark set it: a count or size, a number, or a name. The
/// JSON writes numbers as numbers; tables format them where the benchmark says how.
using ParamValue = std::variant<std::int64_t, double, std::string>;

/// One named parameter of a case: precision, n, array_bytes, direction, numa_node...
struct Param {
  std::string key;
  ParamValue value;

  template <std::integral T>
  Param(std::string k, T v) : key(std::move(k)), value(static_cast<std::int64_t>(v)) {}
  Param(std::string k, double v) : key(std::move(k)), value(v) {}
  Param(std::string k, std::string v) : key(std::move(k)), value(std::move(v)) {}
  Param(std::string k, std::string_view v) : key(std::move(k)), value(std::string(v)) {}
  Param(std::string k, const char* v) : key(std::move(k)), value(std::string(v)) {}
};

/// One measured case: a row of its benchmark's table.
struct Measurement {
  std::string benchmark;      ///< the key of the benchmark that made it: "gemm", "memory", ...
  std::string name;           ///< "fp16 N=8192", "triad fp64 1 GiB"
  std::vector<Param> params;  ///< in the order the benchmark set them
  Outcome outcome = Outcome::ok;
  std::string reason;              ///< why skipped or failed
  std::vector<double> samples_ms;  ///< every timed run
  core::Summary time_ms;           ///< over samples_ms
  double work = 0;                 ///< FLOPs or bytes in one run
  RateUnit rate_unit = RateUnit::none;
  double rate = 0;             ///< work / median time; latency: median us
  std::string peak_key;        ///< which published peak it is compared with
  std::optional<double> peak;  ///< that peak, when known
  std::string peak_note;       ///< why there is no percentage, or its caveat
  std::string check;           ///< what the verification found

  /// rate as a percentage of peak, when there is a peak.
  std::optional<double> percent_of_peak() const;
  /// The parameter `key`, or null.
  const ParamValue* param(std::string_view key) const;
  /// The parameter `key` when it is a name, else "".
  std::string text(std::string_view key) const;
  /// The parameter `key` when it is a number (integer or not), else nullopt.
  std::optional<double> number(std::string_view key) const;
  /// The parameter `key` when it is an integer, else nullopt.
  std::optional<std::int64_t> integer(std::string_view key) const;
};

/// The device one set of measurements ran on, with what sysfs and the peak data add.
struct DeviceReport {
  device::DeviceInfo info;
  std::uint64_t free_memory = 0;
  int numa_node = -1;
  int pcie_gen = 0, pcie_width = 0;
  std::string pci_id;
  std::string spec_key;  ///< matched entry of the peak data, "" when unknown
  std::string spec_name;
  std::string spec_source;
  std::string peak_note;  ///< why no percentages, when the device is unknown
  std::vector<Measurement> results;
};

/// One run of `dcukit bench`.
struct Report {
  core::RunInfo run_info;  ///< tool, version, command, time, host, results-changing environment
  std::string suite;       ///< "quick" or "full"
  device::BackendKind backend = device::BackendKind::cpu;
  std::vector<std::pair<std::string, std::string>> versions;
  std::vector<std::string> notes;   ///< e.g. "no GPU found: ran the CPU backend"
  std::vector<std::string> errors;  ///< failures outside any one measurement
  std::vector<DeviceReport> devices;
  /// SIGINT or SIGTERM stopped the run: what was measured before is kept.
  bool interrupted = false;
  /// A measuring thread is still stuck in the device runtime: the process must end without
  /// running destructors (std::_Exit) once the report is written.
  bool abandoned = false;

  /// True when nothing failed and the run was not cut short.
  bool ok() const;
  /// "gemm fp32 N=64 on device 0: wrong result: ..." for each failed case, then each error.
  std::vector<std::string> failures() const;
};

}  // namespace dcukit::bench
