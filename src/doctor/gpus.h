#pragma once
// The GPUs of the host as doctor sees them: every NVIDIA, AMD or Hygon display, co-processor or
// accelerator function under /sys/bus/pci/devices, with what sysfs, the KFD topology and
// /proc/driver/nvidia publish about it. The one place that knows where device facts come from
// (the telemetry library will feed it once merged), so the checks read only these structs.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/root.h"

namespace dcukit::doctor {

/// Who made the GPU, from its PCI vendor id.
enum class GpuVendor { nvidia, amd, hygon };
/// "nvidia", "amd", "hygon".
std::string_view to_string(GpuVendor v);

/// One PCI link end: speed in GT/s and width in lanes; 0 where unknown.
struct Link {
  double speed_gts = 0;
  int width = 0;
};

/// One GPU.
struct Gpu {
  std::string bus_id;  ///< "0000:55:00.0"
  GpuVendor vendor = GpuVendor::nvidia;
  std::string pci_id;  ///< "1d94:6210"
  std::string name;    ///< product name where published, else ""
  std::string driver;  ///< the kernel driver bound to it ("hycu", "nvidia"), "" when none
  int numa_node = -1;  ///< -1 unknown (or a one-node host)
  Link link, link_max;
  std::optional<Link> slot_max;    ///< the upstream port's maximum: what the slot allows
  std::vector<std::string> nodes;  ///< its /dev/dri names: "card1", "renderD128"
  std::string isa;                 ///< "gfx928" (KFD topology); "" unknown
  std::optional<int> compute_units;
  std::optional<int> sclk_mhz, sclk_max_mhz, mclk_mhz;
  std::optional<std::uint64_t> vram_total, vram_used;
  std::optional<std::int64_t> ecc_corrected, ecc_uncorrected;
  std::string perf_level;              ///< power_dpm_force_performance_level ("auto", "low")
  std::optional<double> busy_percent;  ///< gpu_busy_percent
  std::string uuid;                    ///< NVIDIA "GPU-..." where published
  std::vector<std::string> read_from;  ///< the files the facts came from, for the evidence
};

/// The GPUs found, with what could not be read.
struct GpuScan {
  std::vector<Gpu> gpus;
  bool sysfs_present = false;  ///< /sys/bus/pci/devices exists (absent in some containers)
};

/// Reads every GPU under `root` (PCI order).
GpuScan scan_gpus(const util::Root& root);

/// "gfx" name of a KFD gfx_target_version: 90600 -> "gfx906", 90010 -> "gfx90a", 110001 -> "gfx1101".
std::string isa_from_target_version(long long v);

/// Speed in GT/s from sysfs' "16.0 GT/s PCIe" (also "8 GT/s", "2.5 GT/s"); 0 when unreadable.
double parse_link_speed(std::string_view text);
/// The PCIe generation of a speed in GT/s (core::pcie_gen_from_speed): 8 -> 3, 16 -> 4, 32 -> 5.
int pcie_generation(double gts);

}  // namespace dcukit::doctor
