// Every rocm-smi capture of ../shared/samples/rocm-smi, with figures read by hand from each file.
#include <gtest/gtest.h>

#include "test_telemetry_helpers.h"

namespace dcukit::telemetry {
namespace {

using testutil::has_warning;
using testutil::read_sample;

TEST(TelemetryRocmSmi, AllJsonMi250) {
  const auto s = read_sample("rocm-smi/a-json-mi250-rocm5-wandb-fixture.txt");
  EXPECT_EQ(s.format, "rocm-smi/hy-smi --json");
  ASSERT_EQ(s.devices.size(), 2u);
  const auto& d = s.devices[0];
  EXPECT_EQ(d.name, "AMD INSTINCT MI250 (MCM) OAM AC MBA");
  EXPECT_EQ(d.device_id, "0x740c");
  EXPECT_EQ(d.uuid, "0x719d230578348e8c");
  EXPECT_EQ(d.temperature_c, 32.0);  // edge
  EXPECT_EQ(d.power_w, 89.0);
  EXPECT_EQ(d.power_cap_w, 560.0);
  EXPECT_EQ(d.busy_percent, 10.0);
  EXPECT_EQ(d.sclk_mhz, 800);       // "(800Mhz)"
  EXPECT_EQ(d.mclk_mhz, 1600);      // "(1600Mhz)"
  EXPECT_EQ(d.sclk_max_mhz, 1700);  // "500Mhz - 1700Mhz"
  EXPECT_EQ(d.mclk_max_mhz, 1600);
  EXPECT_EQ(d.serial, "PCB052715-0065");
  EXPECT_EQ(d.bus_id, "0000:2f:00.0");
  EXPECT_EQ(d.driver_version, "6.2.4");  // from the "system" object
  EXPECT_EQ(d.vendor, Vendor::amd);
  EXPECT_EQ(d.sources.at(Field::sclk_mhz), SourceKind::rocm_smi);
  EXPECT_EQ(s.devices[1].busy_percent, 20.0);
}

TEST(TelemetryRocmSmi, IdWithTabsAndPartitionNA) {
  const auto s = read_sample("rocm-smi/i-mi300x-tabs-na-partial.txt");
  ASSERT_EQ(s.devices.size(), 6u);
  for (const auto& d : s.devices) {
    EXPECT_EQ(d.name, "AMD Instinct MI300X");
    EXPECT_EQ(d.vendor, Vendor::amd);
    EXPECT_EQ(d.driver_version, "6.10.5");  // amd-smi version's "amdgpu version" above the table
  }
  EXPECT_EQ(s.devices[0].device_id, "0x74a1");
  EXPECT_FALSE(s.devices[1].device_id);  // N/A on every odd partition
  EXPECT_EQ(s.devices[4].device_id, "0x74a1");
}

TEST(TelemetryRocmSmi, JsonInBytesOfAConsumerCard) {
  const auto s = read_sample("rocm-smi/json-rx7800xt-rocm6.2.4-gpustack.txt");
  ASSERT_EQ(s.devices.size(), 1u);
  const auto& d = s.devices[0];
  EXPECT_EQ(d.name, "Navi 32 [Radeon RX 7700 XT / 7800 XT]");
  EXPECT_EQ(d.device_id, "0x747e");
  EXPECT_EQ(d.uuid, "0x5c88007d760374f3");
  EXPECT_EQ(d.temperature_c, 45.0);
  EXPECT_EQ(d.power_w, 53.0);
  EXPECT_EQ(d.busy_percent, 100.0);
  EXPECT_FALSE(d.serial);  // "N/A"
  EXPECT_EQ(d.memory_total_bytes, 17163091968u);
  EXPECT_EQ(d.memory_used_bytes, 11615076352u);
  EXPECT_EQ(d.memory_used_percent, 67.7);
  EXPECT_EQ(d.arch, "gfx1101");  // "gfx11001" as rocm-smi prints it
  EXPECT_EQ(d.vendor, Vendor::amd);
}

TEST(TelemetryRocmSmi, ConciseTableAllNAWithErrorsBeforeTheBanner) {
  const auto s = read_sample("rocm-smi/plain-2gpu-expected-integer-errors-na.txt");
  EXPECT_EQ(s.format, "rocm-smi table");
  ASSERT_EQ(s.devices.size(), 2u);
  for (const auto& d : s.devices) {
    EXPECT_EQ(d.device_id, "0x744a");
    EXPECT_FALSE(d.temperature_c);
    EXPECT_FALSE(d.power_w);
    EXPECT_FALSE(d.power_cap_w);
    EXPECT_FALSE(d.sclk_mhz);
    EXPECT_EQ(d.busy_percent, 0.0);
    EXPECT_EQ(d.memory_used_percent, 0.0);
  }
  EXPECT_TRUE(has_warning(s, "Expected integer value from monitor, but got \"\""));
}

TEST(TelemetryRocmSmi, ConciseTableWithDegreeSign) {
  const auto s = read_sample("rocm-smi/plain-4xmi210-degree-sign.txt");
  ASSERT_EQ(s.devices.size(), 4u);
  const auto& d = s.devices[0];
  EXPECT_EQ(d.temperature_c, 33.0);  // "33.0°C"
  EXPECT_EQ(d.power_w, 42.0);
  EXPECT_EQ(d.power_cap_w, 300.0);
  EXPECT_EQ(d.sclk_mhz, 800);
  EXPECT_EQ(d.mclk_mhz, 1600);
  EXPECT_EQ(d.device_id, "0x740f");  // "0x740f,   12261": DID and GUID in one cell
  EXPECT_EQ(s.devices[3].temperature_c, 38.0);
  EXPECT_EQ(s.devices[3].power_w, 41.0);
  EXPECT_EQ(s.devices[3].device_id, "0x740f");
}

TEST(TelemetryRocmSmi, ConciseTableWithItalicSubheaderAndPartitions) {
  const auto s = read_sample("rocm-smi/plain-8xmi300x-ansi-italic-subheader-stuck-vram.txt");
  ASSERT_EQ(s.devices.size(), 8u);
  const auto& d = s.devices[1];
  EXPECT_EQ(d.temperature_c, 40.0);  // junction, as the sub-header says
  EXPECT_EQ(d.power_w, 138.0);
  EXPECT_EQ(d.power_cap_w, 750.0);
  EXPECT_EQ(d.memory_used_percent, 75.0);
  EXPECT_EQ(d.sclk_mhz, 131);
  EXPECT_EQ(d.mclk_mhz, 900);
  EXPECT_EQ(d.device_id, "0x74a1");
  EXPECT_EQ(s.devices[5].temperature_c, 42.0);
  EXPECT_EQ(s.devices[5].power_w, 139.0);
  EXPECT_EQ(s.devices[5].memory_used_percent, 1.0);
  EXPECT_TRUE(s.warnings.empty());
}

TEST(TelemetryRocmSmi, ConciseTableWithNoneAndUnsupported) {
  const auto s = read_sample("rocm-smi/plain-dgpu-plus-apu-exception-mapat-none-unsupported.txt");
  ASSERT_EQ(s.devices.size(), 2u);
  const auto& g = s.devices[0];
  EXPECT_EQ(g.temperature_c, 46.0);
  EXPECT_EQ(g.power_w, 7.0);
  EXPECT_EQ(g.power_cap_w, 130.0);
  EXPECT_EQ(g.sclk_mhz, 0);
  EXPECT_EQ(g.mclk_mhz, 96);
  EXPECT_EQ(g.device_id, "0x73df");
  const auto& apu = s.devices[1];
  EXPECT_EQ(apu.temperature_c, 54.0);
  EXPECT_EQ(apu.power_w, 29.0);
  EXPECT_FALSE(apu.power_cap_w);  // "Unsupported"
  EXPECT_FALSE(apu.sclk_mhz);     // "None"
  EXPECT_EQ(apu.mclk_mhz, 1600);
  EXPECT_EQ(apu.memory_used_percent, 95.0);
  EXPECT_EQ(apu.busy_percent, 1.0);
  EXPECT_EQ(apu.device_id, "0x1638");
  EXPECT_TRUE(has_warning(s, "Exception caught: map::at"));
}

TEST(TelemetryRocmSmi, ProductNameJsonWithKfdGfxVersion) {
  const auto s = read_sample("rocm-smi/showproductname-json-mi250x.txt");
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].name, "AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2");
  EXPECT_EQ(s.devices[0].arch, "gfx90a");  // printed "gfx9010"
  EXPECT_EQ(s.devices[0].vendor, Vendor::amd);
}

TEST(TelemetryRocmSmi, ShowTopoMatricesAndNuma) {
  const auto s = read_sample("rocm-smi/showtopo-8xmi308x-xgmi-lowpower-warning.txt");
  ASSERT_EQ(s.devices.size(), 8u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(s.devices[i].numa_node, i < 4 ? 0 : 1);
  ASSERT_EQ(s.topology.links.size(), 28u);  // every pair of 8 GPUs
  for (const auto& l : s.topology.links) {
    EXPECT_EQ(l.type, "XGMI") << l.a << "-" << l.b;
    EXPECT_EQ(l.weight, 15);
    EXPECT_EQ(l.hops, 1);
  }
  EXPECT_EQ(s.topology.links[0].a, "GPU0");
  EXPECT_EQ(s.topology.links[0].b, "GPU1");
  EXPECT_TRUE(has_warning(s, "low-power state"));
}

TEST(TelemetryRocmSmi, UseAndVramInBytes) {
  const auto s = read_sample("rocm-smi/u-showmeminfo-vram-8xmi308x-bytes.txt");
  ASSERT_EQ(s.devices.size(), 8u);
  for (const auto& d : s.devices) {
    EXPECT_EQ(d.busy_percent, 0.0);
    EXPECT_EQ(d.memory_total_bytes, 206141652992u);
  }
  EXPECT_EQ(s.devices[0].memory_used_bytes, 297611264u);
  EXPECT_EQ(s.devices[1].memory_used_bytes, 297623552u);
}

}  // namespace
}  // namespace dcukit::telemetry
