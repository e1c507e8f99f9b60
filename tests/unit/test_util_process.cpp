#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "tempdir.h"
#include "no_hang.h"
#include "util/process.h"

using namespace dcukit::util;
using namespace std::chrono_literals;

namespace {

/// Whether process group `group` has no member left within kNoHang.
bool group_empties(pid_t group) {
  const auto end = std::chrono::steady_clock::now() + testutil::kNoHang;
  while (!process_group_members(group).empty()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

}  // namespace

TEST(UtilProcess, CapturesOutputAndExitCode) {
  auto r = run_capture({"sh", "-c", "echo out; echo err >&2; exit 3"}, 10s);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
  EXPECT_EQ(r->status.code, 3);
  EXPECT_FALSE(r->status.timed_out);
  EXPECT_EQ(r->status.describe(), "exit 3");
}

TEST(UtilProcess, PassesAddedEnvironment) {
  auto r = run_capture({"sh", "-c", "printf %s \"$DCUKIT_PROBE\""}, 10s, {"DCUKIT_PROBE=yes"});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->out, "yes");
}

TEST(UtilProcess, AMissingProgramIsAnErrorNamingIt) {
  auto r = run_capture({"dcukit-no-such-program"}, 5s);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("dcukit-no-such-program"), std::string::npos);
  auto abs = run_capture({"/nonexistent/tool"}, 5s);
  ASSERT_FALSE(abs);
  EXPECT_NE(abs.error().message.find("/nonexistent/tool"), std::string::npos);
}

TEST(UtilProcess, ADeadlineKillsTheWholeGroupAndKeepsPartialOutput) {
  const auto start = std::chrono::steady_clock::now();
  auto r = run_capture({"sh", "-c", "echo started; sleep 120 & sleep 120"}, 300ms);  // kStall
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->status.timed_out);
  EXPECT_EQ(r->out, "started\n");
  EXPECT_LT(took, testutil::kNoHang);
}

TEST(UtilProcess, AGrandchildHoldingThePipeDoesNotHoldTheCaller) {
  // The shell exits at once; its background child (own session) keeps stdout open.
  const auto start = std::chrono::steady_clock::now();
  auto r = run_capture({"sh", "-c", "echo done; setsid sleep 60 2>/dev/null & exit 0"}, testutil::kNoHang);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status.code, 0);
  EXPECT_FALSE(r->status.timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - start, testutil::kNoHang);
}

TEST(UtilProcess, OutputBeyondTheCapIsDroppedAndSaid) {
  auto r = run_capture({"sh", "-c", "head -c 100000 /dev/zero"}, 10s, {}, 1000);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->out.size(), 1000u);
  EXPECT_TRUE(r->truncated);
}

TEST(UtilProcess, StopEscalatesToKillForAChildThatIgnoresTerm) {
  testutil::TempDir dir("process");
  auto p = Process::spawn(
      {.argv = {"sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.05; done"}, .stdout_path = dir.file("out")});
  ASSERT_TRUE(p) << p.error().message;
  for (int i = 0; i < 200 && dir.read("out").empty(); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(p->running());
  const pid_t group = p->pid();
  const auto s = p->stop(300ms);
  EXPECT_EQ(s.signal, SIGKILL);
  EXPECT_EQ(s.describe(), "timed out (killed by SIGKILL)");
  // The leader is reaped; its killed children are reaped by init in their own time: the group
  // empties (an event), however slowly a loaded machine gets there.
  EXPECT_TRUE(group_empties(group));
}

TEST(UtilProcess, StopEndsAChildThatHonoursTerm) {
  auto p = Process::spawn({.argv = {"sleep", "30"}});
  ASSERT_TRUE(p);
  const auto s = p->stop(5s);
  EXPECT_EQ(s.signal, SIGTERM);
  EXPECT_FALSE(s.timed_out);
}

TEST(UtilProcess, TheGroupIsListedAndKilledWhenTheOwnerGoes) {
  pid_t group = 0;
  {
    auto p = Process::spawn({.argv = {"sh", "-c", "sleep 30 & sleep 30 & wait"}});
    ASSERT_TRUE(p);
    group = p->pid();
    std::vector<pid_t> members;
    for (int i = 0; i < 200 && members.size() < 3; ++i) {
      members = process_group_members(group);
      std::this_thread::sleep_for(10ms);
    }
    EXPECT_EQ(members.size(), 3u);  // the shell and its two sleeps
  }
  EXPECT_TRUE(group_empties(group));
}

TEST(UtilProcess, SpawnFailsClearlyForABadFolder) {
  auto p = Process::spawn({.argv = {"true"}, .cwd = "/nonexistent-folder"});
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("/nonexistent-folder"), std::string::npos);
}

TEST(UtilProcess, FindsProgramsInAPath) {
  EXPECT_TRUE(find_program("sh").has_value());
  EXPECT_FALSE(find_program("sh", "/nonexistent").has_value());
  EXPECT_EQ(signal_name(SIGTERM), "SIGTERM");
  EXPECT_EQ(signal_name(42), "signal 42");
}
