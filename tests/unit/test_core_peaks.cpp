#include <gtest/gtest.h>

#include "core/peaks.h"

using namespace dcukit::core;

TEST(CorePeaks, BuiltInDataHasEveryDeviceOfSpecsMd) {
  const auto& t = PeakTable::builtin();
  for (const char* key : {"h200-sxm", "h100-sxm", "a100-sxm-80gb", "mi300x", "mi250x", "mi210", "bw1000", "k100-ai", "k100", "z100"})
    EXPECT_NE(t.find(key), nullptr) << key;
  const auto* h200 = t.find("h200-sxm");
  ASSERT_NE(h200, nullptr);
  EXPECT_DOUBLE_EQ(h200->peak("bf16")->value, 989.4e12);
  EXPECT_DOUBLE_EQ(h200->peak("hbm")->value, 4.8e12);
  EXPECT_FALSE(h200->source.empty());
}

TEST(CorePeaks, MatchesByPciIdThenByNameAndArch) {
  const auto& t = PeakTable::builtin();
  EXPECT_EQ(t.match("whatever", "10de:2335")->key, "h200-sxm");
  EXPECT_EQ(t.match("NVIDIA H200")->key, "h200-sxm");
  EXPECT_EQ(t.match("NVIDIA H100 80GB HBM3")->key, "h100-sxm");
  EXPECT_EQ(t.match("BW", "", "gfx936")->key, "bw1000");
  EXPECT_EQ(t.match("K100_AI", "", "gfx928")->key, "k100-ai");
  EXPECT_EQ(t.match("Z100L", "", "gfx906")->key, "z100");
  // Arch disagrees: a gfx90a device named Z100 is not the gfx906 Z100 entry.
  EXPECT_EQ(t.match("Z100", "", "gfx90a"), nullptr);
  EXPECT_EQ(t.match("Some Unknown GPU"), nullptr);
}

TEST(CorePeaks, FindTakesWhatUsersType) {
  const auto& t = PeakTable::builtin();
  EXPECT_EQ(t.find("BW1000")->key, "bw1000");
  EXPECT_EQ(t.find("h200")->key, "h200-sxm");
  EXPECT_EQ(t.find("K100-AI")->key, "k100-ai");
  EXPECT_EQ(t.find("k100")->key, "k100");
  EXPECT_EQ(t.find("nonexistent"), nullptr);
  // Whole words only: the H20 is not the H200 (vllm issue 40691 ran on an H20), nor "mi2" the MI210.
  EXPECT_EQ(t.find("h20"), nullptr);
  EXPECT_EQ(t.find("mi2"), nullptr);
  EXPECT_EQ(t.find("h100")->key, "h100-sxm");
}

TEST(CorePeaks, DcuFactsComeFromTheData) {
  const auto* bw = PeakTable::builtin().find("bw1000");
  ASSERT_NE(bw, nullptr);
  EXPECT_TRUE(bw->is_dcu());
  EXPECT_EQ(bw->fp8.value, Support::no);
  EXPECT_EQ(bw->bf16.value, Support::unknown);  // not listed is not "no"
  EXPECT_DOUBLE_EQ(bw->peak("fp16")->value, 480e12);
  EXPECT_EQ(bw->peak("bf16"), nullptr);
  const auto* k100ai = PeakTable::builtin().find("k100-ai");
  EXPECT_TRUE(k100ai->peak("hbm")->low_confidence);
}

TEST(CorePeaks, OverridesParseAndRejectBadItems) {
  auto o = parse_peak_overrides("fp16=480e12,hbm=1.6T");
  ASSERT_TRUE(o.ok());
  EXPECT_DOUBLE_EQ(o->at("fp16"), 480e12);
  EXPECT_DOUBLE_EQ(o->at("hbm"), 1.6e12);
  auto bad = parse_peak_overrides("fp17=1");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("fp17"), std::string::npos);
  EXPECT_FALSE(parse_peak_overrides("fp16").ok());
  EXPECT_FALSE(parse_peak_overrides("fp16=-3").ok());
}

TEST(CorePeaks, PcieRatesPerDirection) {
  EXPECT_NEAR(pcie_bytes_per_second(5, 16), 63.0e9, 0.1e9);
  EXPECT_NEAR(pcie_bytes_per_second(4, 16), 31.5e9, 0.1e9);
  EXPECT_NEAR(pcie_bytes_per_second(3, 16), 15.75e9, 0.01e9);
  EXPECT_EQ(pcie_bytes_per_second(9, 16), 0);
  EXPECT_EQ(pcie_gen_from_speed("32.0 GT/s PCIe"), 5);
  EXPECT_EQ(pcie_gen_from_speed("16.0 GT/s PCIe"), 4);
  EXPECT_EQ(pcie_gen_from_speed("8.0 GT/s"), 3);
  EXPECT_EQ(pcie_gen_from_speed("Unknown"), 0);
}

TEST(CorePeaks, BadFileIsAnErrorNamingTheOrigin) {
  auto r = PeakTable::parse("{\"devices\": [{\"nokey\": 1}]}", "my.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("my.json"), std::string::npos);
}

TEST(CorePeaks, RuntimeMemoryIsWhatTheRuntimeReports) {
  const auto* h200 = PeakTable::builtin().find("h200");
  ASSERT_NE(h200, nullptr);
  EXPECT_DOUBLE_EQ(h200->runtime_memory.value, 150109880320.0);  // 139.80 GiB, measured
  EXPECT_FALSE(h200->runtime_memory.low_confidence);
  EXPECT_GT(h200->memory_bytes, 0u);
}

TEST(CorePeaks, TheBoardsNvlinkSharpIsDataWithItsSource) {
  // HGX H100 and H200 boards: NVSwitch chips that do NVLink SHARP, where NCCL allocates NVLS
  // buffers (plan's non-torch term at TP > 1). A100's NVSwitch does no SHARP; PCIe-class and AMD
  // cards sit on no such board.
  const auto& t = PeakTable::builtin();
  for (const char* key : {"h200-sxm", "h100-sxm"}) {
    const auto* d = t.find(key);
    ASSERT_NE(d, nullptr) << key;
    EXPECT_TRUE(d->nvls_board) << key;
    EXPECT_NE(d->board_source.find("NVSwitch"), std::string::npos) << key;
  }
  for (const char* key : {"a100-sxm-80gb", "mi300x", "bw1000"}) EXPECT_FALSE(t.find(key)->nvls_board) << key;
  auto r = PeakTable::parse(R"({"devices": [{"key": "x", "vendor": "nvidia", "board": {"nvls": true, "source": "s"}},
      {"key": "y", "vendor": "nvidia"}]})",
                            "my.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->find("x")->nvls_board);
  EXPECT_EQ(r->find("x")->board_source, "s");
  EXPECT_FALSE(r->find("y")->nvls_board);
}
