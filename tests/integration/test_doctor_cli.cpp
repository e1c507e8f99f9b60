// `dcukit doctor` through its CLI: --root on the fake DCU host with --json, the inputs refused
// with exit 2, --quick's time on this host, and --bundle then --from-bundle with the real binary.
#include <gtest/gtest.h>
#include <time.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli_run.h"
#include "doctor/context.h"
#include "doctor/run.h"
#include "tempdir.h"
#include "util/process.h"
#include "no_hang.h"

using dcukit::cli::ExitCode;
namespace fs = std::filesystem;

namespace {

testutil::CliRun run(std::vector<std::string> args) {
  return testutil::cli_run(dcukit::cli::setup_doctor, "doctor", std::move(args));
}

std::string fixture_copy(const testutil::TempDir& d) {
  fs::copy(std::string(DCUKIT_FIXTURES) + "/doctor/dcu-k100ai", d.file("root"),
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  return d.file("root");
}

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + t.tv_nsec / 1e9;
}

}  // namespace

TEST(DoctorCli, JsonOnTheFakeDcuHost) {
  testutil::TempDir d("doctor_cli");
  const auto root = fixture_copy(d);
  auto r = run({"--root", root, "--quick", "--json"});
  EXPECT_EQ(r.code, ExitCode::failed) << r.err;  // the fixture has an x8 link
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["run_info"]["tool"], "dcukit doctor");
  EXPECT_EQ(j["root"], root);
  std::map<std::string, std::string> by_id;
  for (const auto& f : j["findings"])
    by_id[f["id"].get<std::string>() + (f["subject"].is_null() ? "" : "@" + f["subject"].get<std::string>())] =
        f["status"];
  EXPECT_EQ(by_id["toolkit.installs"], "ok");  // two DTKs; which one is used depends on this process's PATH
  EXPECT_EQ(by_id["devices.pcie_link@0000:0a:00.0"], "warn");
  EXPECT_EQ(by_id["driver.hygon"], "ok");
  EXPECT_EQ(by_id["python.interpreter"], "skip");
  int total = 0;
  for (const char* k : {"ok", "warn", "fail", "skip"}) total += j["summary"][k].get<int>();
  EXPECT_EQ(total, static_cast<int>(j["findings"].size()));
  for (const auto& f : j["findings"])
    if (f["status"] == "warn" || f["status"] == "fail") {
      EXPECT_FALSE(f["why"].is_null()) << f.dump();
      EXPECT_FALSE(f["fix"].is_null()) << f.dump();
    }
  // The text report lists the problems with their fix.
  r = run({"--root", root, "--quick", "--python", std::string(DCUKIT_FIXTURES) + "/doctor/bin/python3-cuda-torch"});
  EXPECT_EQ(r.code, ExitCode::failed);
  EXPECT_NE(r.out.find("[fail] python.torch: a CUDA build of torch on a Hygon DCU host"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    fix: "), std::string::npos);
}

TEST(DoctorCli, BadInputIsExitTwo) {
  testutil::TempDir d("doctor_cli");
  EXPECT_EQ(run({"--root", d.file("nowhere")}).code, ExitCode::bad_input);
  EXPECT_NE(run({"--root", d.file("nowhere")}).err.find("--root"), std::string::npos);
  EXPECT_EQ(run({"--bundle", d.file("a.tar.gz"), "--from-bundle", d.file("b.tar.gz")}).code, ExitCode::bad_input);
  EXPECT_EQ(run({"--bundle", d.file("a.tar.gz"), "--root", d.path()}).code, ExitCode::bad_input);
  EXPECT_EQ(run({"--from-bundle", d.file("missing.tar.gz")}).code, ExitCode::bad_input);
  EXPECT_EQ(run({"--bundle", d.file("no/such/folder/a.tar.gz")}).code, ExitCode::bad_input);
  EXPECT_EQ(run({"--python-timeout", "0"}).code, ExitCode::bad_input);
  d.write("junk.tar.gz", "junk");
  auto r = run({"--from-bundle", d.file("junk.tar.gz")});
  EXPECT_EQ(r.code, ExitCode::bad_input);
  EXPECT_NE(r.err.find("not a .tar.gz"), std::string::npos) << r.err;
}

TEST(DoctorCli, QuickRunsNoProbe) {
  dcukit::doctor::Request req;
  req.env = dcukit::doctor::live_environment();
  req.python_probe = false;
  req.smoke = false;
  const double cpu = cpu_seconds();
  const auto wall = std::chrono::steady_clock::now();
  const auto report = dcukit::doctor::run(req);
  ASSERT_TRUE(report.ok()) << report.error().message;
  const double used = cpu_seconds() - cpu;
  // No probe runs in a quick doctor: a CPU-time bound far above what reading /proc and /sys
  // costs, even sanitized, catches one that does. Its real figure is the doctor benchmark's.
  EXPECT_LT(used, 20.0) << "CPU seconds";
  EXPECT_LT(std::chrono::steady_clock::now() - wall, testutil::kNoHang);
  EXPECT_GT(report->findings.size(), 20u);
}

TEST(DoctorCli, BundleThenFromBundleWithTheBinary) {
  testutil::TempDir d("doctor_cli");
  const std::string bundle = d.file("support.tar.gz");
  auto made = dcukit::util::run_capture(
      {DCUKIT_BINARY, "doctor", "--no-python", "--no-smoke", "--tool-timeout", "5", "--bundle", bundle},
      std::chrono::seconds(120));
  ASSERT_TRUE(made.ok()) << made.error().message;
  EXPECT_TRUE(made->status.code == 0 || made->status.code == 1) << made->status.describe() << made->err;
  EXPECT_NE(made->err.find("wrote " + bundle), std::string::npos) << made->err;
  ASSERT_TRUE(fs::exists(bundle));
  auto back =
      dcukit::util::run_capture({DCUKIT_BINARY, "doctor", "--from-bundle", bundle, "--json"}, std::chrono::seconds(60));
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->status.code == 0 || back->status.code == 1) << back->status.describe() << back->err;
  const auto j = nlohmann::json::parse(back->out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << back->out;
  EXPECT_EQ(j["root"], bundle);
  EXPECT_GT(j["findings"].size(), 20u);
}
