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
};

/// Fills `api` from an opened libnvidia-ml; the error names the missing required symbol.
Status load(util::DynLib& lib, Api& api);

}  // namespace dcukit::telemetry::nvml
