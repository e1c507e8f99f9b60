// util/sysfs and util/host read the kernel's files: a fake /sys tree stands in for a host, and
// what is absent (containers, VMs) reads as empty, never as an error or an exception.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "tempdir.h"
#include "util/host.h"
#include "util/sysfs.h"

using namespace dcukit::util;

TEST(UtilSysfs, ReadsAPciFunctionUnderARoot) {
  testutil::TempDir root("sysfs");
  const std::string dev = "sys/bus/pci/devices/0000:55:00.0/";
  std::filesystem::create_directories(root.file(dev));
  root.write(dev + "numa_node", "1\n");
  root.write(dev + "current_link_speed", "32.0 GT/s PCIe\n");
  root.write(dev + "current_link_width", "16\n");
  root.write(dev + "max_link_speed", "32.0 GT/s PCIe\n");
  root.write(dev + "max_link_width", "16\n");
  root.write(dev + "vendor", "0x10de\n");
  root.write(dev + "device", "0x2335\n");
  const PciLink link = read_pci_link("0000:55:00.0", Root(root.path()));
  EXPECT_EQ(link.numa_node, 1);
  EXPECT_EQ(link.current_speed, "32.0 GT/s PCIe");
  EXPECT_EQ(link.current_width, 16);
  EXPECT_EQ(link.max_width, 16);
  EXPECT_EQ(link.vendor_device, "10de:2335");
}

TEST(UtilSysfs, WhatIsAbsentOrGarbledReadsAsUnknown) {
  testutil::TempDir root("sysfs");
  const std::string dev = "sys/bus/pci/devices/0000:01:00.0/";
  std::filesystem::create_directories(root.file(dev));
  root.write(dev + "numa_node", "99999999999999999999\n");  // past an int: unknown, not a throw
  root.write(dev + "current_link_width", "wide\n");
  const PciLink link = read_pci_link("0000:01:00.0", Root(root.path()));
  EXPECT_EQ(link.numa_node, -1);
  EXPECT_EQ(link.current_width, 0);
  EXPECT_TRUE(link.vendor_device.empty());
  const PciLink none = read_pci_link("0000:02:00.0", Root(root.path()));
  EXPECT_EQ(none.numa_node, -1);
  EXPECT_FALSE(read_first_line(root.file("absent")).has_value());
}

TEST(UtilHost, FactsOfThisHost) {
  EXPECT_FALSE(hostname().empty());
  EXPECT_GT(cpu_count(), 0);
  EXPECT_GT(usable_cpu_count(), 0);
  EXPECT_GT(meminfo_bytes("MemTotal"), 0u);
  EXPECT_EQ(meminfo_bytes("NoSuchField"), 0u);
  EXPECT_TRUE(std::regex_match(utc_timestamp(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"))) << utc_timestamp();
}
