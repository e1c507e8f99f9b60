#pragma once
// Facts the kernel publishes under /sys about PCI devices: link speed and width, NUMA node,
// vendor and device ids. Each reader returns an empty value when the file is absent, as it
// is in containers and VMs that hide sysfs.
#include <optional>
#include <string>

#include "util/root.h"

namespace dcukit::util {

/// The first line of a text file, or nullopt when it cannot be read.
std::optional<std::string> read_first_line(const std::string& path);

/// What sysfs says about one PCI function ("0000:55:00.0").
struct PciLink {
  int numa_node = -1;          ///< -1 when unknown or when the host has one node
  std::string current_speed;   ///< "32.0 GT/s PCIe"
  int current_width = 0;
  std::string max_speed;
  int max_width = 0;
  std::string vendor_device;   ///< "10de:2335"
};

/// Reads /sys/bus/pci/devices/<bus_id>/ under `root` (this host's by default).
PciLink read_pci_link(const std::string& bus_id, const Root& root = Root());

} // namespace dcukit::util
