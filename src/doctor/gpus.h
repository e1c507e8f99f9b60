#pragma once
// The GPUs of the host as doctor sees them: telemetry's reading of each device (bus id, NUMA
// node, PCIe link, memory, clocks, ECC, ISA; live from NVML, rocm_smi, sysfs and the vendor
// tools, or from sysfs alone under a fake root or an unpacked bundle), plus the few facts only
// doctor needs: the bound kernel driver, the /dev/dri nodes, the slot's own link maximum, the
// performance level, and the ISA and compute units from the KFD topology where telemetry has none.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/vendor.h"
#include "telemetry/types.h"
#include "util/root.h"

namespace dcukit::doctor {

/// One PCIe link end: generation and width in lanes; 0 where unknown.
struct Link {
  int gen = 0;
  int width = 0;
};

/// One GPU.
struct Gpu {
  telemetry::DeviceState state;  ///< telemetry's figures, each with its source
  std::string bus_id;            ///< "0000:55:00.0" (state.bus_id, or "" when the source gave none)
  core::Vendor vendor = core::Vendor::nvidia;
  std::string pci_id;                  ///< "1d94:6210" where known
  std::string driver;                  ///< the kernel driver bound to it ("hycu", "nvidia"), "" when none
  std::vector<std::string> nodes;      ///< its /dev/dri names: "card1", "renderD128"
  std::optional<Link> slot_max;        ///< the upstream port's maximum: what the slot allows
  std::string perf_level;              ///< power_dpm_force_performance_level ("auto", "low")
  std::vector<std::string> read_from;  ///< where the facts came from, for the evidence

  /// The product name, "" when unknown.
  std::string name() const { return state.name.value_or(""); }
  /// The ISA ("gfx928", "sm_90"), "" when unknown.
  std::string isa() const { return state.arch.value_or(""); }
  /// The NUMA node, -1 when unknown.
  int numa_node() const { return static_cast<int>(state.numa_node.value_or(-1)); }
  /// The link as trained now.
  Link link() const;
  /// The most the card can train at.
  Link link_max() const;
};

/// The GPUs found, with how they were read.
struct GpuScan {
  std::vector<Gpu> gpus;
  bool sysfs_present = false;         ///< /sys/bus/pci/devices exists (absent in some containers)
  std::string source;                 ///< "telemetry (nvml ok, sysfs ok, ...)" or "sysfs under DIR"
  std::vector<std::string> warnings;  ///< telemetry's warnings
  telemetry::Snapshot snapshot;       ///< telemetry's reading as it came
};

/// Adds doctor's facts under `root` to telemetry's devices (tests pass a snapshot of their own).
GpuScan gpus_from(const telemetry::Snapshot& snapshot, const util::Root& root);

/// Reads the GPUs: on the live host through telemetry::collect (each source with `timeout`),
/// under any other root from its sysfs, with the figures of the vendor tools' captured outputs
/// in `captures` (a bundle's nvidia-smi -q, hy-smi, rocm-smi) added by bus id; then gpus_from.
GpuScan scan_gpus(const util::Root& root, bool live, std::chrono::milliseconds timeout,
                  const std::vector<std::string>& captures = {});

/// "gfx" name of a KFD gfx_target_version (major*10000 + minor*100 + stepping): 90006 -> "gfx906", 90010 -> "gfx90a",
/// 110001 -> "gfx1101".
std::string isa_from_target_version(long long v);

}  // namespace dcukit::doctor
