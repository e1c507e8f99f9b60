// `dcukit patrol` as a monitoring system runs it: against the fake server the load tests use
// (healthy, slow, hanging, not ready, absent), with a pid file, with a fake /proc holding a GPU
// device file, and with --watch stopped by SIGTERM. Exit codes are Nagios': 0 1 2 3.
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "fixture.h"
#include "ops_fixture.h"
#include "no_hang.h"

namespace itest {
namespace {

using namespace std::chrono_literals;

Exit patrol(const testutil::TempDir& dir, std::vector<std::string> args, const std::string& name,
            std::chrono::milliseconds deadline = 60s) {
  std::vector<std::string> argv{DCUKIT_BINARY, "patrol"};
  argv.insert(argv.end(), args.begin(), args.end());
  Child child(argv, dir.file(name));
  return child.wait(deadline);
}

const std::string kH200 = telemetry_fixture("h200/csv.txt");

struct HealthySuite : ServerSuite<HealthySuite> {
  static constexpr const char* kName = "patrol_ok";
  static std::vector<std::string> flags() { return {"--model", "qwen-test"}; }
};

TEST_F(HealthySuite, AHealthyServiceAndCaptureAreOk) {
  testutil::TempDir dir("patrol_ok");
  const Exit e = patrol(dir, {"--url", s_server->url(), "--from", kH200}, "patrol");
  EXPECT_EQ(e.code, 0) << e.out << e.err;
  EXPECT_EQ(e.out.rfind("PATROL OK - 1 devices within limits, service healthy", 0), 0u) << e.out;
  EXPECT_NE(e.out.find(" | "), std::string::npos);
  EXPECT_NE(e.out.find("gpu0_temperature=53;83;88"), std::string::npos) << e.out;
  EXPECT_NE(e.out.find("canary="), std::string::npos) << e.out;
  EXPECT_EQ(std::count(e.out.begin(), e.out.end(), '\n'), 1) << "one line, as Nagios reads it: " << e.out;
}

TEST_F(HealthySuite, JsonHoldsEveryFinding) {
  testutil::TempDir dir("patrol_json");
  const Exit e = patrol(dir, {"--url", s_server->url(), "--from", kH200, "--json"}, "patrol");
  EXPECT_EQ(e.code, 0) << e.err;
  const auto j = nlohmann::json::parse(e.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << e.out;
  EXPECT_EQ(j["state"], "OK");
  EXPECT_EQ(j["devices"], 1);
  bool models = false;
  for (const auto& f : j["findings"])
    if (f["check"] == "models") models = f["message"].get<std::string>().find("qwen-test") != std::string::npos;
  EXPECT_TRUE(models) << j.dump(2);
}

TEST_F(HealthySuite, ALimitOverrideTurnsTheCaptureWarning) {
  testutil::TempDir dir("patrol_limit");
  const Exit e = patrol(dir, {"--url", s_server->url(), "--from", kH200, "--limit", "temperature=50,60"}, "patrol");
  EXPECT_EQ(e.code, 1) << e.out;
  EXPECT_EQ(e.out.rfind("PATROL WARNING - gpu0 temperature 53 C (warning: above 50 C)", 0), 0u) << e.out;
}

TEST_F(HealthySuite, AModelTheServerDoesNotListIsCritical) {
  testutil::TempDir dir("patrol_model");
  const Exit e = patrol(dir, {"--url", s_server->url(), "--no-devices", "--model", "other"}, "patrol");
  EXPECT_EQ(e.code, 2) << e.out;
  EXPECT_NE(e.out.find("service models"), std::string::npos) << e.out;
}

struct SlowSuite : ServerSuite<SlowSuite> {
  static constexpr const char* kName = "patrol_slow";
  static std::vector<std::string> flags() { return {"--ttft-ms", "400"}; }
};

TEST_F(SlowSuite, ASlowCanaryIsAWarning) {
  testutil::TempDir dir("patrol_slow");
  const Exit e = patrol(dir, {"--url", s_server->url(), "--no-devices", "--max-canary-ms", "100"}, "patrol");
  EXPECT_EQ(e.code, 1) << e.out << e.err;
  EXPECT_NE(e.out.find("service canary canary took"), std::string::npos) << e.out;
  EXPECT_NE(e.out.find("(warning above 100 ms)"), std::string::npos) << e.out;
}

struct HangSuite : ServerSuite<HangSuite> {
  static constexpr const char* kName = "patrol_hang";
  // Completions take kStall, far past the canary's deadline: a stuck engine behind a live /health.
  // (--mode hang stalls streams only; the canary is not streamed.)
  static std::vector<std::string> flags() { return {"--ttft-ms", std::to_string(testutil::kStall.count() * 1000)}; }
};

TEST_F(HangSuite, AServerThatAnswersHealthButHangsCompletionsIsCritical) {
  testutil::TempDir dir("patrol_hang");
  const auto t0 = std::chrono::steady_clock::now();
  const Exit e = patrol(dir, {"--url", s_server->url(), "--no-devices", "--canary-timeout", "1s"}, "patrol");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, testutil::kNoHang);
  EXPECT_EQ(e.code, 2) << e.out << e.err;
  EXPECT_NE(e.out.find("service canary canary failed"), std::string::npos) << e.out;
  EXPECT_EQ(e.out.find("service health"), std::string::npos) << "/health answered: " << e.out;
}

struct LoadingSuite : ServerSuite<LoadingSuite> {
  static constexpr const char* kName = "patrol_loading";
  static std::vector<std::string> flags() { return {"--ready-after-ms", "600000"}; }
};

TEST_F(LoadingSuite, AServerStillLoadingIsCritical) {
  testutil::TempDir dir("patrol_loading");
  const Exit e = patrol(dir, {"--url", s_server->url(), "--no-devices"}, "patrol");
  EXPECT_EQ(e.code, 2) << e.out;
  EXPECT_NE(e.out.find("service health /health answered HTTP 503"), std::string::npos) << e.out;
}

TEST(PatrolCli, NoServerIsCritical) {
  testutil::TempDir dir("patrol_down");
  const Exit e =
      patrol(dir, {"--url", "http://127.0.0.1:" + std::to_string(free_port()), "--no-devices", "--probe-timeout", "2s"},
             "patrol");
  EXPECT_EQ(e.code, 2) << e.out;
  EXPECT_EQ(e.out.rfind("PATROL CRITICAL - service health", 0), 0u) << e.out;
}

TEST(PatrolCli, APasswordInTheUrlNeverReachesTheStatusLine) {
  // The status line goes into Nagios' logs and notifications.
  testutil::TempDir dir("patrol_secret");
  const std::string url = "http://nagios:Pw-0f-Patrol@127.0.0.1:" + std::to_string(free_port()) + "/?api_key=QK-77";
  for (const bool json : {false, true}) {
    std::vector<std::string> args{"--url", url, "--no-devices", "--probe-timeout", "2s"};
    if (json) args.push_back("--json");
    const Exit e = patrol(dir, args, json ? "patrol_json" : "patrol_text");
    EXPECT_EQ(e.code, 2) << e.out << e.err;
    EXPECT_EQ((e.out + e.err).find("Pw-0f-Patrol"), std::string::npos) << e.out << e.err;
    EXPECT_EQ((e.out + e.err).find("QK-77"), std::string::npos) << e.out << e.err;
    EXPECT_NE(e.out.find("nagios:***@"), std::string::npos) << "the user stays, to tell URLs apart: " << e.out;
  }
}

TEST(PatrolCli, APidFileOfAProcessThatEndedIsCritical) {
  testutil::TempDir dir("patrol_pid");
  const std::string alive = dir.write("alive.pid", std::to_string(::getpid()) + "\n");
  Exit ok = patrol(dir, {"--pid-file", alive, "--no-devices"}, "alive");
  EXPECT_EQ(ok.code, 0) << ok.out;
  // A child that has ended and been reaped: its pid names no process now.
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  const std::string dead = dir.write("dead.pid", std::to_string(pid) + "\n");
  Exit bad = patrol(dir, {"--pid-file", dead, "--no-devices"}, "dead");
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("is not running"), std::string::npos) << bad.out;
  Exit missing = patrol(dir, {"--pid-file", dir.file("none.pid"), "--no-devices"}, "missing");
  EXPECT_EQ(missing.code, 2) << missing.out;
}

TEST(PatrolCli, AProcessOutsideTheServiceHoldingADeviceFileIsResidue) {
  testutil::TempDir dir("patrol_residue");
  namespace fs = std::filesystem;
  const std::string proc = dir.file("root/proc");
  const pid_t self = ::getpid();
  dir.write("root/proc/" + std::to_string(self) + "/stat",
            std::to_string(self) + " (service) S 1 " + std::to_string(self) + " " + std::to_string(self) + " 0\n");
  dir.write("root/proc/4242/stat", "4242 (python) S 1 4242 4242 0\n");
  fs::create_directories(proc + "/4242/fd");
  fs::create_symlink("/dev/dri/renderD128", proc + "/4242/fd/7");
  fs::create_directories(dir.file("root/sys/class/drm"));
  const std::string pid_file = dir.write("service.pid", std::to_string(self));
  const Exit e =
      patrol(dir, {"--pid-file", pid_file, "--root", dir.file("root"), "--source", "sysfs", "--verbose"}, "patrol");
  EXPECT_EQ(e.code, 1) << e.out << e.err;
  EXPECT_NE(e.out.find("1 processes outside the service hold GPU device files: 4242 (python)"), std::string::npos)
      << e.out;
  EXPECT_NE(e.out.find("devices count UNKNOWN: no GPU found"), std::string::npos) << e.out;
  EXPECT_NE(e.out.find("device_processes=1"), std::string::npos) << e.out;
}

TEST(PatrolCli, BadInputIsUnknownNotCritical) {
  testutil::TempDir dir("patrol_bad");
  Exit e = patrol(dir, {"--from", kH200, "--limit", "temp=80,90"}, "limit");
  EXPECT_EQ(e.code, 3);
  EXPECT_NE(e.err.find("no limit is called 'temp'"), std::string::npos) << e.err;
  e = patrol(dir, {"--no-such-flag"}, "flag");
  EXPECT_EQ(e.code, 3) << e.err;
  e = patrol(dir, {"--from", dir.file("absent.txt")}, "absent");
  EXPECT_EQ(e.code, 3) << e.out;
  EXPECT_NE(e.out.find("PATROL UNKNOWN - devices read --from"), std::string::npos) << e.out;
}

TEST(PatrolCli, WatchRepeatsUntilSigterm) {
  testutil::TempDir dir("patrol_watch");
  Child child({DCUKIT_BINARY, "patrol", "--from", kH200, "--watch", "0.2"}, dir.file("watch"));
  const auto end = std::chrono::steady_clock::now() + 20s;
  for (std::string out = child.out();
       std::chrono::steady_clock::now() < end && std::count(out.begin(), out.end(), '\n') < 3; out = child.out())
    std::this_thread::sleep_for(50ms);
  child.signal(SIGTERM);
  const Exit e = child.wait(10s);
  EXPECT_FALSE(e.timed_out);
  EXPECT_EQ(e.code, 0) << e.err;
  EXPECT_GE(std::count(e.out.begin(), e.out.end(), '\n'), 3) << e.out;
  std::size_t lines = 0;
  for (std::size_t p = 0; (p = e.out.find("PATROL OK - ", p)) != std::string::npos; ++p) ++lines;
  EXPECT_GE(lines, 3u) << e.out;
}

}  // namespace
}  // namespace itest
