#pragma once
// Finds the backends: the CPU backend is built in; the CUDA and HIP backends are shared
// libraries loaded at run time, so a host whose GPU runtime is missing or broken still runs
// dcukit, and the loader's exact message says why a backend is absent.
#include <memory>
#include <string>
#include <vector>

#include "core/peaks.h"
#include "core/vendor.h"
#include "device/backend.h"
#include "util/dynlib.h"

namespace dcukit::device {

/// One backend as the loader found it.
struct BackendSlot {
  BackendKind kind = BackendKind::cpu;
  std::string library;  ///< the shared library tried; empty for cpu
  std::string error;    ///< why it is not usable; empty when loaded
  int device_count = 0;
  util::DynLib lib;                  ///< declared before backend: members die in reverse order,
                                     ///< so the library is unloaded after the backend is destroyed
  std::unique_ptr<Backend> backend;  ///< null when error is set

  bool loaded() const { return backend != nullptr; }
};

/// All backends, loaded once. Order: cuda, hip, cpu.
class Registry {
public:
  /// Loads every backend. Library search: $DCUKIT_BACKEND_PATH, then ../lib/dcukit and the
  /// binary's own folder, then the loader's default path. `cpu_devices`: how many host
  /// "devices" the CPU backend shows (bench --cpu-devices, for the multi-device path without a GPU).
  static Registry load(int cpu_devices = 1);

  std::vector<BackendSlot>& slots() { return m_slots; }
  /// A registry of the given slots instead of the loaded ones (tests: a fake backend).
  static Registry of(std::vector<BackendSlot> slots);

  /// The slot of a kind, or nullptr.
  BackendSlot* find(BackendKind kind);
  /// The first GPU backend with a device, else the CPU backend.
  BackendSlot* default_slot();

private:
  std::vector<BackendSlot> m_slots;
};

/// A GPU of this host, with what dcukit knows of it beyond the backend.
struct DetectedDevice {
  BackendKind backend = BackendKind::cuda;
  core::Vendor vendor = core::Vendor::nvidia;  ///< from the peak data, else the PCI id, else the backend
  DeviceInfo info;
  MemInfo memory;                          ///< free and total when detected
  int numa_node = -1;                      ///< from sysfs; -1 unknown
  int pcie_gen = 0, pcie_width = 0;        ///< current link, from sysfs; 0 unknown
  std::string pci_id;                      ///< "10de:2335" from sysfs, empty if unknown
  const core::DeviceSpec* spec = nullptr;  ///< matched published data, or null
};

/// What the backend, sysfs and the peak data say about device `index` of `backend`; `opened`
/// is that device opened, to read its free memory, or null when it could not be opened.
DetectedDevice describe_device(Backend& backend, int index, Device* opened);

/// The GPUs of this host (none on a host without a GPU backend that has devices). Opens each
/// device for a moment, to read its free memory.
std::vector<DetectedDevice> detect_gpus(Registry& registry);

}  // namespace dcukit::device
