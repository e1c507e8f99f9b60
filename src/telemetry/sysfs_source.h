#pragma once
// sysfs, read under a root directory (default "/") so that tests and support bundles can stand
// in for a host: every GPU among /sys/bus/pci/devices (display, 3D, co-processor or accelerator
// class, from NVIDIA, AMD or Hygon; a BMC's VGA at card0 is not one), its PCIe link and NUMA
// node, and for amdgpu/hydcu/hycu devices the figures the driver publishes (sysfs_values.h).
// The processes holding a device are those with its /dev/dri node open (from /proc/<pid>/fd),
// with the VRAM their DRM fdinfo reports where the driver writes one.
#include <memory>
#include <string>

#include "telemetry/source.h"

namespace dcukit::util {
class AccessLog;
class Root;
}  // namespace dcukit::util

namespace dcukit::telemetry {

class SysfsSource : public Source {
public:
  /// Reads under `root`; every /sys file read is also recorded into `record` when given.
  explicit SysfsSource(std::string root = "/", std::shared_ptr<util::AccessLog> record = {})
      : m_root(std::move(root)), m_record(std::move(record)) {}
  std::string name() const override { return "sysfs"; }
  SourceSample sample(const Snapshot& so_far) override;

private:
  std::string m_root;
  std::shared_ptr<util::AccessLog> m_record;
};

/// The GPUs sysfs shows under `root`, in PCI order, with their figures stamped "sysfs"; for
/// `dcukit doctor`, which needs the devices without a vendor library. The /sys files go through
/// `root`, so a Root that records (a bundle's) records every one; /proc is read directly.
Snapshot read_sysfs(const util::Root& root);
/// read_sysfs under the folder `root` ("/": this host).
Snapshot read_sysfs(const std::string& root = "/");

}  // namespace dcukit::telemetry
