#pragma once
// What the files of a GPU's sysfs directory (/sys/bus/pci/devices/<bdf>/, which is
// /sys/class/drm/cardN/device/) mean, for the live sysfs source and for a pasted transcript of
// `cat` commands alike. amdgpu and Hygon's hydcu/hycu share the names: gpu_busy_percent,
// mem_info_vram_total/used (bytes), pp_dpm_sclk/mclk ("1: 800Mhz *" marks the current level),
// current/max_link_speed ("16.0 GT/s PCIe") and _width, hwmon temp*_input (millidegrees C),
// power1_average or power1_input and power1_cap (microwatts).
#include <string_view>

#include "telemetry/types.h"

namespace dcukit::telemetry {

/// The vendor of a PCI vendor id ("0x1d94" -> hygon); nullopt for others (a BMC's ASPEED VGA).
std::optional<Vendor> vendor_from_pci_id(std::string_view id);

/// Applies one file of the device directory (`file` relative to it: "gpu_busy_percent",
/// "hwmon/hwmon3/temp1_input") to d. `temp_label` is the hwmon sensor's label when known
/// ("edge", "junction", "mem"); without one, temp1 is taken as amdgpu's edge sensor.
/// Returns false for a file it does not use.
bool apply_sysfs_value(DeviceState& d, std::string_view file, std::string_view content,
                       std::string_view temp_label = "");

/// amdgpu's binary gpu_metrics file: the ASIC-independent throttle status (format 1.3+ and 2.2+;
/// bits 0-15 power limits, 16-31 current limits, 32-55 temperatures, 56-63 others) into
/// d.throttle_reasons ("" when nothing throttles). Returns what it could not read ("gpu_metrics
/// format 1.4 carries no ASIC-independent throttle status"), empty when it read it.
std::string apply_gpu_metrics(DeviceState& d, std::string_view bytes);

/// The starred (current) and the highest level of a pp_dpm_* file, in MHz.
void read_dpm_levels(std::string_view content, std::optional<std::int64_t>& current, std::optional<std::int64_t>& max);

}  // namespace dcukit::telemetry
