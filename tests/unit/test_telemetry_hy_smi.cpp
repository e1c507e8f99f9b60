// Every hy-smi capture of ../shared/samples/hy-smi, with figures read by hand from each file.
#include <gtest/gtest.h>

#include "test_telemetry_helpers.h"

namespace dcukit::telemetry {
namespace {

using testutil::has_warning;
using testutil::read_sample;

constexpr std::uint64_t kMiB = 1024 * 1024;

void expect_row(const DeviceState& d, double temp, double power, double cap, double vram, double busy) {
  EXPECT_EQ(d.temperature_c, temp) << "GPU " << d.index;
  EXPECT_EQ(d.power_w, power) << "GPU " << d.index;
  EXPECT_EQ(d.power_cap_w, cap) << "GPU " << d.index;
  EXPECT_EQ(d.memory_used_percent, vram) << "GPU " << d.index;
  EXPECT_EQ(d.busy_percent, busy) << "GPU " << d.index;
  EXPECT_EQ(d.vendor, Vendor::hygon);
  EXPECT_EQ(d.sources.at(Field::temperature_c), SourceKind::hy_smi);
  EXPECT_FALSE(d.name);  // the table has no name column
}

TEST(TelemetryHySmi, DcuEraTableWithModeNA) {
  const auto s = read_sample("hy-smi/plain-dcu-4card-300w-mode-na-dtk24.04.txt");
  EXPECT_EQ(s.format, "hy-smi table");
  ASSERT_EQ(s.devices.size(), 4u);
  expect_row(s.devices[0], 49.0, 25.0, 300.0, 0, 0);
  expect_row(s.devices[2], 47.0, 22.0, 300.0, 0, 0);
  expect_row(s.devices[3], 47.0, 24.0, 300.0, 0, 0);
  EXPECT_TRUE(s.warnings.empty());
}

TEST(TelemetryHySmi, DcuEraTableK100Ai) {
  const auto s = read_sample("hy-smi/plain-dcu-4card-800w-k100ai-dtk24.04.1-paddlenlp.txt");
  ASSERT_EQ(s.devices.size(), 4u);
  expect_row(s.devices[0], 49.0, 118.0, 800.0, 0, 0);
  expect_row(s.devices[2], 53.0, 116.0, 800.0, 0, 0);
  expect_row(s.devices[3], 49.0, 138.0, 800.0, 0, 0);
}

TEST(TelemetryHySmi, DcuEraTableUnderLoadWithImplausiblePower) {
  // As captured: 8.0 W on every card at 17-74 % busy. Read as printed, not corrected.
  const auto s = read_sample("hy-smi/plain-dcu-8card-600w-manual-k100ai-dtk24.04.3.txt");
  ASSERT_EQ(s.devices.size(), 8u);
  expect_row(s.devices[0], 67.0, 8.0, 600.0, 87, 74);
  expect_row(s.devices[5], 73.0, 8.0, 600.0, 85, 17);
  expect_row(s.devices[7], 68.0, 8.0, 600.0, 85, 46);
}

TEST(TelemetryHySmi, HcuEraTableWithDecEncOneCard) {
  const auto s = read_sample("hy-smi/plain-hcu-1card-400w-dec-enc-mixed-host.txt");
  ASSERT_EQ(s.devices.size(), 1u);
  expect_row(s.devices[0], 46.0, 51.0, 400.0, 0, 0.0);
}

TEST(TelemetryHySmi, HcuEraTableWithDecEnc) {
  const auto s = read_sample("hy-smi/plain-hcu-8card-800w-dec-enc.txt");
  ASSERT_EQ(s.devices.size(), 8u);
  expect_row(s.devices[0], 40.0, 157.0, 800.0, 0, 0.0);
  expect_row(s.devices[3], 37.0, 161.0, 800.0, 0, 0.0);
  expect_row(s.devices[7], 36.0, 161.0, 800.0, 0, 0.0);
}

TEST(TelemetryHySmi, IndentedTableWithFullVram) {
  const auto s = read_sample("hy-smi/plain-hcu-8card-800w-partial-vram-busy-indented.txt");
  ASSERT_EQ(s.devices.size(), 8u);
  expect_row(s.devices[1], 42.0, 134.0, 800.0, 99, 0.0);
  expect_row(s.devices[3], 37.0, 133.0, 800.0, 100, 0.0);  // "100%" shifts the columns by one
  expect_row(s.devices[4], 43.0, 133.0, 800.0, 0, 0.0);
}

TEST(TelemetryHySmi, TableWithoutRuleBeforeEnd) {
  const auto s = read_sample("hy-smi/plain-hcu-8card-800w-training-load-a.txt");
  ASSERT_EQ(s.devices.size(), 8u);
  expect_row(s.devices[0], 55.0, 511.0, 800.0, 98, 100.0);
  expect_row(s.devices[6], 57.0, 521.0, 800.0, 98, 100.0);
  expect_row(s.devices[7], 60.0, 519.0, 800.0, 98, 100.0);
}

TEST(TelemetryHySmi, HcuEraTableWithoutDecEnc) {
  const auto s = read_sample("hy-smi/plain-hcu-8card-k100ai-400w-idle.txt");
  ASSERT_EQ(s.devices.size(), 8u);
  expect_row(s.devices[1], 61.0, 109.0, 400.0, 0, 0.0);
  expect_row(s.devices[4], 60.0, 118.0, 400.0, 0, 0.0);
  expect_row(s.devices[7], 58.0, 115.0, 400.0, 0, 0.0);
}

TEST(TelemetryHySmi, KubectlWarningBeforeTheTable) {
  const auto s = read_sample("hy-smi/plain-hcu-8card-k100ai-in-pod-vram90.txt");
  ASSERT_EQ(s.devices.size(), 8u);
  expect_row(s.devices[0], 59.0, 114.0, 400.0, 91, 0.0);
  expect_row(s.devices[2], 60.0, 105.0, 400.0, 90, 0.0);
  expect_row(s.devices[7], 58.0, 116.0, 400.0, 90, 0.0);
  EXPECT_TRUE(has_warning(s, "kubectl exec [POD] [COMMAND] is DEPRECATED"));
}

TEST(TelemetryHySmi, ShowBusWithSerialNA) {
  const auto s = read_sample("hy-smi/showbus-hcu-8card-sn-na.txt");
  ASSERT_EQ(s.devices.size(), 8u);
  EXPECT_EQ(s.devices[0].bus_id, "0000:05:00.0");
  EXPECT_EQ(s.devices[0].serial, "2500238601000586");
  EXPECT_EQ(s.devices[2].bus_id, "0000:14:00.0");
  EXPECT_FALSE(s.devices[2].serial);  // SN: N/A
  EXPECT_EQ(s.devices[4].bus_id, "0000:86:00.0");
  EXPECT_FALSE(s.devices[4].serial);
  EXPECT_EQ(s.devices[7].bus_id, "0000:9e:00.0");
  EXPECT_EQ(s.devices[7].serial, "2500238601000574");
  EXPECT_EQ(s.devices[7].vendor, Vendor::hygon);
  EXPECT_EQ(s.devices[7].sources.at(Field::bus_id), SourceKind::hy_smi);
}

TEST(TelemetryHySmi, ShowMemAvailable) {
  const auto s = read_sample("hy-smi/showmemavailable-hcu-8card-k100ai.txt");
  ASSERT_EQ(s.devices.size(), 8u);
  for (const auto& d : s.devices) EXPECT_EQ(d.memory_available_bytes, 65438 * kMiB);
}

TEST(TelemetryHySmi, ShowProductNameWithEmptySeries) {
  const auto s = read_sample("hy-smi/showproductname-empty-card-series-k100.txt");
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_FALSE(s.devices[0].name);  // "Card Series:" followed by padding only
  EXPECT_EQ(s.devices[0].vendor, Vendor::hygon);
}

TEST(TelemetryHySmi, ShowTopoNumaWithoutColon) {
  const auto s = read_sample("hy-smi/showtopo-numa-section-only-hcu-8card.txt");
  ASSERT_EQ(s.devices.size(), 8u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(s.devices[i].numa_node, i < 4 ? 0 : 1) << "HCU " << i;
}

TEST(TelemetryHySmi, AllViewWithElisions) {
  const auto s = read_sample("hy-smi/a-partial-productname-k100ai.txt");
  ASSERT_EQ(s.devices.size(), 8u);
  for (const auto& d : s.devices) {
    EXPECT_EQ(d.name, "K100_AI");
    EXPECT_EQ(d.vendor, Vendor::hygon);  // "Chengdu C-3000 IC Design Co., Ltd."
  }
  EXPECT_TRUE(s.warnings.empty());  // the author's "......" are not the tool's words
}

TEST(TelemetryHySmi, JsonCutShortInTheThirdCard) {
  const auto s = read_sample("hy-smi/json-k100ai-8card-partial-gpustack2032.txt");
  EXPECT_EQ(s.format, "rocm-smi/hy-smi --json");
  ASSERT_EQ(s.devices.size(), 3u);
  const auto& d = s.devices[0];
  EXPECT_EQ(d.name, "K100_AI");
  EXPECT_EQ(d.device_id, "0x6210");
  EXPECT_EQ(d.serial, "TRCW280005090201");
  EXPECT_EQ(d.uuid, "7137d9b2a08a4841");
  EXPECT_EQ(d.power_w, 77.0);
  EXPECT_EQ(d.temperature_c, 37.0);  // edge (junction reads 35.0)
  EXPECT_EQ(d.busy_percent, 0.0);
  EXPECT_EQ(d.memory_total_bytes, 65520 * kMiB);
  EXPECT_EQ(d.memory_used_bytes, 2 * kMiB);
  EXPECT_EQ(d.vendor, Vendor::hygon);
  EXPECT_EQ(d.sources.at(Field::power_w), SourceKind::hy_smi);
  EXPECT_EQ(s.devices[1].temperature_c, 39.0);
  EXPECT_EQ(s.devices[1].serial, "TRCW340004110601");
  EXPECT_EQ(s.devices[2].power_w, 74.0);
  EXPECT_EQ(s.devices[2].temperature_c, 37.0);
  EXPECT_FALSE(s.devices[2].memory_total_bytes);  // cut before it
  EXPECT_TRUE(has_warning(s, "cut short"));
}

TEST(TelemetryHySmi, JsonWithTheNewVendorString) {
  const auto s = read_sample("hy-smi/json-k100ai-c3000-vendor-partial-gpustack3257.txt");
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_EQ(s.devices[0].vendor, Vendor::hygon);  // "Chengdu C-3000 IC Design Co., Ltd."
  EXPECT_EQ(s.devices[0].serial, "TRCW340025090301");
  EXPECT_EQ(s.devices[0].temperature_c, 48.0);
  EXPECT_EQ(s.devices[0].power_w, 78.0);
  EXPECT_EQ(s.devices[1].temperature_c, 52.0);
  EXPECT_EQ(s.devices[1].power_w, 80.0);
  EXPECT_FALSE(s.devices[1].busy_percent);  // the paste ends inside its key
}

TEST(TelemetryHySmi, PrettyJsonWithEmptyKey) {
  const auto s = read_sample("hy-smi/json-pretty-dcu-gfx928-dtk24.04.3-gpustack-REDACTED.txt");
  ASSERT_EQ(s.devices.size(), 1u);
  const auto& d = s.devices[0];
  EXPECT_EQ(d.name, "DCU xxxx");
  EXPECT_EQ(d.serial, "TPXxxxx");
  EXPECT_EQ(d.uuid, "7100fa8866904061");
  EXPECT_EQ(d.power_w, 80.0);
  EXPECT_EQ(d.temperature_c, 41.0);
  EXPECT_EQ(d.busy_percent, 0.0);  // "DCU use (%)"
  EXPECT_EQ(d.memory_total_bytes, 65520 * kMiB);
  EXPECT_EQ(d.memory_used_bytes, 2 * kMiB);
  EXPECT_TRUE(s.warnings.empty());
}

TEST(TelemetryHySmi, JsonWithStderrAroundAndRepeatedEmptyKeys) {
  const auto s = read_sample("hy-smi/json-z100l-stderr-interleaved-dtk24.04.3.txt");
  ASSERT_EQ(s.devices.size(), 1u);
  const auto& d = s.devices[0];
  EXPECT_EQ(d.name, "Z100L");
  EXPECT_EQ(d.device_id, "0x55b7");
  EXPECT_EQ(d.serial, "TCUM640016050701");
  EXPECT_EQ(d.power_w, 38.0);
  EXPECT_EQ(d.temperature_c, 39.0);
  EXPECT_EQ(d.busy_percent, 0.0);
  EXPECT_EQ(d.memory_total_bytes, 32752 * kMiB);
  EXPECT_EQ(d.memory_used_bytes, 2 * kMiB);
  EXPECT_EQ(d.vendor, Vendor::hygon);
  EXPECT_TRUE(has_warning(s, "Error: Failed to show unique id: File read or write error."));
  EXPECT_TRUE(has_warning(s, "Warning: One or more commands failed"));
}

}  // namespace
}  // namespace dcukit::telemetry
