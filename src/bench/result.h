#pragma once
// What `dcukit bench` measured, as plain data: every renderer (text, Markdown, JSON) reads
// these structs and nothing else (TransferBench's TestResults, nvbandwidth's Output).
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/stats.h"
#include "device/types.h"

namespace dcukit::bench {

enum class Outcome { ok, skipped, failed };

/// "ok", "skipped", "failed".
const char* to_string(Outcome o);

/// One measured case: a row of a table.
struct Measurement {
  std::string benchmark;                         ///< "gemm", "memory", "transfer", "latency"
  std::string name;                              ///< "fp16 N=8192", "triad fp64 1 GiB"
  std::vector<std::pair<std::string, std::string>> params;  ///< precision, n, bytes, direction, node...
  Outcome outcome = Outcome::ok;
  std::string reason;                            ///< why skipped or failed
  std::vector<double> samples_ms;                ///< every timed run
  core::Summary time_ms;                         ///< over samples_ms
  double work = 0;                               ///< FLOPs or bytes in one run
  std::string rate_unit;                         ///< "FLOP/s", "OP/s", "B/s", or "us" for latency
  double rate = 0;                               ///< work / median time; latency: median us
  std::string peak_key;                          ///< which published peak it is compared with
  std::optional<double> peak;                    ///< that peak, when known
  std::string peak_note;                         ///< why there is no percentage, or its caveat
  std::string check;                             ///< what the verification found

  /// rate as a percentage of peak, when there is a peak.
  std::optional<double> percent_of_peak() const;
  /// The value of params[key], or "".
  std::string param(const std::string& key) const;
};

/// The device one set of measurements ran on, with what sysfs and the peak data add.
struct DeviceReport {
  device::DeviceInfo info;
  std::uint64_t free_memory = 0;
  int numa_node = -1;
  int pcie_gen = 0, pcie_width = 0;
  std::string pci_id;
  std::string spec_key;        ///< matched entry of the peak data, "" when unknown
  std::string spec_name;
  std::string spec_source;
  std::string peak_note;       ///< why no percentages, when the device is unknown
  std::vector<Measurement> results;
};

/// Facts about the host, recorded with every figure.
struct HostInfo {
  std::string hostname, os, kernel, cpu;
  int cpus = 0;
  int numa_nodes = 0;
  std::uint64_t memory_bytes = 0;
};

/// One run of `dcukit bench`.
struct Report {
  std::string dcukit_version;
  std::string command;          ///< the command line as typed
  std::string started_at;       ///< ISO 8601 UTC
  std::string suite;
  HostInfo host;
  std::string backend;
  std::vector<std::pair<std::string, std::string>> versions;
  std::vector<std::string> notes;   ///< e.g. "no GPU found: ran the CPU backend"
  std::vector<std::string> errors;  ///< failures outside any one measurement
  std::vector<DeviceReport> devices;

  /// True when nothing failed.
  bool ok() const;
};

} // namespace dcukit::bench
