#pragma once
// The rocm_smi functions dcukit calls, declared here so that no ROCm or DTK header is needed to
// build. librocm_smi64 ships with ROCm, with DTK and with Hygon's HyHAL (/opt/hyhal/lib, where
// it carries Hygon's extensions). Clock levels are left to sysfs: rsmi_frequencies_t changed
// layout across releases (has_deep_sleep and 33 levels were added in ROCm 6), and sysfs's
// pp_dpm_* files are what the library reads anyway.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "util/dynlib.h"
#include "util/result.h"
#include "util/root.h"

namespace dcukit::telemetry::rsmi {

using Status = int;  // rsmi_status_t
inline constexpr Status kSuccess = 0;
inline constexpr Status kNotSupported = 2;                                    // RSMI_STATUS_NOT_SUPPORTED
inline constexpr std::uint32_t kTempEdge = 0, kTempJunction = 1;              // RSMI_TEMP_TYPE_*
inline constexpr std::uint32_t kTempCurrent = 0;                              // RSMI_TEMP_CURRENT
inline constexpr std::uint32_t kMemVram = 0;                                  // RSMI_MEM_TYPE_VRAM
inline constexpr std::uint32_t kSwDriver = 0;                                 // RSMI_SW_COMP_DRIVER
inline constexpr std::uint64_t kBlockUmc = 1, kBlockSdma = 2, kBlockGfx = 4;  // rsmi_gpu_block_t

/// rsmi_error_count_t
struct ErrorCount {
  std::uint64_t correctable_err;
  std::uint64_t uncorrectable_err;
};

/// rsmi_process_info_t (ROCm 4.1 and later)
struct ProcessInfo {
  std::uint32_t process_id;
  std::uint32_t pasid;
  std::uint64_t vram_usage;
  std::uint64_t sdma_usage;
  std::uint32_t cu_occupancy;
};

/// The functions dcukit calls. The first three are required; the others may be null.
struct Api {
  Status (*init)(std::uint64_t) = nullptr;
  Status (*shut_down)() = nullptr;
  Status (*num_devices)(std::uint32_t*) = nullptr;  // rsmi_num_monitor_devices
  Status (*status_string)(Status, const char**) = nullptr;
  Status (*name)(std::uint32_t, char*, std::size_t) = nullptr;
  Status (*id)(std::uint32_t, std::uint16_t*) = nullptr;                                 // rsmi_dev_id_get
  Status (*vendor_id)(std::uint32_t, std::uint16_t*) = nullptr;                          // rsmi_dev_vendor_id_get
  Status (*pci_id)(std::uint32_t, std::uint64_t*) = nullptr;                             // BDFID
  Status (*numa_node)(std::uint32_t, std::int32_t*) = nullptr;                           // rsmi_topo_numa_affinity_get
  Status (*temp)(std::uint32_t, std::uint32_t, std::uint32_t, std::int64_t*) = nullptr;  // millidegrees
  Status (*power_ave)(std::uint32_t, std::uint32_t, std::uint64_t*) = nullptr;           // microwatts
  Status (*power_cap)(std::uint32_t, std::uint32_t, std::uint64_t*) = nullptr;           // microwatts
  Status (*busy_percent)(std::uint32_t, std::uint32_t*) = nullptr;
  Status (*memory_total)(std::uint32_t, std::uint32_t, std::uint64_t*) = nullptr;
  Status (*memory_usage)(std::uint32_t, std::uint32_t, std::uint64_t*) = nullptr;
  Status (*ecc_count)(std::uint32_t, std::uint64_t, ErrorCount*) = nullptr;
  Status (*serial)(std::uint32_t, char*, std::uint32_t) = nullptr;
  Status (*unique_id)(std::uint32_t, std::uint64_t*) = nullptr;
  Status (*version_str)(std::uint32_t, char*, std::uint32_t) = nullptr;
  Status (*process_info)(ProcessInfo*, std::uint32_t*) = nullptr;                   // all processes
  Status (*process_gpus)(std::uint32_t, std::uint32_t*, std::uint32_t*) = nullptr;  // devices of a pid
};

/// Fills `api` from an opened librocm_smi64; the error names the missing required symbol.
dcukit::Status load(util::DynLib& lib, Api& api);

/// Where librocm_smi64 is looked for, in order: /opt/hyhal/lib, $DTK_HOME/lib, /opt/dtk*/lib,
/// $ROCM_PATH/lib, /opt/rocm*/lib, then the loader's own path; each with the suffixes
/// .so, .so.1, .so.2 (HyHAL's), .so.5, .so.6 and .so.7.
std::vector<std::string> library_candidates(const util::Root& root = util::Root());

}  // namespace dcukit::telemetry::rsmi
