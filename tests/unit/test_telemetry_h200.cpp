// nvidia-smi's outputs captured on the project's H200 (driver 580) under load: the four views of
// the same moment agree with each other once read.
#include <gtest/gtest.h>

#include "test_telemetry_helpers.h"

namespace dcukit::telemetry {
namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;

Snapshot read_h200(const std::string& name) {
  auto s = read_capture_file(testutil::telemetry_fixture("h200/" + name));
  if (!s) ADD_FAILURE() << s.error().message;
  return s ? *s : Snapshot{};
}

TEST(TelemetryH200, QueryUnderLoad) {
  const auto s = read_h200("q.txt");
  ASSERT_EQ(s.devices.size(), 1u);
  const auto& d = s.devices[0];
  EXPECT_EQ(d.name, "NVIDIA H200");
  EXPECT_EQ(d.bus_id, "0000:00:06.0");
  EXPECT_EQ(d.device_id, "0x2335");
  EXPECT_EQ(d.temperature_c, 53.0);
  EXPECT_EQ(d.power_w, 413.02);
  EXPECT_EQ(d.power_cap_w, 700.0);
  EXPECT_EQ(d.busy_percent, 100.0);
  EXPECT_EQ(d.memory_total_bytes, 143771 * kMiB);
  EXPECT_EQ(d.memory_used_bytes, 7629 * kMiB);
  EXPECT_EQ(d.sclk_mhz, 1980);
  EXPECT_EQ(d.mclk_mhz, 3201);
  EXPECT_EQ(d.pcie_gen, 5);
  EXPECT_EQ(d.pcie_width, 16);
  EXPECT_EQ(d.ecc_corrected, 0);
  EXPECT_EQ(d.ecc_uncorrected, 0);
  EXPECT_EQ(d.driver_version, "580.159.04");
  ASSERT_TRUE(d.processes);
  ASSERT_EQ(d.processes->size(), 1u);
  EXPECT_EQ((*d.processes)[0].pid, 446);
  EXPECT_EQ((*d.processes)[0].name, "python3");
  EXPECT_EQ((*d.processes)[0].memory_bytes, 7620 * kMiB);
}

TEST(TelemetryH200, TableAndCsvAgreeWithQuery) {
  const auto t = read_h200("table.txt");
  const auto c = read_h200("csv.txt");
  ASSERT_EQ(t.devices.size(), 1u);
  ASSERT_EQ(c.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].bus_id, "0000:00:06.0");
  EXPECT_EQ(t.devices[0].power_w, 412.0);  // the table rounds to whole watts
  EXPECT_EQ(t.devices[0].memory_used_bytes, 7629 * kMiB);
  EXPECT_EQ(t.devices[0].driver_version, "580.159.04");
  ASSERT_TRUE(t.devices[0].processes);
  EXPECT_EQ((*t.devices[0].processes)[0].pid, 446);
  EXPECT_EQ((*t.devices[0].processes)[0].memory_bytes, 7620 * kMiB);
  EXPECT_EQ(c.devices[0].power_w, 413.05);
  EXPECT_EQ(c.devices[0].mclk_max_mhz, 3201);
  EXPECT_EQ(c.devices[0].arch, "sm_90");
  EXPECT_EQ(c.devices[0].memory_total_bytes, 143771 * kMiB);
}

TEST(TelemetryH200, TopoOfOneGpu) {
  const auto s = read_h200("topo.txt");
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].numa_node, 0);
  EXPECT_EQ(s.devices[0].cpu_affinity, "0-15");
}

}  // namespace
}  // namespace dcukit::telemetry
