// The text helpers under every parser: figures with glued units, "N/A" and its cousins, PCI
// addresses, a capture's header and escapes, and the lenient JSON reader.
#include <gtest/gtest.h>

#include <cstdint>

#include "telemetry/capture.h"
#include "telemetry/lenient_json.h"
#include "telemetry/text.h"

namespace dcukit::telemetry {
namespace {

TEST(TelemetryText, QuantitiesWithGluedUnits) {
  EXPECT_EQ(parse_double("45.0C"), 45.0);
  EXPECT_EQ(parse_double("400W"), 400.0);
  EXPECT_EQ(parse_double("33.0\u00b0C"), 33.0);
  EXPECT_EQ(parse_whole("(800Mhz)"), 800);
  EXPECT_EQ(parse_whole("16x"), 16);
  EXPECT_EQ(parse_quantity("1980 MHz")->unit, "MHz");
  EXPECT_EQ(parse_bytes("81559 MiB"), 81559ull << 20);
  EXPECT_EQ(parse_bytes("96434 MB"), 96434ull << 20);  // amd-smi's MB are MiB
  EXPECT_EQ(parse_bytes("65520", "MiB"), 65520ull << 20);
  EXPECT_FALSE(parse_double("0x74a1"));  // an id, not a number
  EXPECT_FALSE(parse_double("auto"));
}

TEST(TelemetryText, MissingValues) {
  for (const char* s : {"N/A", "[N/A]", "", "  ", "None", "Unsupported", "unknown", "-", "[Not Supported]",
                        "[Requested functionality has been deprecated]", "inf"})
    EXPECT_TRUE(is_missing(s)) << s;
  EXPECT_FALSE(is_missing("0"));
  EXPECT_FALSE(parse_double("N/A"));
}

TEST(TelemetryText, BusIdsAndIds) {
  EXPECT_EQ(normalize_bus_id("00000000:00:09.0"), "0000:00:09.0");
  EXPECT_EQ(normalize_bus_id("0000:2F:00.0"), "0000:2f:00.0");
  EXPECT_EQ(normalize_bus_id("07:00.0"), "0000:07:00.0");
  EXPECT_FALSE(normalize_bus_id("N/A"));
  EXPECT_FALSE(normalize_bus_id("GPU0"));
  EXPECT_EQ(bus_id_from_bdfid(6912), "0000:1b:00.0");
  EXPECT_EQ(pci_id("0x6210"), "0x6210");
  EXPECT_EQ(pci_id("29857", true), "0x74a1");
  EXPECT_EQ(decode_rocm_smi_gfx_version("gfx9010"), "gfx90a");
  EXPECT_EQ(decode_rocm_smi_gfx_version("gfx11001"), "gfx1101");
  EXPECT_EQ(decode_rocm_smi_gfx_version("gfx9402"), "gfx942");
  EXPECT_EQ(pcie_gen_from_gts(32.0), 5);
  EXPECT_EQ(pcie_gen_from_gts(2.5), 1);
}

TEST(TelemetryText, VendorsFromNames) {
  EXPECT_EQ(vendor_from_text("Chengdu Haiguang IC Design Co., Ltd."), Vendor::hygon);
  EXPECT_EQ(vendor_from_text("Chengdu C-3000 IC Design Co., Ltd."), Vendor::hygon);
  EXPECT_EQ(vendor_from_text("Advanced Micro Devices, Inc. [AMD/ATI]"), Vendor::amd);
  EXPECT_EQ(vendor_from_text("AMD Instinct MI300X"), Vendor::amd);
  EXPECT_EQ(vendor_from_text("NVIDIA H200"), Vendor::nvidia);
  EXPECT_FALSE(vendor_from_text("ASPEED Technology, Inc."));
}

TEST(TelemetryText, CaptureHeaderEscapesAndIndentation) {
  const std::string raw =
      "# source: a ticket\n# command: hy-smi\n# ---- verbatim output below this line ----\n"
      "   \x1b[37mHCU     Temp\x1b[0m\r\n   0       40.0C  \n   ^[3mnote^[0m\n";
  const Capture cap = prepare_capture(raw, "t");
  EXPECT_EQ(cap.command, "hy-smi");
  ASSERT_EQ(cap.lines.size(), 3u);
  EXPECT_EQ(cap.lines[0], "HCU     Temp");
  EXPECT_EQ(cap.lines[1], "0       40.0C");
  EXPECT_EQ(cap.lines[2], "note");
  EXPECT_FALSE(cap.declared_not_output);
  EXPECT_TRUE(prepare_capture("# command: n/a -- notes\n# ---- verbatim output below this line ----\nx\n", "n")
                  .declared_not_output);
}

TEST(TelemetryText, ColumnsByTabsOrRunsOfSpaces) {
  EXPECT_EQ(split_columns("GPU0    X      NV18    0-47,96-143     0               N/A"),
            (std::vector<std::string>{"GPU0", "X", "NV18", "0-47,96-143", "0", "N/A"}));
  EXPECT_EQ(split_columns("\tGPU0\tCPU Affinity\tNUMA Affinity"),
            (std::vector<std::string>{"", "GPU0", "CPU Affinity", "NUMA Affinity"}));
}

TEST(TelemetryLenientJson, WellFormedReadsAsIs) {
  const auto r = read_lenient_json(R"({"card0": {"a": "1", "b": 2.5, "c": [1, 2], "d": null}})");
  ASSERT_EQ(r.values.size(), 1u);
  EXPECT_TRUE(r.problems.empty());
  EXPECT_EQ(r.values[0]["card0"]["a"], "1");
  EXPECT_EQ(r.values[0]["card0"]["b"], 2.5);
  EXPECT_EQ(r.values[0]["card0"]["c"][1], 2);
}

TEST(TelemetryLenientJson, MissingCommasRepeatedKeysAndStderr) {
  const std::string text =
      "Error: Failed to show unique id\n"
      "{\"card0\": {\"Device ID\": \"0x55b7\" \"\": \"\", \"\": \"\",\n"
      "WARNING: something printed in the middle\n"
      "\"Temperature (Sensor edge) (C)\": 41.0C}\n"
      "\"card1\": {\"Device ID\": \"0x6210\"}}\n"
      "Warning: One or more commands failed\n";
  const auto r = read_lenient_json(text);
  ASSERT_EQ(r.values.size(), 1u);
  const auto& v = r.values[0];
  EXPECT_EQ(v["card0"]["Device ID"], "0x55b7");
  EXPECT_EQ(v["card0"]["Temperature (Sensor edge) (C)"], "41.0C");  // unquoted, kept as text
  EXPECT_EQ(v["card1"]["Device ID"], "0x6210");
  ASSERT_EQ(r.outside.size(), 3u);
  EXPECT_EQ(r.outside[0], "Error: Failed to show unique id");
  EXPECT_EQ(r.outside[1], "WARNING: something printed in the middle");
  EXPECT_EQ(r.outside[2], "Warning: One or more commands failed");
  EXPECT_GE(r.problems.size(), 2u);  // the two missing commas (and the unquoted value)
  EXPECT_FALSE(r.truncated);
}

TEST(TelemetryLenientJson, CutShortKeepsWhatCameBefore) {
  const auto r = read_lenient_json(R"js({"card0": {"a": "1"}, "card1": {"a": "2", "HCU use (%)": "0.)js");
  ASSERT_EQ(r.values.size(), 1u);
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(r.values[0]["card1"]["a"], "2");
  EXPECT_FALSE(r.values[0]["card1"].contains("HCU use (%)"));
}

TEST(TelemetryLenientJson, SeveralTopLevelValues) {
  const auto r = read_lenient_json("{\"a\": 1},\n{\"a\": 2}\n[3]");
  ASSERT_EQ(r.values.size(), 3u);
  EXPECT_EQ(r.values[1]["a"], 2);
  EXPECT_EQ(r.values[2][0], 3);
}

TEST(TelemetryLenientJson, WholeNumbersPastSixtyFourBitsBecomeDoubles) {
  // Unquoted, with a missing comma so that the lenient path reads them, as a mangled capture would.
  const auto r = read_lenient_json(
      "{\"x\": \"1\" \"a\": 123, \"b\": -9223372036854775808, \"c\": 18446744073709551615, \"d\": 99999999999999999999, "
      "\"e\": 1e400}");
  ASSERT_EQ(r.values.size(), 1u);
  const auto& v = r.values[0];
  EXPECT_EQ(v["a"].get<std::int64_t>(), 123);
  EXPECT_EQ(v["b"].get<std::int64_t>(), INT64_MIN);
  EXPECT_TRUE(v["c"].is_number_unsigned());
  EXPECT_EQ(v["c"].get<std::uint64_t>(), UINT64_MAX);
  EXPECT_TRUE(v["d"].is_number_float());
  EXPECT_DOUBLE_EQ(v["d"].get<double>(), 1e20);
  EXPECT_FALSE(v["e"].is_number_integer());
}

TEST(TelemetryDetect, FormatsFromContentAlone) {
  const auto detect = [](const std::string& text) {
    const auto f = detect_format(prepare_capture(text, "t"));
    return f ? std::string(to_string(*f)) : std::string("none");
  };
  EXPECT_EQ(detect("DCU     Temp     AvgPwr\n0       49.0C    25.0W\n"), "hy-smi table");
  EXPECT_EQ(detect("GPU  Temp (DieEdge)  AvgPwr  SCLK\n0    30.0c           20.0W   800Mhz\n"), "rocm-smi table");
  EXPECT_EQ(detect("HCU[0]          : PCI Bus: 0000:05:00.0\n"), "rocm-smi/hy-smi device lines");
  EXPECT_EQ(detect("{\"card0\": {\"GPU use (%)\": \"0\"}}"), "rocm-smi/hy-smi --json");
  EXPECT_EQ(detect("[{\"gpu\": 0, \"power\": {}}]"), "amd-smi --json");
  EXPECT_EQ(detect("GPU 0: NVIDIA H200 (UUID: GPU-1)\n"), "nvidia-smi -L");
  EXPECT_EQ(detect("the weather is fine\n"), "none");
}

TEST(TelemetryDetect, OldRocmSmiTableReadsTheSensorHeading) {
  auto s = read_capture_text(
      "GPU  Temp (DieEdge)  AvgPwr  SCLK    MCLK    Fan  Perf  PwrCap  VRAM%  GPU%\n"
      "0    30.0c           20.0W   800Mhz  1000Mhz 0%   auto  280.0W  0%     0%\n",
      "z100");
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ(s->devices.size(), 1u);
  EXPECT_EQ(s->devices[0].temperature_c, 30.0);
  EXPECT_EQ(s->devices[0].power_cap_w, 280.0);
  EXPECT_EQ(s->devices[0].mclk_mhz, 1000);
}

}  // namespace
}  // namespace dcukit::telemetry
