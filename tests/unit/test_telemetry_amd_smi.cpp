// Every amd-smi capture of ../shared/samples/amd-smi, with figures read by hand from each file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "test_telemetry_helpers.h"

namespace dcukit::telemetry {
namespace {

using testutil::read_sample;

constexpr std::uint64_t kMiB = 1024 * 1024;
constexpr double kGiB = 1024.0 * 1024 * 1024;

std::string attribute(const TopoLink& l, const std::string& key) {
  for (const auto& [k, v] : l.attributes)
    if (k == key) return v;
  return "";
}

const TopoLink& link(const Snapshot& s, const std::string& a, const std::string& b) {
  static const TopoLink kNone;
  auto it = std::find_if(s.topology.links.begin(), s.topology.links.end(),
                         [&](const TopoLink& l) { return l.a == a && l.b == b; });
  if (it == s.topology.links.end()) {
    ADD_FAILURE() << "no link " << a << "-" << b;
    return kNone;
  }
  return *it;
}

TEST(TelemetryAmdSmi, MetricPowerJsonWithValueUnitObjects) {
  const auto s = read_sample("amd-smi/metric-p-json-units-changelog.txt");
  EXPECT_EQ(s.format, "amd-smi --json");
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].power_w, 10.0);  // {"value": 10, "unit": "W"}
  EXPECT_EQ(s.devices[0].vendor, Vendor::amd);
  EXPECT_EQ(s.devices[0].sources.at(Field::power_w), SourceKind::amd_smi);
}

TEST(TelemetryAmdSmi, MetricPcieText) {
  const auto s = read_sample("amd-smi/metric-pcie-mi300x-changelog.txt");
  EXPECT_EQ(s.format, "amd-smi static/metric");
  ASSERT_EQ(s.devices.size(), 2u);
  for (const auto& d : s.devices) {
    EXPECT_EQ(d.pcie_width, 16);
    EXPECT_EQ(d.pcie_gen, 5);  // "32 GT/s"
  }
}

TEST(TelemetryAmdSmi, MetricThrottleHoldsNoContractFigure) {
  const auto s = read_sample("amd-smi/metric-throttle-mi300x-changelog.txt");
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_EQ(s.devices[1].index, 1);
  EXPECT_FALSE(s.devices[0].busy_percent);
  EXPECT_FALSE(s.devices[0].power_w);
  EXPECT_FALSE(s.devices[0].temperature_c);
}

TEST(TelemetryAmdSmi, MetricUsageWithWrappedArrays) {
  const auto s = read_sample("amd-smi/metric-usage-mi300x-xcp-changelog.txt");
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_EQ(s.devices[0].busy_percent, 0.0);  // GFX_ACTIVITY: 0 %
  EXPECT_EQ(s.devices[1].busy_percent, 0.0);
}

TEST(TelemetryAmdSmi, MonitorWith32Partitions) {
  const auto s = read_sample("amd-smi/monitor-ptv-32-partitions-changelog.txt");
  EXPECT_EQ(s.format, "amd-smi monitor");
  ASSERT_EQ(s.devices.size(), 32u);
  EXPECT_EQ(s.devices[0].power_w, 248.0);
  EXPECT_EQ(s.devices[0].temperature_c, 55.0);  // "55 °C"
  EXPECT_EQ(s.devices[0].memory_used_bytes, 283 * kMiB);
  EXPECT_EQ(s.devices[0].memory_total_bytes, 196300 * kMiB);
  EXPECT_EQ(s.devices[4].power_w, 221.0);
  EXPECT_EQ(s.devices[4].temperature_c, 50.0);
  EXPECT_EQ(s.devices[31].index, 31);
  EXPECT_EQ(s.devices[31].power_w, 227.0);
  EXPECT_EQ(s.devices[31].temperature_c, 51.0);
}

TEST(TelemetryAmdSmi, MonitorWatchWithUnitsInCells) {
  const auto s = read_sample("amd-smi/monitor-watch-8xmi300x-under-gst.txt");
  ASSERT_EQ(s.devices.size(), 8u);
  const auto& d = s.devices[0];
  EXPECT_EQ(d.power_w, 750.0);
  EXPECT_EQ(d.temperature_c, 69.0);
  EXPECT_EQ(d.sclk_mhz, 1278);
  EXPECT_EQ(d.busy_percent, 100.0);
  EXPECT_EQ(d.memory_used_bytes, static_cast<std::uint64_t>(std::llround(2.0 * kGiB)));  // "2.0/192.0 GB"
  EXPECT_EQ(d.memory_total_bytes, static_cast<std::uint64_t>(std::llround(192.0 * kGiB)));
  EXPECT_EQ(s.devices[1].power_w, 178.0);
  EXPECT_EQ(s.devices[1].sclk_mhz, 2105);
  EXPECT_EQ(s.devices[1].busy_percent, 0.0);
  EXPECT_EQ(s.devices[1].memory_used_bytes, static_cast<std::uint64_t>(std::llround(1.7 * kGiB)));
  EXPECT_EQ(s.devices[7].temperature_c, 48.0);
}

TEST(TelemetryAmdSmi, StaticMi300a) {
  const auto s = read_sample("amd-smi/static-mi300a-text-docs-partial.txt");
  ASSERT_EQ(s.devices.size(), 1u);  // the CPU: 0 block is not a device
  const auto& d = s.devices[0];
  EXPECT_EQ(d.name, "AMD Instinct MI300A");
  EXPECT_EQ(d.device_id, "0x74a0");
  EXPECT_FALSE(d.serial);  // masked as 0xXXXX... by the docs
  EXPECT_EQ(d.compute_units, 228);
  EXPECT_EQ(d.arch, "gfx942");
  EXPECT_EQ(d.bus_id, "0000:01:00.0");
  EXPECT_EQ(d.pcie_width_max, 16);
  EXPECT_EQ(d.pcie_gen_max, 5);
  EXPECT_EQ(d.power_cap_w, 550.0);
  EXPECT_EQ(d.driver_version, "6.10.10");
  EXPECT_EQ(d.numa_node, 0);
  EXPECT_EQ(d.memory_total_bytes, 96434 * kMiB);
  EXPECT_EQ(d.sclk_mhz, 903);  // CURRENT LEVEL: 1
  EXPECT_EQ(d.sclk_max_mhz, 903);
  EXPECT_EQ(d.mclk_mhz, 900);  // CURRENT LEVEL: 0
  EXPECT_EQ(d.mclk_max_mhz, 1300);
  EXPECT_EQ(d.vendor, Vendor::amd);
}

TEST(TelemetryAmdSmi, StaticMi350x) {
  const auto s = read_sample("amd-smi/static-mi350x-text-partial.txt");
  ASSERT_EQ(s.devices.size(), 1u);
  const auto& d = s.devices[0];
  EXPECT_EQ(d.name, "AMD Instinct MI350X");
  EXPECT_EQ(d.device_id, "0x75a0");
  EXPECT_EQ(d.arch, "gfx950");
  EXPECT_EQ(d.compute_units, 128);
  EXPECT_EQ(d.bus_id, "0000:05:00.0");
  EXPECT_EQ(d.pcie_width_max, 16);
  EXPECT_EQ(d.pcie_gen_max, 5);
  EXPECT_EQ(d.driver_version, "6.18.3");
  EXPECT_FALSE(d.serial);  // "<redacted>"
}

TEST(TelemetryAmdSmi, TopologyTablesByBdf) {
  const auto s = read_sample("amd-smi/topology-8gpu-xgmi-bdf-tables-changelog.txt");
  EXPECT_EQ(s.format, "amd-smi topology");
  ASSERT_EQ(s.devices.size(), 8u);
  EXPECT_EQ(s.devices[0].bus_id, "0000:0c:00.0");
  EXPECT_EQ(s.devices[7].bus_id, "0000:df:00.0");
  ASSERT_EQ(s.topology.links.size(), 28u);
  const auto& l = link(s, "GPU0", "GPU7");
  EXPECT_EQ(l.type, "XGMI");
  EXPECT_EQ(l.weight, 15);
  EXPECT_EQ(l.hops, 1);
  EXPECT_EQ(attribute(l, "access"), "ENABLED");
  EXPECT_EQ(attribute(l, "numa_bandwidth"), "50000-50000");
}

TEST(TelemetryAmdSmi, TopologyCoherencyAtomicsDma) {
  const auto s = read_sample("amd-smi/topology-cndz-8gpu-changelog.txt");
  ASSERT_EQ(s.devices.size(), 8u);
  EXPECT_EQ(s.devices[4].bus_id, "0000:9f:00.0");
  const auto& a = link(s, "GPU0", "GPU1");
  EXPECT_EQ(attribute(a, "cache_coherency"), "C");
  EXPECT_EQ(attribute(a, "atomics"), "64,32");
  EXPECT_EQ(attribute(a, "dma"), "T");
  EXPECT_EQ(attribute(a, "bi_directional"), "T");
  const auto& b = link(s, "GPU0", "GPU3");
  EXPECT_EQ(attribute(b, "cache_coherency"), "NC");
  EXPECT_EQ(attribute(b, "atomics"), "64");
  EXPECT_EQ(attribute(b, "dma"), "F");
}

TEST(TelemetryAmdSmi, TopologyJson) {
  const auto s = read_sample("amd-smi/topology-json-2gpu-pcie-changelog.txt");
  ASSERT_EQ(s.devices.size(), 2u);
  ASSERT_EQ(s.topology.links.size(), 1u);
  const auto& l = s.topology.links[0];
  EXPECT_EQ(l.a, "GPU0");
  EXPECT_EQ(l.b, "GPU1");
  EXPECT_EQ(l.type, "PCIE");
  EXPECT_EQ(l.weight, 40);
  EXPECT_EQ(l.hops, 2);
  EXPECT_EQ(attribute(l, "access"), "DISABLED");
}

}  // namespace
}  // namespace dcukit::telemetry
