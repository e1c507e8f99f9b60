#pragma once
// The few NVML functions and structs dcukit calls, declared here so that no NVIDIA header is
// needed to build (nvtop and btop do the same). Layouts follow nvml.h of driver 525 and later;
// every function is looked up by name at run time and an absent optional one leaves its figure
// null. The table of function pointers is also what tests fill with fakes.
#include <cstdint>

#include "util/dynlib.h"
#include "util/result.h"

namespace dcukit::telemetry::nvml {

using Return = int;  // nvmlReturn_t
using Device = struct DeviceOpaque*;

inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorNotSupported = 3;
inline constexpr Return kErrorInsufficientSize = 7;
inline constexpr int kTemperatureGpu = 0;                         // NVML_TEMPERATURE_GPU
inline constexpr int kClockSm = 1, kClockMem = 2;                 // NVML_CLOCK_SM, NVML_CLOCK_MEM
inline constexpr int kErrorCorrected = 0, kErrorUncorrected = 1;  // nvmlMemoryErrorType_t
inline constexpr int kVolatileEcc = 0;                            // NVML_VOLATILE_ECC
inline constexpr unsigned long long kValueNotAvailable = ~0ULL;   // NVML_VALUE_NOT_AVAILABLE
inline constexpr unsigned kDeviceNameBufferSize = 96, kUuidBufferSize = 96, kSerialBufferSize = 30;
inline constexpr unsigned kDriverVersionBufferSize = 80;
inline constexpr unsigned kNvLinkMaxLinks = 18;  // NVML_NVLINK_MAX_LINKS (Hopper)
inline constexpr int kNvLinkRemoteSwitch = 2;    // NVML_NVLINK_DEVICE_TYPE_SWITCH
inline constexpr int kP2PCapsRead = 0;           // NVML_P2P_CAPS_INDEX_READ

/// nvmlPciInfo_t (v3, as filled by nvmlDeviceGetPciInfo_v3).
struct PciInfo {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;  ///< device id << 16 | vendor id
  unsigned int pciSubSystemId;
  char busId[32];
};

/// nvmlUtilization_t
struct Utilization {
  unsigned int gpu;
  unsigned int memory;
};

/// nvmlMemory_t (v1)
struct Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

/// nvmlMemory_v2_t: `used` leaves out the memory the driver reserves, as nvidia-smi shows it
/// (v1's `used` is total - free, which counts the reservation: about 615 MiB on an idle H200).
struct MemoryV2 {
  unsigned int version;
  unsigned long long total;
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used;
};

/// nvmlMemory_v2: the struct's size with the version (2) in the top byte, as NVML_STRUCT_VERSION makes it.
inline constexpr unsigned int kMemoryV2Version = static_cast<unsigned int>(sizeof(MemoryV2)) | (2u << 24);

/// nvmlProcessInfo_t as nvmlDeviceGetComputeRunningProcesses_v3 fills it.
struct ProcessInfo {
  unsigned int pid;
  unsigned long long usedGpuMemory;  ///< bytes; kValueNotAvailable when the driver hides it
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

/// The functions dcukit calls. The first four are required; the others may be null.
struct Api {
  Return (*init)() = nullptr;                                  // nvmlInit_v2
  Return (*shutdown)() = nullptr;                              // nvmlShutdown
  Return (*device_count)(unsigned int*) = nullptr;             // nvmlDeviceGetCount_v2
  Return (*handle_by_index)(unsigned int, Device*) = nullptr;  // nvmlDeviceGetHandleByIndex_v2
  const char* (*error_string)(Return) = nullptr;
  Return (*name)(Device, char*, unsigned int) = nullptr;
  Return (*pci_info)(Device, PciInfo*) = nullptr;  // nvmlDeviceGetPciInfo_v3
  Return (*uuid)(Device, char*, unsigned int) = nullptr;
  Return (*serial)(Device, char*, unsigned int) = nullptr;
  Return (*temperature)(Device, int, unsigned int*) = nullptr;
  Return (*power_usage)(Device, unsigned int*) = nullptr;           // milliwatts
  Return (*enforced_power_limit)(Device, unsigned int*) = nullptr;  // milliwatts
  Return (*utilization)(Device, Utilization*) = nullptr;
  Return (*memory)(Device, Memory*) = nullptr;
  Return (*memory_v2)(Device, MemoryV2*) = nullptr;           // nvmlDeviceGetMemoryInfo_v2 (drivers from 510)
  Return (*clock)(Device, int, unsigned int*) = nullptr;      // MHz
  Return (*max_clock)(Device, int, unsigned int*) = nullptr;  // MHz
  Return (*pcie_gen)(Device, unsigned int*) = nullptr;
  Return (*pcie_width)(Device, unsigned int*) = nullptr;
  Return (*pcie_gen_max)(Device, unsigned int*) = nullptr;
  Return (*pcie_width_max)(Device, unsigned int*) = nullptr;
  Return (*total_ecc)(Device, int, int, unsigned long long*) = nullptr;
  Return (*compute_processes)(Device, unsigned int*, ProcessInfo*) = nullptr;  // _v3
  Return (*compute_capability)(Device, int*, int*) = nullptr;
  Return (*driver_version)(char*, unsigned int) = nullptr;              // nvmlSystemGetDriverVersion
  Return (*process_name)(unsigned int, char*, unsigned int) = nullptr;  // nvmlSystemGetProcessName
  // nvmlDeviceGetCurrentClocksEventReasons (...ThrottleReasons before driver 535)
  Return (*clock_reasons)(Device, unsigned long long*) = nullptr;
  Return (*pcie_replays)(Device, unsigned int*) = nullptr;  // nvmlDeviceGetPcieReplayCounter
  // nvmlDeviceGetRemappedRows (Ampere and later): corrected, uncorrected, pending, failed
  Return (*remapped_rows)(Device, unsigned int*, unsigned int*, unsigned int*, unsigned int*) = nullptr;
  // nvmlDeviceGetRetiredPages (before Ampere): a cause, the count (0 asks it), the addresses
  Return (*retired_pages)(Device, int, unsigned int*, unsigned long long*) = nullptr;
  Return (*retired_pending)(Device, int*) = nullptr;  // nvmlDeviceGetRetiredPagesPendingStatus
  // What nvidia-smi topo -m and topo -p2p read; the enums are ints (nvmlGpuTopologyLevel_t:
  // 0 internal, 10 PIX, 20 PXB, 30 PHB, 40 NODE, 50 SYS; nvmlGpuP2PStatus_t: 0 ok, 1 chipset,
  // 2 GPU, 3 topology not supported, 4 disabled by registry key, 5 not supported).
  Return (*common_ancestor)(Device, Device, int*) = nullptr;          // nvmlDeviceGetTopologyCommonAncestor
  Return (*p2p_status)(Device, Device, int, int*) = nullptr;          // nvmlDeviceGetP2PStatus
  Return (*nvlink_state)(Device, unsigned int, int*) = nullptr;       // nvmlDeviceGetNvLinkState
  Return (*nvlink_remote_pci)(Device, unsigned int, PciInfo*) = nullptr;  // ...GetNvLinkRemotePciInfo_v2
  Return (*nvlink_remote_type)(Device, unsigned int, int*) = nullptr;     // ...GetNvLinkRemoteDeviceType
};

/// The names of nvmlClocksEventReasons bits that hold the clocks down ("idle" is left out: an
/// idle GPU is not throttled), joined with ", "; "" for none.
std::string clock_reason_names(unsigned long long reasons);

/// Fills `api` from an opened libnvidia-ml; the error names the missing required symbol.
Status load(util::DynLib& lib, Api& api);

}  // namespace dcukit::telemetry::nvml
