#pragma once
// `dcukit bench`'s Request (what a user chose, already parsed and range-checked by the CLI) and
// Report (what was measured, as plain data: every renderer, text, Markdown and JSON, reads these
// structs and nothing else, as TransferBench's TestResults and nvbandwidth's Output).
#include <chrono>
#include <concepts>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/expected.h"
#include "core/run_info.h"
#include "core/stats.h"
#include "device/comm/comm.h"
#include "device/registry.h"
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
  std::uint64_t p2p_bytes = 0;                  ///< per peer copy; 0 = 256 MiB (16 MiB on the CPU)
  std::vector<std::uint64_t> collective_sizes;  ///< bytes, as nccl-tests counts them
  std::vector<std::string> collectives;         ///< names (all_reduce, ...); empty = all
  double min_busbw = 0;                         ///< B/s; an average bus bandwidth under it fails the run
  /// --topology: the link between devices i and j (i < j) as a captured topology output shows it
  /// ("NV18", "XGMI, 1 hop, weight 15"), and where it was read.
  std::map<std::pair<int, int>, std::string> links;
  std::string links_source;
  std::chrono::milliseconds timeout{600000};     ///< per benchmark and device
  std::map<std::string, double> peak_overrides;  ///< --peak
};

/// What to run, where; empty fields mean the defaults.
struct Request {
  /// The backends; null: run() loads them. Shared with the measuring thread, which may outlive
  /// run() when it is abandoned.
  std::shared_ptr<device::Registry> registry;
  std::optional<device::BackendKind> backend;  ///< empty: the first GPU backend with a device, else cpu
  std::vector<int> devices;                    ///< empty: every device of the backend
  Options options;
  std::string command;  ///< the command line as typed, for run_info
  /// Under mpirun or srun: this process's rank of the job, one device a rank; the collectives
  /// run across the ranks through it. Null when run alone.
  std::shared_ptr<device::comm::Communicator> world;
  /// A line of progress for the terminal; called from the measuring thread. May be empty.
  std::function<void(const std::string&)> progress;
  /// How long past a benchmark's deadline (--timeout) a call may hang before it is abandoned.
  std::chrono::milliseconds hang_grace{30000};
  /// How long after SIGINT/SIGTERM the case running may take to stop before it is abandoned.
  std::chrono::milliseconds stop_grace{5000};
};

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
  /// Where the rate sits against what a healthy card of the SKU measures (data/expected.json):
  /// set by place_all (bench/placement.h) when the run ends and when a file is read back.
  core::Placed placed;

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
  int rank = -1;     ///< its rank under MPI, -1 when run alone
  std::string host;  ///< the host of that rank (set with rank)
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
  /// Measurements over several devices at once (p2p, collectives), in the order they ran.
  std::vector<Measurement> group;
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
