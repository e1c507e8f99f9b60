// The vendor-tool source with a fake runner: which tools it runs, how their output is read and
// merged, and what it skips when a library already answered.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "telemetry/cli_source.h"
#include "test_telemetry_helpers.h"

namespace dcukit::telemetry {
namespace {

using namespace std::chrono_literals;

std::string sample_text(const std::string& rel) {
  std::ifstream in(testutil::telemetry_fixture("samples/" + rel));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct FakeTools {
  std::vector<std::string> present;
  std::vector<std::vector<std::string>> ran;
  std::map<std::string, std::string> output;  // by the command's first flag ("" for none)

  CliSource source() {
    return CliSource(
        1000ms,
        [this](const std::vector<std::string>& argv, std::chrono::milliseconds) -> Result<util::Captured> {
          ran.push_back(argv);
          util::Captured c;
          c.status.code = 0;
          c.out = output[argv.size() > 1 ? argv[1] : ""];
          return c;
        },
        [this](const std::string& tool) -> std::optional<std::string> {
          for (const auto& p : present)
            if (p == tool) return "/opt/hyhal/bin/" + tool;
          return std::nullopt;
        });
  }
};

TEST(TelemetryCliSource, HySmiJsonAndTableMerged) {
  FakeTools tools;
  tools.present = {"hy-smi"};
  tools.output["--showid"] = sample_text("hy-smi/json-k100ai-8card-partial-gpustack2032.txt");
  tools.output[""] = sample_text("hy-smi/plain-dcu-4card-800w-k100ai-dtk24.04.1-paddlenlp.txt");
  auto src = tools.source();
  const auto r = src.sample(Snapshot{});
  EXPECT_EQ(r.state, SourceState::ok);
  ASSERT_EQ(tools.ran.size(), 2u);
  EXPECT_EQ(tools.ran[0].back(), "--json");
  EXPECT_EQ(tools.ran[1].size(), 1u);
  // One tool numbers its devices one way: the JSON's card0 is the table's DCU 0.
  ASSERT_EQ(r.snapshot.devices.size(), 4u);
  EXPECT_EQ(r.snapshot.devices[0].serial, "TRCW280005090201");
  EXPECT_EQ(r.snapshot.devices[0].power_w, 77.0);        // the JSON's, read first
  EXPECT_EQ(r.snapshot.devices[0].power_cap_w, 800.0);   // only the table has it
  EXPECT_EQ(r.snapshot.devices[3].temperature_c, 49.0);  // the JSON was cut before card3
  EXPECT_EQ(r.snapshot.devices[0].sources.at(Field::serial), SourceKind::hy_smi);
  EXPECT_NE(r.detail.find("hy-smi --showid"), std::string::npos) << r.detail;
}

TEST(TelemetryCliSource, SameCountListsMergeByPosition) {
  FakeTools tools;
  tools.present = {"hy-smi"};
  tools.output["--showid"] = sample_text("hy-smi/json-pretty-dcu-gfx928-dtk24.04.3-gpustack-REDACTED.txt");
  tools.output[""] = sample_text("hy-smi/plain-hcu-1card-400w-dec-enc-mixed-host.txt");
  auto src = tools.source();
  const auto r = src.sample(Snapshot{});
  ASSERT_EQ(r.snapshot.devices.size(), 1u);
  const auto& d = r.snapshot.devices[0];
  EXPECT_EQ(d.power_w, 80.0);       // the JSON's, read first
  EXPECT_EQ(d.power_cap_w, 400.0);  // only the table has it
}

TEST(TelemetryCliSource, SkipsNvidiaSmiWhenNvmlAnswered) {
  FakeTools tools;
  tools.present = {"nvidia-smi"};
  Snapshot so_far;
  DeviceState d;
  d.vendor = Vendor::nvidia;
  d.name = "NVIDIA H200";
  stamp_sources(d, SourceKind::nvml);
  so_far.devices.push_back(d);
  auto src = tools.source();
  const auto r = src.sample(so_far);
  EXPECT_TRUE(tools.ran.empty());
  EXPECT_EQ(r.state, SourceState::skipped);
}

TEST(TelemetryCliSource, RunsNvidiaSmiWhenNvmlDidNot) {
  FakeTools tools;
  tools.present = {"nvidia-smi"};
  tools.output["-q"] = sample_text("nvidia-smi/q-h100-80gb-idle.txt");
  auto src = tools.source();
  const auto r = src.sample(Snapshot{});
  ASSERT_EQ(tools.ran.size(), 1u);
  EXPECT_EQ(tools.ran[0], (std::vector<std::string>{"/opt/hyhal/bin/nvidia-smi", "-q"}));
  ASSERT_EQ(r.snapshot.devices.size(), 1u);
  EXPECT_EQ(r.snapshot.devices[0].power_w, 69.85);
}

TEST(TelemetryCliSource, NoToolIsUnavailable) {
  FakeTools tools;
  auto src = tools.source();
  const auto r = src.sample(Snapshot{});
  EXPECT_EQ(r.state, SourceState::unavailable);
  EXPECT_TRUE(tools.ran.empty());
}

TEST(TelemetryCliSource, ToolThatFailsIsAWarning) {
  FakeTools tools;
  tools.present = {"rocm-smi"};
  auto src = CliSource(
      1000ms,
      [](const std::vector<std::string>& argv, std::chrono::milliseconds) -> Result<util::Captured> {
        util::Captured c;
        c.status.timed_out = true;
        c.err = "hsa error";
        (void)argv;
        return c;
      },
      [](const std::string& t) -> std::optional<std::string> {
        return t == "rocm-smi" ? std::optional<std::string>("/opt/rocm/bin/rocm-smi") : std::nullopt;
      });
  const auto r = src.sample(Snapshot{});
  EXPECT_EQ(r.state, SourceState::failed);
  EXPECT_TRUE(testutil::has_warning(r.snapshot, "did not finish within 1000 ms"));
  EXPECT_TRUE(testutil::has_warning(r.snapshot, "said: hsa error"));
}

}  // namespace
}  // namespace dcukit::telemetry
