// ../shared/samples/dcu-misc: what DCU tickets and bundles hold besides the SMI tools (a derived
// detector's JSON, lspci, lsmod, sysfs reads, pip list, quoted version strings, notes).
#include <gtest/gtest.h>

#include <set>

#include "test_telemetry_helpers.h"

namespace dcukit::telemetry {
namespace {

using testutil::has_fact;
using testutil::has_warning;
using testutil::read_sample;

constexpr std::uint64_t kMiB = 1024 * 1024;

TEST(TelemetryDcuMisc, VersionStringsAreFactsNotDevices) {
  const auto s = read_sample("dcu-misc/das-dtk-version-strings-quoted.txt");
  EXPECT_EQ(s.format, "version strings");
  EXPECT_TRUE(s.devices.empty());
  EXPECT_TRUE(has_fact(s, "version_string", "torch-2.7.1+das.opt1.dtk2604-cp310-cp310-manylinux_2_28_x86_64.whl"));
  EXPECT_TRUE(has_fact(s, "version_string", "rock-6.3.27-V1.2.5.run"));
  EXPECT_TRUE(has_warning(s, "no device state"));
}

TEST(TelemetryDcuMisc, GpustackDetectEightCards) {
  const auto s = read_sample("dcu-misc/gpustack-runtime-detect-8xk100ai-dtk24.04.3-derived.txt");
  EXPECT_EQ(s.format, "gpustack-runtime json");
  ASSERT_EQ(s.devices.size(), 8u);
  const auto& d = s.devices[0];
  EXPECT_EQ(d.name, "K100_AI");
  EXPECT_EQ(d.uuid, "GPU-7100f95cee823041");
  EXPECT_EQ(d.arch, "gfx928");
  EXPECT_EQ(d.compute_units, 120);
  EXPECT_EQ(d.memory_total_bytes, 65520 * kMiB);
  EXPECT_EQ(d.memory_used_bytes, 2 * kMiB);
  EXPECT_EQ(d.temperature_c, 60.0);
  EXPECT_EQ(d.power_cap_w, 400.0);
  EXPECT_EQ(d.power_w, 104.0);
  EXPECT_EQ(d.bus_id, "0000:07:00.0");
  EXPECT_EQ(d.numa_node, 0);
  EXPECT_EQ(d.vendor, Vendor::hygon);
  EXPECT_FALSE(d.driver_version);  // null: the detector could not read /sys/module/hy*cu/version
  EXPECT_EQ(d.sources.at(Field::name), SourceKind::gpustack_runtime);
  EXPECT_EQ(s.devices[7].bus_id, "0000:2c:00.0");
  EXPECT_EQ(s.devices[7].power_w, 108.0);
}

TEST(TelemetryDcuMisc, GpustackDetectCutShortWithHycuDriver) {
  const auto s = read_sample("dcu-misc/gpustack-runtime-detect-k100ai-hycu-6.3.28-dtk25.04.4-partial.txt");
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_EQ(s.devices[0].driver_version, "6.3.28-V1.3.0b");
  EXPECT_EQ(s.devices[0].bus_id, "0000:06:00.0");
  EXPECT_EQ(s.devices[0].temperature_c, 54.0);
  EXPECT_EQ(s.devices[0].power_w, 108.0);
  EXPECT_EQ(s.devices[1].uuid, "GPU-7137d9dc126a5061");
  EXPECT_EQ(s.devices[1].arch, "gfx928");
  EXPECT_FALSE(s.devices[1].memory_total_bytes);  // the excerpt ends before it
  EXPECT_TRUE(has_warning(s, "cut short"));
}

TEST(TelemetryDcuMisc, LspciAndLsmodOfBothDriverGenerations) {
  const auto s = read_sample("dcu-misc/lsmod-hydcu-vs-hycu-and-lspci-k100ai.txt");
  EXPECT_EQ(s.format, "lspci/lsmod");
  ASSERT_EQ(s.devices.size(), 8u);
  EXPECT_EQ(s.devices[0].bus_id, "0000:07:00.0");
  EXPECT_EQ(s.devices[0].name, "Chengdu C-3000 IC Design Co., Ltd. KONGMING");
  EXPECT_EQ(s.devices[0].vendor, Vendor::hygon);
  EXPECT_EQ(s.devices[7].bus_id, "0000:2c:00.0");
  EXPECT_TRUE(has_fact(s, "kernel_module", "hydcu"));
  EXPECT_TRUE(has_fact(s, "kernel_module", "hycu"));
}

TEST(TelemetryDcuMisc, LspciTreeKeepsTheDcusAndNotTheSwitch) {
  const auto s = read_sample("dcu-misc/lspci-tree-c3000-device-6430-a110-excerpt.txt");
  ASSERT_EQ(s.devices.size(), 8u);
  std::set<std::string> buses;
  for (const auto& d : s.devices) {
    EXPECT_EQ(d.device_id, "0x6430");
    EXPECT_EQ(d.vendor, Vendor::hygon);
    buses.insert(d.bus_id.value_or(""));
  }
  // The same eight as hy-smi --showbus on that host.
  EXPECT_EQ(buses, (std::set<std::string>{"0000:05:00.0", "0000:2b:00.0", "0000:14:00.0", "0000:1a:00.0",
                                          "0000:86:00.0", "0000:b8:00.0", "0000:c0:00.0", "0000:9e:00.0"}));
  EXPECT_TRUE(has_warning(s, "7 function(s) of 'Chengdu C-3000 IC Design Co., Ltd. Device a110' are not known DCUs"));
}

TEST(TelemetryDcuMisc, PipListPackagesAreFacts) {
  const auto s = read_sample("dcu-misc/pip-list-das-dtk2604-version-strings-excerpt.txt");
  EXPECT_EQ(s.format, "pip list");
  EXPECT_TRUE(s.devices.empty());
  EXPECT_EQ(s.facts.size(), 24u);
  EXPECT_TRUE(has_fact(s, "python_package", "torch 2.9.0+das.opt1.dtk2604.2604281634.ged188f"));
  EXPECT_TRUE(has_fact(s, "python_package", "nvidia-ml-py 13.595.45"));
  EXPECT_TRUE(has_warning(s, "no device state"));
}

TEST(TelemetryDcuMisc, NotesThatSayTheyAreNotOutput) {
  const auto s = read_sample("dcu-misc/secondary-claims-hy-smi-behaviour-NOT-OUTPUT.txt");
  EXPECT_EQ(s.format, "notes");
  EXPECT_TRUE(s.devices.empty());  // despite the JSON fragment quoted inside
  EXPECT_TRUE(has_warning(s, "holds no device state: its header says it is not tool output"));
}

TEST(TelemetryDcuMisc, SysfsTranscript) {
  const auto s = read_sample("dcu-misc/sysfs-values-card1-hygon-dcu-exporter-notes.txt");
  EXPECT_EQ(s.format, "sysfs transcript");
  ASSERT_EQ(s.devices.size(), 1u);
  const auto& d = s.devices[0];
  EXPECT_EQ(d.busy_percent, 100.0);
  EXPECT_EQ(d.temperature_c, 57.0);  // temp1_input 57000 millidegrees
  EXPECT_EQ(d.serial, "TRFU340004050701");
  EXPECT_FALSE(d.power_w);  // chip_power_average's unit is not documented
  EXPECT_EQ(d.sources.at(Field::busy_percent), SourceKind::sysfs);
  EXPECT_TRUE(has_warning(s, "chip_power_average = 183"));
  EXPECT_TRUE(has_warning(s, "card1 is listed as device 0"));
}

}  // namespace
}  // namespace dcukit::telemetry
