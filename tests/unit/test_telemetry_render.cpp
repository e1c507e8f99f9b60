// The renderers: the JSON contract (every figure present, null when unknown), CSV rows for
// plotting, and the text table with "-" for unknown figures.
#include <gtest/gtest.h>

#include <sstream>

#include "telemetry/render.h"
#include "test_telemetry_helpers.h"

namespace dcukit::telemetry {
namespace {

Snapshot two_devices() {
  Snapshot s;
  s.timestamp = "2026-07-14T08:12:38.000Z";
  DeviceState a;
  a.index = 0;
  a.name = "K100_AI";
  a.bus_id = "0000:05:00.0";
  a.temperature_c = 48.5;
  a.memory_total_bytes = 68702699520ull;
  a.vendor = Vendor::hygon;
  a.processes = std::vector<ProcessUse>{{1234, std::string("vllm"), std::nullopt}};
  stamp_sources(a, SourceKind::sysfs);
  a.power_w = 104;
  stamp_sources(a, SourceKind::hy_smi);
  DeviceState b;
  b.index = 1;
  s.devices = {a, b};
  s.topology.links.push_back(
      TopoLink{"GPU0", "GPU1", std::string("XGMI"), 1, 15, std::nullopt, {{"access", "ENABLED"}}});
  s.checks.push_back(Check{"Hardware", "GPU Memory", CheckStatus::fail, "Fail - All", "GPU 0 Error"});
  s.facts.push_back({"kernel_module", "hycu"});
  s.sources.push_back({"sysfs", SourceState::ok, "2 devices"});
  s.warnings.push_back("something to know");
  return s;
}

TEST(TelemetryRender, JsonContract) {
  const auto j = to_json(two_devices());
  EXPECT_EQ(j["source"], "live");
  ASSERT_EQ(j["devices"].size(), 2u);
  const auto& d = j["devices"][0];
  for (const char* key : {"index",
                          "name",
                          "bus_id",
                          "numa_node",
                          "temperature_c",
                          "power_w",
                          "power_cap_w",
                          "busy_percent",
                          "memory_total_bytes",
                          "memory_used_bytes",
                          "memory_used_percent",
                          "sclk_mhz",
                          "mclk_mhz",
                          "pcie_gen",
                          "pcie_width",
                          "pcie_gen_max",
                          "pcie_width_max",
                          "sclk_max_mhz",
                          "mclk_max_mhz",
                          "ecc_corrected",
                          "ecc_uncorrected",
                          "vendor",
                          "arch",
                          "uuid",
                          "serial",
                          "driver_version",
                          "processes",
                          "figure_sources"})
    EXPECT_TRUE(d.contains(key)) << key;
  EXPECT_EQ(d["temperature_c"], 48.5);
  EXPECT_EQ(d["memory_total_bytes"], 68702699520ull);
  EXPECT_TRUE(d["numa_node"].is_null());  // a figure no source gave
  EXPECT_EQ(d["vendor"], "hygon");
  EXPECT_EQ(d["processes"][0]["pid"], 1234);
  EXPECT_EQ(d["processes"][0]["name"], "vllm");
  EXPECT_TRUE(d["processes"][0]["memory_bytes"].is_null());
  EXPECT_EQ(d["figure_sources"]["temperature_c"], "sysfs");
  EXPECT_EQ(d["figure_sources"]["power_w"], "hy-smi");
  EXPECT_TRUE(j["devices"][1]["processes"].is_null());  // unknown, not "none"
  // The contract's order: index, name, bus_id, numa_node, temperature_c, ...
  auto it = d.begin();
  EXPECT_EQ(it.key(), "index");
  EXPECT_EQ((++it).key(), "name");
  EXPECT_EQ((++it).key(), "bus_id");
  EXPECT_EQ((++it).key(), "numa_node");
  EXPECT_EQ((++it).key(), "temperature_c");
  EXPECT_EQ(j["topology"]["links"][0]["type"], "XGMI");
  EXPECT_EQ(j["topology"]["links"][0]["attributes"]["access"], "ENABLED");
  EXPECT_EQ(j["checks"][0]["status"], "fail");
  EXPECT_EQ(j["facts"][0]["value"], "hycu");
  EXPECT_EQ(j["sources"][0]["state"], "ok");
  EXPECT_EQ(j["warnings"][0], "something to know");
}

TEST(TelemetryRender, CsvRowPerDeviceWithTimestamp) {
  const std::string csv = render_csv(two_devices(), true);
  std::istringstream in(csv);
  std::string header, row0, row1, extra;
  std::getline(in, header);
  std::getline(in, row0);
  std::getline(in, row1);
  EXPECT_FALSE(std::getline(in, extra));
  EXPECT_EQ(header.rfind("timestamp,index,name,bus_id,numa_node,temperature_c,power_w,", 0), 0u) << header;
  EXPECT_EQ(header.find("processes"), std::string::npos);
  EXPECT_EQ(row0.rfind("2026-07-14T08:12:38.000Z,0,K100_AI,0000:05:00.0,,48.5,104,", 0), 0u) << row0;
  EXPECT_EQ(row1.rfind("2026-07-14T08:12:38.000Z,1,,,,", 0), 0u) << row1;
  const std::string no_header = render_csv(two_devices(), false);
  EXPECT_EQ(no_header.rfind("2026-07-14T08:12:38.000Z,0,", 0), 0u);
}

TEST(TelemetryRender, TextTableWithDashesForUnknown) {
  const std::string text = render_text(two_devices());
  EXPECT_NE(text.find("K100_AI"), std::string::npos);
  EXPECT_NE(text.find("0000:05:00.0"), std::string::npos);
  EXPECT_NE(text.find("63.98 GiB"), std::string::npos);
  EXPECT_NE(text.find("Processes"), std::string::npos);
  EXPECT_NE(text.find("vllm"), std::string::npos);
  EXPECT_NE(text.find("XGMI"), std::string::npos);
  EXPECT_NE(text.find("GPU Memory"), std::string::npos);
  EXPECT_NE(text.find("kernel_module: hycu"), std::string::npos);
  EXPECT_NE(text.find("hy-smi: power_w"), std::string::npos);
  EXPECT_EQ(text.find("warning: something to know"), std::string::npos) << "a diagnostic, not the report";
  EXPECT_NE(render_warnings(two_devices()).find("warning: something to know"), std::string::npos);
  // The second device's row: its index, then "-" for every figure.
  EXPECT_NE(text.find("  1  -        -"), std::string::npos) << text;
}

}  // namespace
}  // namespace dcukit::telemetry
