// Every nvidia-smi capture of ../shared/samples/nvidia-smi, with figures read by hand from each file.
#include <gtest/gtest.h>

#include <algorithm>

#include "test_telemetry_helpers.h"

namespace dcukit::telemetry {
namespace {

using testutil::has_warning;
using testutil::read_sample;

constexpr std::uint64_t kMiB = 1024 * 1024;

std::optional<std::string> link_type(const Snapshot& s, const std::string& a, const std::string& b) {
  for (const auto& l : s.topology.links)
    if (l.a == a && l.b == b) return l.type;
  return std::nullopt;
}

TEST(TelemetryNvidiaSmi, ListWithMig) {
  const auto s = read_sample("nvidia-smi/L-h100-mig.txt");
  EXPECT_EQ(s.format, "nvidia-smi -L");
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(s.devices[0].uuid, "GPU-00000000-0000-0000-0000-000000000000");
  EXPECT_TRUE(has_warning(s, "MIG on with 4 MIG devices"));
}

TEST(TelemetryNvidiaSmi, DefaultTableIdle) {
  const auto s = read_sample("nvidia-smi/default-table-h100-idle.txt");
  EXPECT_EQ(s.format, "nvidia-smi table");
  ASSERT_EQ(s.devices.size(), 1u);
  const auto& d = s.devices[0];
  EXPECT_EQ(d.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d.bus_id, "0000:00:09.0");  // "00000000:00:09.0"
  EXPECT_EQ(d.temperature_c, 41.0);     // the fan reads N/A, which must not split "Pwr:Usage/Cap"
  EXPECT_EQ(d.power_w, 69.0);
  EXPECT_EQ(d.power_cap_w, 700.0);
  EXPECT_EQ(d.memory_used_bytes, 0u);
  EXPECT_EQ(d.memory_total_bytes, 81559 * kMiB);
  EXPECT_EQ(d.busy_percent, 0.0);
  EXPECT_EQ(d.ecc_uncorrected, 0);
  EXPECT_EQ(d.driver_version, "590.48.01");
  ASSERT_TRUE(d.processes);
  EXPECT_TRUE(d.processes->empty());  // "No running processes found"
}

TEST(TelemetryNvidiaSmi, DefaultTableWithMigDevices) {
  const auto s = read_sample("nvidia-smi/default-table-h100-mig-idle.txt");
  ASSERT_EQ(s.devices.size(), 1u);  // the MIG rows are not GPUs
  const auto& d = s.devices[0];
  EXPECT_EQ(d.temperature_c, 42.0);
  EXPECT_EQ(d.power_w, 98.0);
  EXPECT_EQ(d.memory_used_bytes, 59 * kMiB);
  EXPECT_FALSE(d.busy_percent);  // N/A under MIG
  EXPECT_TRUE(has_warning(s, "MIG is on (4 MIG devices listed)"));
}

TEST(TelemetryNvidiaSmi, DmonKeepsTheLastSample) {
  const auto s = read_sample("nvidia-smi/dmon-h100-load.txt");
  EXPECT_EQ(s.format, "nvidia-smi dmon");
  ASSERT_EQ(s.devices.size(), 1u);
  const auto& d = s.devices[0];
  EXPECT_EQ(d.power_w, 636.0);
  EXPECT_EQ(d.temperature_c, 65.0);
  EXPECT_EQ(d.busy_percent, 100.0);
  EXPECT_EQ(d.mclk_mhz, 2619);
  EXPECT_EQ(d.sclk_mhz, 1980);
  EXPECT_TRUE(has_warning(s, "5 samples of GPU 0"));
}

TEST(TelemetryNvidiaSmi, QueryIdle) {
  const auto s = read_sample("nvidia-smi/q-h100-80gb-idle.txt");
  EXPECT_EQ(s.format, "nvidia-smi -q");
  ASSERT_EQ(s.devices.size(), 1u);
  const auto& d = s.devices[0];
  EXPECT_EQ(d.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d.serial, "0000000000000");
  EXPECT_EQ(d.uuid, "GPU-00000000-0000-0000-0000-000000000000");
  EXPECT_EQ(d.bus_id, "0000:00:09.0");
  EXPECT_EQ(d.device_id, "0x2330");  // Device Id 0x233010DE
  EXPECT_EQ(d.pcie_gen, 5);
  EXPECT_EQ(d.pcie_gen_max, 5);
  EXPECT_EQ(d.pcie_width, 16);  // "16x"
  EXPECT_EQ(d.pcie_width_max, 16);
  EXPECT_EQ(d.memory_total_bytes, 81559 * kMiB);
  EXPECT_EQ(d.memory_used_bytes, 0u);
  EXPECT_EQ(d.memory_available_bytes, 81081 * kMiB);
  EXPECT_EQ(d.busy_percent, 0.0);
  EXPECT_EQ(d.temperature_c, 41.0);
  EXPECT_EQ(d.power_w, 69.85);
  EXPECT_EQ(d.power_cap_w, 700.0);
  EXPECT_EQ(d.sclk_mhz, 345);
  EXPECT_EQ(d.mclk_mhz, 2619);
  EXPECT_EQ(d.sclk_max_mhz, 1980);
  EXPECT_EQ(d.mclk_max_mhz, 2619);
  EXPECT_EQ(d.ecc_corrected, 0);
  EXPECT_EQ(d.ecc_uncorrected, 0);
  EXPECT_EQ(d.driver_version, "590.48.01");
  EXPECT_EQ(d.vendor, Vendor::nvidia);
  ASSERT_TRUE(d.processes);
  EXPECT_TRUE(d.processes->empty());  // "Processes : None"
  EXPECT_EQ(d.sources.at(Field::power_w), SourceKind::nvidia_smi);
}

TEST(TelemetryNvidiaSmi, QueryUnderLoadWithProcesses) {
  const auto s = read_sample("nvidia-smi/q-h100-80gb-load.txt");
  ASSERT_EQ(s.devices.size(), 1u);
  const auto& d = s.devices[0];
  EXPECT_EQ(d.memory_used_bytes, 19818 * kMiB);
  EXPECT_EQ(d.busy_percent, 100.0);
  EXPECT_EQ(d.temperature_c, 59.0);
  EXPECT_EQ(d.power_w, 629.45);
  EXPECT_EQ(d.sclk_mhz, 1980);
  ASSERT_TRUE(d.processes);
  ASSERT_EQ(d.processes->size(), 3u);
  EXPECT_EQ((*d.processes)[0].pid, 11327);
  EXPECT_EQ((*d.processes)[0].name, "/root/tools/memhog");
  EXPECT_EQ((*d.processes)[0].memory_bytes, 2566 * kMiB);
  EXPECT_EQ((*d.processes)[1].memory_bytes, 1542 * kMiB);
  EXPECT_EQ((*d.processes)[2].pid, 11345);
  EXPECT_EQ((*d.processes)[2].name, "./gpu_burn");
  EXPECT_EQ((*d.processes)[2].memory_bytes, 15690 * kMiB);
}

TEST(TelemetryNvidiaSmi, QueryWithMigDevices) {
  const auto s = read_sample("nvidia-smi/q-h100-mig-idle.txt");
  ASSERT_EQ(s.devices.size(), 1u);
  const auto& d = s.devices[0];
  EXPECT_FALSE(d.busy_percent);  // Utilization GPU: N/A
  EXPECT_EQ(d.memory_used_bytes, 59 * kMiB);
  EXPECT_EQ(d.temperature_c, 42.0);
  EXPECT_EQ(d.power_w, 71.27);
  EXPECT_TRUE(has_warning(s, "MIG on with 4 MIG devices"));
}

TEST(TelemetryNvidiaSmi, QueryGpuCsvWithUnitsH100) {
  const auto s = read_sample("nvidia-smi/query-gpu-csv-allfields-h100-idle.txt");
  EXPECT_EQ(s.format, "nvidia-smi --query-gpu csv");
  ASSERT_EQ(s.devices.size(), 1u);
  const auto& d = s.devices[0];
  EXPECT_EQ(d.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(d.bus_id, "0000:00:09.0");
  EXPECT_EQ(d.serial, "0000000000000");
  EXPECT_EQ(d.device_id, "0x2330");
  EXPECT_EQ(d.driver_version, "590.48.01");
  EXPECT_EQ(d.temperature_c, 41.0);
  EXPECT_EQ(d.power_w, 69.85);
  EXPECT_EQ(d.power_cap_w, 700.0);
  EXPECT_EQ(d.busy_percent, 0.0);
  EXPECT_EQ(d.memory_total_bytes, 81559 * kMiB);
  EXPECT_EQ(d.memory_used_bytes, 0u);
  EXPECT_EQ(d.memory_available_bytes, 81081 * kMiB);
  EXPECT_EQ(d.sclk_mhz, 345);
  EXPECT_EQ(d.mclk_mhz, 2619);
  EXPECT_EQ(d.sclk_max_mhz, 1980);
  EXPECT_EQ(d.mclk_max_mhz, 2619);
  EXPECT_EQ(d.pcie_gen, 5);
  EXPECT_EQ(d.pcie_gen_max, 5);
  EXPECT_EQ(d.pcie_width, 16);
  EXPECT_EQ(d.ecc_corrected, 0);
  EXPECT_EQ(d.ecc_uncorrected, 0);
  EXPECT_EQ(d.arch, "sm_90");  // compute_cap 9.0
}

TEST(TelemetryNvidiaSmi, QueryGpuCsvL40s) {
  const auto s = read_sample("nvidia-smi/query-gpu-csv-allfields-l40s-idle.txt");
  ASSERT_EQ(s.devices.size(), 1u);
  const auto& d = s.devices[0];
  EXPECT_EQ(d.name, "NVIDIA L40S");
  EXPECT_EQ(d.bus_id, "0000:01:00.0");
  EXPECT_EQ(d.device_id, "0x26b9");
  EXPECT_EQ(d.driver_version, "595.80");
  EXPECT_EQ(d.temperature_c, 63.0);
  EXPECT_EQ(d.power_w, 144.97);
  EXPECT_EQ(d.power_cap_w, 350.0);
  EXPECT_EQ(d.busy_percent, 100.0);
  EXPECT_EQ(d.memory_total_bytes, 46068 * kMiB);
  EXPECT_EQ(d.sclk_mhz, 2520);
  EXPECT_EQ(d.mclk_mhz, 9001);
  EXPECT_EQ(d.pcie_gen, 4);
  EXPECT_EQ(d.pcie_width, 16);
  EXPECT_EQ(d.arch, "sm_89");
}

TEST(TelemetryNvidiaSmi, QueryGpuCsvWithoutHeaderTakesTheFieldsFromTheCommand) {
  const std::string text =
      "$ nvidia-smi --query-gpu=index,name,temperature.gpu,memory.used --format=csv,noheader,nounits\n"
      "0, NVIDIA H200, 38, 1024\n"
      "1, NVIDIA H200, 40, 0\n";
  auto s = read_capture_text(text, "paste");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->format, "nvidia-smi --query-gpu csv");
  ASSERT_EQ(s->devices.size(), 2u);
  EXPECT_EQ(s->devices[1].name, "NVIDIA H200");
  EXPECT_EQ(s->devices[1].temperature_c, 40.0);
  EXPECT_EQ(s->devices[0].memory_used_bytes, 1024 * kMiB);  // nounits: MiB, nvidia-smi's unit for memory
}

TEST(TelemetryNvidiaSmi, TopoTabsWithNics) {
  const auto s = read_sample("nvidia-smi/topo-m-8x4090-pcie-sys-2nic-tabs.txt");
  EXPECT_EQ(s.format, "nvidia-smi topo -m");
  ASSERT_EQ(s.devices.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(s.devices[i].numa_node, i < 4 ? 0 : 1);
    EXPECT_EQ(s.devices[i].cpu_affinity, i < 4 ? "0-55,112-167" : "56-111,168-223");
  }
  EXPECT_EQ(s.topology.links.size(), 45u);  // every pair of 8 GPUs and 2 NICs
  EXPECT_EQ(link_type(s, "GPU0", "GPU1"), "SYS");
  EXPECT_EQ(link_type(s, "GPU6", "NIC0"), "PHB");
  EXPECT_EQ(link_type(s, "NIC0", "NIC1"), "PIX");
}

TEST(TelemetryNvidiaSmi, TopoNvlinkSpaces) {
  const auto s = read_sample("nvidia-smi/topo-m-8xh100-nvlink-nv18-no-nic.txt");
  ASSERT_EQ(s.devices.size(), 8u);
  EXPECT_EQ(s.devices[0].cpu_affinity, "0-47,96-143");
  EXPECT_EQ(s.devices[7].cpu_affinity, "48-95,144-191");
  EXPECT_EQ(s.devices[7].numa_node, 1);
  EXPECT_EQ(s.topology.links.size(), 28u);
  EXPECT_TRUE(std::all_of(s.topology.links.begin(), s.topology.links.end(),
                          [](const TopoLink& l) { return l.type == "NV18"; }));
}

TEST(TelemetryNvidiaSmi, TopoCutShort) {
  const auto s = read_sample("nvidia-smi/topo-m-dgx-a100-nv12-12nic-partial.txt");
  ASSERT_EQ(s.devices.size(), 5u);  // GPU0..GPU4; the paste ends inside GPU4's row
  EXPECT_EQ(s.devices[0].numa_node, 3);
  EXPECT_EQ(s.devices[0].cpu_affinity, "48-63,176-191");
  EXPECT_EQ(s.devices[2].numa_node, 1);
  EXPECT_EQ(s.devices[2].cpu_affinity, "16-31,144-159");
  EXPECT_FALSE(s.devices[4].numa_node);
  EXPECT_FALSE(s.devices[4].cpu_affinity);
  EXPECT_EQ(link_type(s, "GPU0", "GPU1"), "NV12");
  EXPECT_EQ(link_type(s, "GPU0", "NIC0"), "PXB");
  EXPECT_EQ(link_type(s, "GPU4", "NIC6"), "PXB");
  EXPECT_TRUE(has_warning(s, "GPU4 is cut short"));
}

TEST(TelemetryNvidiaSmi, TopoSingleGpuWithAnsiHeader) {
  const auto s = read_sample("nvidia-smi/topo-m-h100-single-gpu-ansi.txt");
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].numa_node, 0);
  EXPECT_EQ(s.devices[0].cpu_affinity, "0-19");
  EXPECT_TRUE(s.topology.links.empty());
}

}  // namespace
}  // namespace dcukit::telemetry
