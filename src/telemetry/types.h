#pragma once
// What `dcukit telemetry` knows about the devices of a host, as plain data: one DeviceState a
// device, one Snapshot a reading. Every figure is optional (a figure no source gave is null in
// the JSON), and each device records which source gave each figure. The live sources (NVML,
// rocm_smi, sysfs, the vendor tools) and the --from parsers all produce these; the renderers,
// the merge and `dcukit doctor` read them.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/vendor.h"
#include "util/root.h"

namespace dcukit::util {
class StopToken;
}

namespace dcukit::telemetry {

/// Who made the device: core's Vendor, its names and parser.
using Vendor = core::Vendor;
using core::parse_vendor;
using core::to_string;

/// Who gave a figure: a library, sysfs, a vendor tool, or another tool whose output was read.
enum class SourceKind {
  nvml,
  rocm_smi_lib,
  sysfs,
  hy_smi,
  rocm_smi,
  amd_smi,
  nvidia_smi,
  rocminfo,
  dcgmi,
  rvs,
  lspci,
  gpustack_runtime,
  file,
};
/// "nvml", "rocm_smi_lib", "sysfs", "hy-smi", "rocm-smi", "amd-smi", "nvidia-smi", "rocminfo", ...
std::string_view to_string(SourceKind s);
std::optional<SourceKind> parse_source_kind(std::string_view s);

/// The figures of a device, by their JSON names; the order is the JSON contract's.
enum class Field {
  name,
  bus_id,
  numa_node,
  temperature_c,
  power_w,
  power_cap_w,
  busy_percent,
  memory_total_bytes,
  memory_used_bytes,
  memory_used_percent,
  sclk_mhz,
  mclk_mhz,
  pcie_gen,
  pcie_width,
  pcie_gen_max,
  pcie_width_max,
  sclk_max_mhz,
  mclk_max_mhz,
  memory_available_bytes,
  ecc_corrected,
  ecc_uncorrected,
  vendor,
  arch,
  device_id,
  compute_units,
  uuid,
  serial,
  driver_version,
  cpu_affinity,
  throttle_reasons,
  pcie_replays,
  retired_pages,
  retirement_pending,
  retirement_failed,
  processes,
};
/// The JSON key: "temperature_c", "pcie_gen_max", ...
std::string_view to_string(Field f);
std::optional<Field> parse_field(std::string_view s);

/// A process that holds a device.
struct ProcessUse {
  std::int64_t pid = 0;
  std::optional<std::string> name;
  std::optional<std::uint64_t> memory_bytes;  ///< device memory it holds, when the source says
};

/// One device. Each figure is nullopt when no source gave it.
struct DeviceState {
  int index = 0;  ///< the position the source lists it at (nvidia-smi's, hy-smi's index)
  std::optional<std::string> name;
  std::optional<std::string> bus_id;  ///< PCI address, "0000:05:00.0" (domain of 4 hex digits, lower case)
  std::optional<std::int64_t> numa_node;
  std::optional<double> temperature_c;  ///< the sensor the tool's table shows: edge, else junction
  std::optional<double> power_w;
  std::optional<double> power_cap_w;
  std::optional<double> busy_percent;
  std::optional<std::uint64_t> memory_total_bytes;
  std::optional<std::uint64_t> memory_used_bytes;
  std::optional<double> memory_used_percent;
  std::optional<std::int64_t> sclk_mhz, mclk_mhz;
  std::optional<std::int64_t> pcie_gen, pcie_width, pcie_gen_max, pcie_width_max;
  std::optional<std::int64_t> sclk_max_mhz, mclk_max_mhz;
  /// What a new allocation can get as the tool reports it (nvidia-smi's Free, hy-smi's Available).
  std::optional<std::uint64_t> memory_available_bytes;
  std::optional<std::int64_t> ecc_corrected, ecc_uncorrected;  ///< volatile (since the driver loaded)
  std::optional<Vendor> vendor;
  std::optional<std::string> arch;       ///< ISA: "gfx928", "gfx942", "sm_90"
  std::optional<std::string> device_id;  ///< PCI device id, "0x6210"
  std::optional<std::int64_t> compute_units;
  std::optional<std::string> uuid, serial, driver_version;
  std::optional<std::string> cpu_affinity;  ///< CPUs near the device, "0-47,96-143"
  /// Why the clocks are held below their maximum now, as the driver says ("power cap, thermal
  /// (software)"); "" when nothing holds them; nullopt when no source says.
  std::optional<std::string> throttle_reasons;
  std::optional<std::int64_t> pcie_replays;  ///< PCIe replays since the driver loaded (link errors retried)
  /// Memory taken out of use for errors: NVML's remapped rows (retired pages before Ampere),
  /// amdgpu's reserved bad pages; a retirement that waits for a reset, one that failed (0 or 1).
  std::optional<std::int64_t> retired_pages, retirement_pending, retirement_failed;
  /// The processes holding the device; empty when the source listed none, nullopt when it cannot list.
  std::optional<std::vector<ProcessUse>> processes;
  /// Which source gave each figure that is set.
  std::map<Field, SourceKind> sources;
};

/// Calls f(Field, std::optional<T>&) for every figure of d, in contract order.
template <class D, class F>
void visit_figures(D& d, F&& f) {
  f(Field::name, d.name);
  f(Field::bus_id, d.bus_id);
  f(Field::numa_node, d.numa_node);
  f(Field::temperature_c, d.temperature_c);
  f(Field::power_w, d.power_w);
  f(Field::power_cap_w, d.power_cap_w);
  f(Field::busy_percent, d.busy_percent);
  f(Field::memory_total_bytes, d.memory_total_bytes);
  f(Field::memory_used_bytes, d.memory_used_bytes);
  f(Field::memory_used_percent, d.memory_used_percent);
  f(Field::sclk_mhz, d.sclk_mhz);
  f(Field::mclk_mhz, d.mclk_mhz);
  f(Field::pcie_gen, d.pcie_gen);
  f(Field::pcie_width, d.pcie_width);
  f(Field::pcie_gen_max, d.pcie_gen_max);
  f(Field::pcie_width_max, d.pcie_width_max);
  f(Field::sclk_max_mhz, d.sclk_max_mhz);
  f(Field::mclk_max_mhz, d.mclk_max_mhz);
  f(Field::memory_available_bytes, d.memory_available_bytes);
  f(Field::ecc_corrected, d.ecc_corrected);
  f(Field::ecc_uncorrected, d.ecc_uncorrected);
  f(Field::vendor, d.vendor);
  f(Field::arch, d.arch);
  f(Field::device_id, d.device_id);
  f(Field::compute_units, d.compute_units);
  f(Field::uuid, d.uuid);
  f(Field::serial, d.serial);
  f(Field::driver_version, d.driver_version);
  f(Field::cpu_affinity, d.cpu_affinity);
  f(Field::throttle_reasons, d.throttle_reasons);
  f(Field::pcie_replays, d.pcie_replays);
  f(Field::retired_pages, d.retired_pages);
  f(Field::retirement_pending, d.retirement_pending);
  f(Field::retirement_failed, d.retirement_failed);
  f(Field::processes, d.processes);
}

/// Records `source` for every figure of d that is set and has no source yet.
void stamp_sources(DeviceState& d, SourceKind source);

/// Fills the figures that follow from others: memory_used_percent from used and total (to one
/// decimal), credited to the source of the used bytes.
void derive_figures(DeviceState& d);

/// A link between two endpoints of a topology output ("GPU0", "NIC1", "0000:0c:00.0").
struct TopoLink {
  std::string a, b;
  std::optional<std::string> type;  ///< "XGMI", "PCIE", "NV18", "SYS", "PHB", ...
  std::optional<std::int64_t> hops, weight;
  std::optional<double> bandwidth_gbps;                         ///< measured or published GB/s, when the output has one
  std::vector<std::pair<std::string, std::string>> attributes;  ///< other cells: "access": "ENABLED"
};

/// How devices are connected, as a topology output shows it.
struct Topology {
  std::vector<TopoLink> links;
};

/// The outcome of a health check a captured tool ran (dcgmi diag, RVS).
enum class CheckStatus { pass, warn, fail, skip };
std::string_view to_string(CheckStatus s);
std::optional<CheckStatus> parse_check_status(std::string_view s);

/// One check with the tool's words for its result.
struct Check {
  std::string category;  ///< "Deployment", "Hardware", "gst"
  std::string name;      ///< "GPU Memory", "gst-639Tflops-4K4K8K-rand-fp16"
  CheckStatus status = CheckStatus::pass;
  std::string result;  ///< as printed: "Fail - All", "met: TRUE"
  std::string detail;  ///< Info / Warning rows, unwrapped
};

/// A host fact that is not a device figure: a kernel module, a package, a version string.
struct Fact {
  std::string key;    ///< "kernel_module", "python_package", "version_string", "driver"
  std::string value;  ///< "hycu", "torch 2.9.0+das.opt1.dtk2604..."
};

/// How a live source fared in a reading.
enum class SourceState { ok, unavailable, failed, skipped };
std::string_view to_string(SourceState s);
std::optional<SourceState> parse_source_state(std::string_view s);

/// One source's outcome: "nvml ok", "rocm_smi_lib unavailable: librocm_smi64.so: not found".
struct SourceReport {
  std::string name;  ///< "nvml", "rocm_smi_lib", "sysfs", "cli", or the --from format
  SourceState state = SourceState::ok;
  std::string detail;
};

/// One reading of the host (live) or of one captured file (--from).
struct Snapshot {
  std::string source = "live";  ///< "live" or "file"
  std::string timestamp;        ///< UTC, ISO 8601 with milliseconds
  std::string path, format;     ///< for a file: its path and the format detected
  std::vector<SourceReport> sources;
  std::vector<DeviceState> devices;
  Topology topology;
  std::vector<Check> checks;
  std::vector<Fact> facts;
  std::vector<std::string> warnings;
};

/// Normalises a PCI address to "dddd:bb:dd.f" in lower case ("00000000:00:09.0" ->
/// "0000:00:09.0", "2F:00.0" -> "0000:2f:00.0"); nullopt when it is not one.
std::optional<std::string> normalize_bus_id(std::string_view s);

/// Now, UTC, "2026-07-14T08:12:38.696Z".
std::string timestamp_now();

/// Which sources to ask: all of them in order, or one alone.
enum class SourceChoice { all, nvml, rocm_smi_lib, sysfs, cli };
/// "auto", "nvml", "rocm-smi-lib", "sysfs", "cli": the --source spellings.
std::string_view to_string(SourceChoice c);
std::optional<SourceChoice> parse_source_choice(std::string_view s);

/// How to read the host.
struct CollectOptions {
  SourceChoice choice = SourceChoice::all;
  /// Where /sys, /proc and /opt are read (tests, bundles). A Root that records (a support
  /// bundle's) records every file the sources read through it.
  util::Root root = util::Root();
  std::chrono::milliseconds timeout{5000};  ///< the most one source may take for one reading
};

/// What `dcukit telemetry` is asked: the live sources or a capture, once or watched.
struct Request {
  CollectOptions collect;                 ///< the live sources
  std::string from;                       ///< a captured tool output read once instead ("" none)
  std::chrono::milliseconds every{0};     ///< 0: one reading; else the interval of a watch
  int count = 0;                          ///< readings to take (0: one, or until stopped when watching)
  const util::StopToken* stop = nullptr;  ///< ends a watch between readings
  /// Called with each reading as it is taken; `first` for the first. False: stop (a write failed).
  std::function<bool(const Snapshot&, bool first)> on_reading;
};

/// How the readings went (each reading went to Request::on_reading as it was taken).
struct Report {
  int readings = 0;
  bool any_device = false;  ///< some reading found a device
  bool written = true;      ///< every on_reading returned true
};

}  // namespace dcukit::telemetry
