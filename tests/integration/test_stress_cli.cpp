// `dcukit stress` as a user runs it: the real binary on the CPU backend of this GPU-less host.
// Its exit codes (0 every check passed, 1 a device failed, 2 bad input before anything ran, 130
// stopped with what ran written), its files, and the test-only fault switch. The waits are for
// the run's own progress lines, never a fixed time.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "no_hang.h"
#include "tempdir.h"
#include "util/process.h"

namespace {

struct Ran {
  int code = -1;
  std::string out;  ///< stdout and stderr together
};

Ran stress(testutil::TempDir& dir, std::vector<std::string> args, const std::string& faults = "") {
  dcukit::util::SpawnOptions o;
  o.argv = {DCUKIT_BINARY, "stress", "--backend", "cpu"};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.stdout_path = o.stderr_path = dir.file("out");
  if (!faults.empty()) o.env_add.push_back("DCUKIT_CPU_FAULTS=" + faults);
  auto p = dcukit::util::Process::spawn(o);
  if (!p) return {-1, p.error().message};
  const auto st = p->wait_for(std::chrono::minutes(3));
  Ran r;
  r.code = st ? st->code : -1;
  r.out = dir.read("out");
  return r;
}

nlohmann::ordered_json read_json(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return in.good() ? nlohmann::ordered_json::parse(in) : nlohmann::ordered_json();
}

/// Whether the file at `path` comes to contain `text` within kNoHang.
bool comes_to_say(const std::string& path, const std::string& text) {
  const auto end = std::chrono::steady_clock::now() + testutil::kNoHang;
  while (std::chrono::steady_clock::now() < end) {
    std::ifstream in(path);
    const std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (got.find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

}  // namespace

TEST(CliStress, ACleanRunExitsZeroAndWritesItsJsonAndTelemetryCsv) {
  testutil::TempDir dir("cli_stress");
  const Ran r =
      stress(dir, {"--level", "2", "--duration", "4", "--json", dir.file("s.json"), "--csv", dir.file("s.csv")});
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("device 0"), std::string::npos) << r.out;
  const auto j = read_json(dir.file("s.json"));
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j.begin().key(), "run_info");
  EXPECT_EQ(j["run_info"]["tool"], "dcukit stress");
  EXPECT_EQ(j["level"], 2);
  ASSERT_EQ(j["devices"].size(), 1u);
  EXPECT_EQ(j["devices"][0]["verdict"], "pass") << j.dump(1);
  std::ifstream csv(dir.file("s.csv"));
  std::string header;
  ASSERT_TRUE(std::getline(csv, header));
  EXPECT_NE(header.find("t_s"), std::string::npos) << header;
}

TEST(CliStress, AWrongGemmResultFailsTheDeviceWithExitOneAndSaysDrainAndReplace) {
  testutil::TempDir dir("cli_stress");
  const Ran r =
      stress(dir, {"--level", "2", "--duration", "4", "--only", "gemm", "--json", dir.file("s.json")}, "gemm=3");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("drain and replace"), std::string::npos) << r.out;
  const auto j = read_json(dir.file("s.json"));
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["devices"][0]["verdict"], "fail");
  EXPECT_GT(j["devices"][0]["checks"][0]["errors"].get<long long>(), 0) << j.dump(1);
}

TEST(CliStress, BadInputExitsTwoBeforeAnythingRunsAndNamesTheInput) {
  testutil::TempDir dir("cli_stress");
  Ran r = stress(dir, {"--device", "7"});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--device 7"), std::string::npos) << r.out;
  r = stress(dir, {"--only", "gpu-burn"});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--only gpu-burn"), std::string::npos) << r.out;
  r = stress(dir, {"--level", "1", "--json", dir.file("no/such/folder/s.json")});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("no/such/folder"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("kernel:"), std::string::npos) << "it ran before checking its outputs: " << r.out;
  r = stress(dir, {"--level", "9"});
  EXPECT_EQ(r.code, 2) << r.out;
}

TEST(CliStress, SigtermStopsTheRunWritesWhatRanAndExits130) {
  testutil::TempDir dir("cli_stress");
  dcukit::util::SpawnOptions o;
  o.argv = {DCUKIT_BINARY, "stress", "--backend",  "cpu",   "--level", "3",
            "--duration",  "600",    "--progress", "plain", "--json",  dir.file("s.json")};
  o.stdout_path = o.stderr_path = dir.file("out");
  auto p = dcukit::util::Process::spawn(o);
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_TRUE(comes_to_say(dir.file("out"), "kernel: pass")) << dir.read("out");
  ASSERT_TRUE(p->signal_group(SIGTERM));
  const auto st = p->wait_for(testutil::kNoHang);
  ASSERT_TRUE(st) << "did not stop after SIGTERM";
  const std::string out = dir.read("out");
  EXPECT_EQ(st->code, 130) << st->describe() << "\n" << out;
  const auto j = read_json(dir.file("s.json"));
  ASSERT_TRUE(j.is_object());
  EXPECT_TRUE(j["interrupted"].get<bool>());
  EXPECT_NE(j["notes"].dump().find("interrupted by SIGTERM"), std::string::npos) << j["notes"].dump();
  ASSERT_FALSE(j["devices"][0]["checks"].empty()) << "the checks that ran are kept";
  EXPECT_EQ(j["devices"][0]["checks"][0]["check"], "health");
}

/// `dcukit compare` of two stress runs: a run against itself is the same; a run whose GEMM gave
/// wrong numbers is a regression (exit 1 under --fail-on-regression) naming the check; a run of
/// another level is refused with exit 2 unless forced.
TEST(CliStress, CompareJudgesTwoRunsCheckByCheck) {
  testutil::TempDir dir("cli_stress");
  const std::vector<std::string> gemm = {"--level", "2", "--duration", "4", "--only", "gemm"};
  auto with = [](std::vector<std::string> v, std::initializer_list<std::string> more) {
    v.insert(v.end(), more);
    return v;
  };
  ASSERT_EQ(stress(dir, with(gemm, {"--json", dir.file("good.json")})).code, 0);
  ASSERT_EQ(stress(dir, with(gemm, {"--json", dir.file("bad.json")}), "gemm=3").code, 1);
  ASSERT_EQ(stress(dir, {"--level", "3", "--duration", "4", "--only", "gemm", "--json", dir.file("l3.json")}).code, 0);
  auto compare = [&](std::vector<std::string> args) {
    dcukit::util::SpawnOptions o;
    o.argv = {DCUKIT_BINARY, "compare"};
    o.argv.insert(o.argv.end(), args.begin(), args.end());
    o.stdout_path = o.stderr_path = dir.file("cmp");
    auto p = dcukit::util::Process::spawn(o);
    const auto st = p ? p->wait_for(std::chrono::minutes(1)) : std::nullopt;
    return Ran{st ? st->code : -1, dir.read("cmp")};
  };
  const Ran self = compare({dir.file("good.json"), dir.file("good.json"), "--fail-on-regression", "--json",
                            dir.file("self.json")});
  EXPECT_EQ(self.code, 0) << self.out;
  const auto j = read_json(dir.file("self.json"));
  ASSERT_TRUE(j["cases"].is_array()) << j.dump(1);
  bool gemm_same = false;
  for (const auto& c : j["cases"]) gemm_same |= c["name"] == "gemm" && c["verdict"] == "same" && c["change"] == 0.0;
  EXPECT_TRUE(gemm_same) << j.dump(1);

  const Ran worse = compare({dir.file("good.json"), dir.file("bad.json"), "--fail-on-regression"});
  EXPECT_EQ(worse.code, 1) << worse.out;
  EXPECT_NE(worse.out.find("gemm verdict"), std::string::npos) << worse.out;
  EXPECT_NE(worse.out.find("pass -> fail"), std::string::npos) << worse.out;

  const Ran other = compare({dir.file("good.json"), dir.file("l3.json")});
  EXPECT_EQ(other.code, 2) << other.out;
  EXPECT_NE(other.out.find("level differs"), std::string::npos) << other.out;
  EXPECT_EQ(compare({dir.file("good.json"), dir.file("l3.json"), "--force"}).code, 0);
}
