#include <gtest/gtest.h>
#include <signal.h>

#include <sys/wait.h>

#include <chrono>
#include <fstream>
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

namespace {

/// Whether `pid` is gone (or a zombie) within kNoHang.
bool process_ends(pid_t pid) {
  const auto end = std::chrono::steady_clock::now() + testutil::kNoHang;
  for (;;) {
    std::string stat;
    if (auto s = std::ifstream("/proc/" + std::to_string(pid) + "/stat"); !std::getline(s, stat)) return true;
    const auto paren = stat.rfind(')');
    if (paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z') return true;
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

pid_t read_pid_file(const std::string& path) {
  const auto end = std::chrono::steady_clock::now() + testutil::kNoHang;
  for (;;) {
    long pid = 0;
    if (std::ifstream in(path); in >> pid && pid > 0) return static_cast<pid_t>(pid);
    if (std::chrono::steady_clock::now() > end) return 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace

TEST(UtilProcess, ADeadlineAlsoKillsWhatLeftTheGroupWithSetsid) {
  testutil::TempDir dir("escape");
  const std::string pid_file = dir.file("escaped.pid");
  // The way doctor's --python probe was escaped: a grandchild in a session of its own.
  auto r = run_capture({"sh", "-c", "setsid sh -c 'echo $$ > " + pid_file + "; exec sleep 60' & sleep 60"}, 500ms);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->status.timed_out);
  const pid_t escaped = read_pid_file(pid_file);
  ASSERT_GT(escaped, 0);
  EXPECT_TRUE(process_ends(escaped)) << "pid " << escaped << " outlived the capture's deadline";
  if (!process_ends(escaped)) kill(escaped, SIGKILL);
}

TEST(UtilProcess, AChildThatDiesWithItsParentEndsEvenWhenTheParentIsKilled) {
  testutil::TempDir dir("pdeath");
  const std::string pid_file = dir.file("child.pid");
  const pid_t parent = fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {  // a stand-in for guard: spawns its service, then is killed with SIGKILL
    auto p = Process::spawn({.argv = {"sh", "-c", "echo $$ > " + pid_file + "; exec sleep 60"}, .die_with_parent = true});
    if (!p) _exit(1);
    p->release();
    alarm(30);  // never outlives a test that failed before killing it
    for (;;) pause();
  }
  const pid_t child = read_pid_file(pid_file);
  kill(parent, SIGKILL);
  waitpid(parent, nullptr, 0);
  ASSERT_GT(child, 0) << "the service never started";
  EXPECT_TRUE(process_ends(child)) << "the service outlived guard's SIGKILL";
  if (!process_ends(child)) kill(child, SIGKILL);
}

TEST(UtilProcess, AMarkInTheEnvironmentFindsEveryDescendant) {
  const std::string marker = "DCUKIT_TEST_MARK=" + std::to_string(getpid());
  auto p = Process::spawn({.argv = {"sh", "-c", "setsid sleep 60 & exec sleep 60"}, .env_add = {marker}});
  ASSERT_TRUE(p) << p.error().message;
  // Until both have become `sleep`, a scan may also see the forked shell, or miss one in execve.
  auto both_sleep = [&] {
    const auto pids = processes_with_env(marker);
    return pids.size() == 2 && std::all_of(pids.begin(), pids.end(), [](pid_t pid) {
             std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
             std::string name;
             std::getline(comm, name);
             return name == "sleep";
           });
  };
  const auto end = std::chrono::steady_clock::now() + testutil::kNoHang;
  while (!both_sleep() && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(both_sleep()) << "the marked shell and its setsid child never both became sleep";
  EXPECT_EQ(kill_marked(marker, testutil::kNoHang).size(), 2u);
  for (const pid_t pid : processes_with_env(marker)) EXPECT_TRUE(process_ends(pid));
}
