// `dcukit telemetry` as a user runs it: the real binary, on a captured file or a fake host tree.
#include <gtest/gtest.h>

#include <csignal>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dcukit_run.h"
#include "tempdir.h"
#include "test_telemetry_helpers.h"
#include "util/process.h"
#include "no_hang.h"

namespace {

using namespace std::chrono_literals;

testutil::BinaryRun telemetry(std::vector<std::string> args) {
  args.insert(args.begin(), "telemetry");
  return testutil::run_dcukit(std::move(args));
}

const std::string kHost = testutil::telemetry_fixture("sysfs-dcu-host");

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(TelemetryCli, FromAFileAsJson) {
  const auto r =
      telemetry({"--from", testutil::telemetry_fixture("samples/nvidia-smi/q-h100-80gb-load.txt"), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["source"], "file");
  EXPECT_EQ(j["format"], "nvidia-smi -q");
  ASSERT_EQ(j["devices"].size(), 1u);
  EXPECT_EQ(j["devices"][0]["power_w"], 629.45);
  EXPECT_EQ(j["devices"][0]["processes"].size(), 3u);
  EXPECT_EQ(j["devices"][0]["figure_sources"]["power_w"], "nvidia-smi");
}

TEST(TelemetryCli, FromAFileAsText) {
  const auto r = telemetry({"--from", testutil::telemetry_fixture("samples/hy-smi/plain-hcu-8card-800w-dec-enc.txt")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("hy-smi table"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("157"), std::string::npos) << r.out;
}

TEST(TelemetryCli, UnknownFormatIsBadInputNamingTheFileAndTheFormats) {
  testutil::TempDir tmp("telemetry_cli_unknown");
  const auto path = tmp.write("ticket.txt", "please help, the model is slow\n");
  const auto r = telemetry({"--from", path});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("It reads: hy-smi table"), std::string::npos) << r.err;
  EXPECT_EQ(telemetry({"--from", tmp.file("absent.txt")}).code, 2);
}

TEST(TelemetryCli, BadFlagsAreBadInput) {
  const auto sample = testutil::telemetry_fixture("samples/hy-smi/plain-hcu-8card-800w-dec-enc.txt");
  EXPECT_EQ(telemetry({"--from", sample, "--watch", "1"}).code, 2);
  const auto r = telemetry({"--source", "rsmi"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("choose auto, nvml, rocm-smi-lib, sysfs or cli"), std::string::npos) << r.err;
  EXPECT_EQ(telemetry({"--json", "--csv"}).code, 2);
  EXPECT_EQ(telemetry({"--timeout", "0", "--source", "sysfs", "--root", kHost}).code, 2);
}

TEST(TelemetryCli, LiveFromAFakeHostTree) {
  const auto r = telemetry({"--source", "sysfs", "--root", kHost, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["source"], "live");
  ASSERT_EQ(j["devices"].size(), 3u);
  EXPECT_EQ(j["devices"][0]["bus_id"], "0000:05:00.0");
  EXPECT_EQ(j["devices"][0]["pcie_width"], 8);
  EXPECT_EQ(j["devices"][0]["figure_sources"]["pcie_width"], "sysfs");
  EXPECT_EQ(j["devices"][1]["memory_used_percent"], 1.6);  // 1 GiB of 65520 MiB, derived
  EXPECT_EQ(j["devices"][1]["figure_sources"]["memory_used_percent"], "sysfs");
  ASSERT_EQ(j["sources"].size(), 1u);
  EXPECT_EQ(j["sources"][0]["name"], "sysfs");
  EXPECT_EQ(j["sources"][0]["state"], "ok");
}

TEST(TelemetryCli, NoGpuIsAFailureThatSaysWhy) {
  testutil::TempDir tmp("telemetry_cli_empty");
  tmp.write("sys/bus/pci/devices/.keep", "");
  const auto r = telemetry({"--source", "sysfs", "--root", tmp.path()});
  EXPECT_EQ(r.code, 1);
  // A diagnostic: on stderr, where a program reading the report does not get it.
  EXPECT_NE(r.err.find("no GPU found; sysfs: ok (no NVIDIA, AMD or Hygon GPU"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("warning:"), std::string::npos) << r.out;
}

TEST(TelemetryCli, CsvWatchWritesTheHeaderOnceAndARowPerDevicePerReading) {
  const auto r = telemetry({"--source", "sysfs", "--root", kHost, "--csv", "--watch", "0.05", "--count", "3"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 1u + 3 * 3);
  EXPECT_EQ(lines[0].rfind("timestamp,index,name,bus_id,", 0), 0u);
  for (std::size_t i = 1; i < lines.size(); ++i) EXPECT_EQ(lines[i].find("timestamp"), std::string::npos);
  EXPECT_NE(lines[3].find(",2,"), std::string::npos) << lines[3];  // the third device of the first reading
}

TEST(TelemetryCli, PipedWatchAppendsWithoutRedrawing) {
  const auto r = telemetry({"--source", "sysfs", "--root", kHost, "--watch", "0.05", "--count", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("\x1b["), std::string::npos);  // no screen clearing into a pipe
  const auto first = r.out.find("live, ");
  ASSERT_NE(first, std::string::npos);
  EXPECT_NE(r.out.find("live, ", first + 1), std::string::npos) << r.out;
}

TEST(TelemetryCli, WatchStopsCleanlyOnSigterm) {
  testutil::TempDir tmp("telemetry_cli_sigterm");
  dcukit::util::SpawnOptions o;
  o.argv = {DCUKIT_BINARY, "telemetry", "--source", "sysfs", "--root", kHost, "--watch", "0.1", "--json"};
  o.stdout_path = tmp.file("out.jsonl");
  auto p = dcukit::util::Process::spawn(o);
  ASSERT_TRUE(p) << p.error().message;
  // Two readings written (an event, not a time), then the stop.
  for (const auto end = std::chrono::steady_clock::now() + testutil::kNoHang;
       lines_of(tmp.read("out.jsonl")).size() < 2 && std::chrono::steady_clock::now() < end;)
    std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(p->signal_group(SIGTERM));
  const auto st = p->wait_for(testutil::kNoHang);
  ASSERT_TRUE(st) << "did not stop after SIGTERM";
  EXPECT_EQ(st->code, 0) << st->describe();
  const auto lines = lines_of(tmp.read("out.jsonl"));
  ASSERT_GE(lines.size(), 2u);  // JSON Lines: one object a reading
  for (const auto& l : lines) EXPECT_EQ(nlohmann::json::parse(l)["devices"].size(), 3u);
}

}  // namespace
