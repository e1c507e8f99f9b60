// Forms of the tools' output that ../shared/samples lacks, written here after the tools' sources
// and documentation: amd-smi metric --json as amdsmi_commands.py builds it, lspci -vvv, and
// rocm-smi 6.0's concise table with [Model : Revision].
#include <gtest/gtest.h>

#include "test_telemetry_helpers.h"

namespace dcukit::telemetry {
namespace {

using testutil::has_fact;

Snapshot read_text(const std::string& text) {
  auto s = read_capture_text(text, "form");
  if (!s) ADD_FAILURE() << s.error().message;
  return s ? *s : Snapshot{};
}

TEST(TelemetryForms, AmdSmiMetricJsonWithValueUnitObjects) {
  const auto s = read_text(R"js({"gpu_data": [{"gpu": 0,
    "usage": {"gfx_activity": {"value": 87, "unit": "%"}, "umc_activity": {"value": 3, "unit": "%"}},
    "power": {"socket_power": {"value": 612, "unit": "W"}},
    "clock": {"gfx_0": {"clk": {"value": 2100, "unit": "MHz"}, "max_clk": {"value": 2100, "unit": "MHz"}},
              "mem_0": {"clk": {"value": 1300, "unit": "MHz"}, "max_clk": {"value": 1300, "unit": "MHz"}}},
    "temperature": {"edge": "N/A", "hotspot": {"value": 71, "unit": "C"}, "mem": {"value": 55, "unit": "C"}},
    "pcie": {"width": 16, "speed": {"value": 32, "unit": "GT/s"}},
    "ecc": {"total_correctable_count": 2, "total_uncorrectable_count": 0},
    "mem_usage": {"total_vram": {"value": 196592, "unit": "MB"}, "used_vram": {"value": 1024, "unit": "MB"}}}]})js");
  EXPECT_EQ(s.format, "amd-smi --json");
  ASSERT_EQ(s.devices.size(), 1u);
  const auto& d = s.devices[0];
  EXPECT_EQ(d.busy_percent, 87.0);
  EXPECT_EQ(d.power_w, 612.0);
  EXPECT_EQ(d.sclk_mhz, 2100);
  EXPECT_EQ(d.sclk_max_mhz, 2100);
  EXPECT_EQ(d.mclk_mhz, 1300);
  EXPECT_EQ(d.temperature_c, 71.0);  // hotspot where edge is N/A (MI300)
  EXPECT_EQ(d.pcie_width, 16);
  EXPECT_EQ(d.pcie_gen, 5);
  EXPECT_EQ(d.ecc_corrected, 2);
  EXPECT_EQ(d.ecc_uncorrected, 0);
  EXPECT_EQ(d.memory_total_bytes, 196592ull << 20);  // amd-smi's MB are MiB
  EXPECT_EQ(d.memory_used_bytes, 1024ull << 20);
}

TEST(TelemetryForms, LspciVerboseLinkNumaAndDriver) {
  const auto s = read_text(
      "05:00.0 Co-processor [0b40]: Chengdu C-3000 IC Design Co., Ltd. KONGMING [1d94:6210] (rev 01)\n"
      "\tSubsystem: Chengdu C-3000 IC Design Co., Ltd. KONGMING [1d94:6210]\n"
      "\tNUMA node: 1\n"
      "\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM L1, Exit Latency L1 <64us\n"
      "\t\tLnkSta:\tSpeed 16GT/s (ok), Width x8 (downgraded)\n"
      "\tKernel driver in use: hycu\n"
      "\tKernel modules: hycu\n"
      "06:00.0 VGA compatible controller [0300]: ASPEED Technology, Inc. ASPEED Graphics Family [1a03:2000] (rev "
      "41)\n");
  EXPECT_EQ(s.format, "lspci/lsmod");
  ASSERT_EQ(s.devices.size(), 1u);  // the BMC's VGA is not a GPU
  const auto& d = s.devices[0];
  EXPECT_EQ(d.bus_id, "0000:05:00.0");
  EXPECT_EQ(d.device_id, "0x6210");
  EXPECT_EQ(d.name, "Chengdu C-3000 IC Design Co., Ltd. KONGMING");
  EXPECT_EQ(d.numa_node, 1);
  EXPECT_EQ(d.pcie_gen_max, 4);
  EXPECT_EQ(d.pcie_width_max, 16);
  EXPECT_EQ(d.pcie_gen, 4);
  EXPECT_EQ(d.pcie_width, 8);  // a card trained below its slot
  EXPECT_TRUE(has_fact(s, "driver", "hycu on 0000:05:00.0"));
}

TEST(TelemetryForms, RocmSmi60ConciseWithModelRevision) {
  const auto s = read_text(
      "========================================= ROCm System Management Interface "
      "=========================================\n"
      "=================================================== Concise Info "
      "===================================================\n"
      "Device  [Model : Revision]    Temp        Power     Partitions      SCLK    MCLK    Fan  Perf  PwrCap  VRAM%  "
      "GPU%\n"
      "        Name (20 chars)       (Junction)  (Socket)  (Mem, Compute)\n"
      "================================================================================================================"
      "====\n"
      "0       [0x74a1 : 0x00]       35.0\u00b0C      140.0W    NPS1, SPX       132Mhz  900Mhz  0%   auto  750.0W    "
      "0%   3%\n"
      "        AMD Instinct MI300X\n"
      "================================================================================================================"
      "====\n");
  EXPECT_EQ(s.format, "rocm-smi table");
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].device_id, "0x74a1");
  EXPECT_EQ(s.devices[0].temperature_c, 35.0);
  EXPECT_EQ(s.devices[0].power_w, 140.0);
  EXPECT_EQ(s.devices[0].busy_percent, 3.0);
  EXPECT_EQ(s.devices[0].sclk_mhz, 132);
}

}  // namespace
}  // namespace dcukit::telemetry
