#pragma once
// sysfs, read under a root directory (default "/") so that tests and support bundles can stand
// in for a host: every GPU among /sys/bus/pci/devices (display, 3D, co-processor or accelerator
// class, from NVIDIA, AMD or Hygon; a BMC's VGA at card0 is not one), its PCIe link and NUMA
// node, and for amdgpu/hydcu/hycu devices the figures the driver publishes (sysfs_values.h).
// The processes holding a device are those with its /dev/dri node open (from /proc/<pid>/fd),
// with the VRAM their DRM fdinfo reports where the driver writes one.
#include <optional>
#include <string>

#include "telemetry/links.h"
#include "telemetry/source.h"
#include "util/root.h"

namespace dcukit::telemetry {

class SysfsSource : public Source {
public:
  /// Reads under `root`, which records what it read when it has a log.
  explicit SysfsSource(util::Root root = util::Root()) : m_root(std::move(root)) {}
  std::string name() const override { return "sysfs"; }
  SourceSample sample(const Snapshot& so_far) override;

private:
  util::Root m_root;
  std::optional<LinkReading> m_links;  ///< KFD's links, read on the first sample (they do not change)
};

/// The GPUs sysfs shows under `root`, in PCI order, with their figures stamped "sysfs"; for
/// `dcukit doctor`, which needs the devices without a vendor library. The /sys files go through
/// `root`, so a Root that records (a bundle's) records every one; of /proc's descriptors only
/// those of a GPU's nodes are recorded.
Snapshot read_sysfs(const util::Root& root = util::Root());

}  // namespace dcukit::telemetry
